"""From a question asked in Slack to the message that answers it, for every surface.

One pipeline: the question is answered for the asker (and, in a channel, for the
channel's audience) by :class:`bot.service.AnswerService`, told where it was asked (an
alert's thread: :mod:`retrieval.reading.leading`, the same rule the web and the CLI follow);
the facts shown besides the quotes are
gathered (owner or fallback contact, Escalation section, whether the runbook is about
another service than the one asked about); the request is stored for the buttons; and
the message is rendered. Surfaces (slash command, mentions, direct messages, the message
shortcut, alert auto-replies, buttons) only decide where the result goes.

Who may read what comes from :class:`bot.slack.audiences.Audiences` (channels shared
outside the company answer only from shareable runbooks). An alert's own runbook (its
``runbook_url``, else its name) is answered from directly (:meth:`Answering.for_alert`);
a follow-up in a thread continues the runbook the thread is about
(:meth:`Answering.follow_up`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from urllib.parse import urlsplit

from bot.oncall import PagerDutyOnCall
from bot.service import AnswerService, Delivery
from bot.service_names import named_services, other_service
from bot.slack.alert_card import render_alert_card
from bot.slack.alert_post import AlertPost
from bot.slack.alerts import ThreadParent, focused_query
from bot.slack.answer_view import render_answer
from bot.slack.audiences import Audiences
from bot.slack.blockkit import Message, bold, clip, escape, link, safe_url
from bot.slack.channels import is_direct_message
from bot.slack.contacts import Contacts
from bot.slack.follow_up_view import END_OF_RUNBOOK, render_end_of_runbook
from bot.slack.notices import (
    render_external_decline,
    render_minimal,
    render_no_runbook,
    render_restricted_notice,
    restricted_private_note,
    withheld_note,
)
from bot.slack.presentation import DocFacts, Link, View
from bot.slack.requests import PRIVATE_SUFFIX, RequestStore, StoredRequest, Surface
from bot.slack.thread_memory import ThreadTopic
from bot.web.links import runbook_url, web_answer_url, with_page_links
from core.heading_text import SECTION_SEPARATOR
from core.models import Answer, Citation
from core.redact import redact
from retrieval.answer import (
    DocumentLookup,
    RunbookMatch,
    RunbookMatcher,
    RunbookSections,
    citation_kinds,
)
from retrieval.permissions import Scope
from retrieval.reading import AskContext, FollowUp, heading_kinds, is_pasted_alert

log = logging.getLogger("runbook_bot.slack")
MAX_MORE_ACTIONS = 5
#: the gaps report's reason for an alert whose runbook_url names no indexed runbook
UNINDEXED_RUNBOOK_URL = "unindexed-runbook-url"


@dataclass(frozen=True)
class Asked:
    """A question as it reached the bot."""

    text: str  # what the person typed
    user_id: str
    channel_id: str | None = None
    thread_ts: str | None = None
    incident: bool = False
    parent: ThreadParent | None = None  # the message the thread hangs off
    query: str | None = None  # what to search, when not derived from text and parent
    alert: bool | None = None  # known to be about an alert (a retry of an alert's thread)
    external_user: bool = False  # the asker is a member of another organization

    @property
    def search(self) -> str:
        if self.query:
            return self.query
        return focused_query(self.parent.text, self.text) if self.parent else self.text

    @property
    def in_alert(self) -> bool:
        """An alert is the context: the thread's parent, or pasted as the question."""
        if self.alert is not None:
            return self.alert
        if self.parent is not None and self.parent.is_alert:
            return True
        return is_pasted_alert(self.text)

    @property
    def place(self) -> str | None:
        """The channel others read the answer in; None in a direct message."""
        return None if is_direct_message(self.channel_id) else self.channel_id


@dataclass(frozen=True)
class Reply:
    message: Message
    minimal: Message
    stored: StoredRequest | None = None


@dataclass(frozen=True)
class ThreadReply:
    public: Reply | None  # None: nothing is posted for everyone (a declined question)
    private: Reply | None = None  # for the asker only: what the channel may not read
    state: str = "answer"
    answer: Answer | None = None  # what the public reply shows


@dataclass(frozen=True)
class AlertReply:
    """The reply to an alert post: an answer, or a one-line note."""

    reply: Reply
    answer: Answer | None  # None: the note that no runbook answers
    match: RunbookMatch


@dataclass
class Answering:
    service: AnswerService
    sections: RunbookSections
    contacts: Contacts
    requests: RequestStore
    lookup: Callable[[], DocumentLookup]  # the live index's document metadata
    known_services: Callable[[], frozenset[str]]
    hidden_owner: Callable[[str], str | None]  # owner of the runbook an asker may not read
    audiences: Audiences
    matcher: RunbookMatcher
    today: Callable[[], date] = field(default=date.today)
    alert_keep_seconds: int = 12 * 3600  # an alert reply's buttons work this long
    alert_note: bool = False  # no confident runbook for an alert: one line (else nothing)
    public_url: str | None = None  # the web pages: every answer links to the same question
    pager: PagerDutyOnCall | None = None  # "Page on-call" (PagerDuty configured)

    # -- the two deliveries ----------------------------------------------------------

    def _audience(self, asked: Asked) -> Scope | None:
        """Who reads what is posted where it was asked (None: nowhere to post)."""
        if not asked.place:
            return None
        return self.audiences.audience(asked.place, external_user=asked.external_user)

    def _ask(
        self,
        request_id: str,
        asked: Asked,
        audience: Scope | None,
        pinned: str | None,
        anchor: str | None = None,
    ) -> Delivery:
        """The service's answer to ``asked`` for its asker; ``audience`` None: for the asker
        alone; ``pinned`` and ``anchor`` as :meth:`bot.service.AnswerService.ask` takes them."""
        asker = self.audiences.asker(asked.user_id, asked.place, external_user=asked.external_user)
        return self.service.ask(
            asked.search,
            request_id,
            asker=asker,
            audience=audience,
            user_id=asked.user_id,
            channel_id=asked.channel_id,
            pinned=pinned,
            anchor=anchor,
            context=AskContext(alert=asked.in_alert),
        )

    def for_asker(
        self,
        request_id: str,
        asked: Asked,
        surface: Surface = "slash",
        *,
        pinned: str | None = None,
        anchor: str | None = None,
        preface: str | None = None,
    ) -> Reply:
        """An answer only the asker sees: a slash command's or the message shortcut's
        ephemeral reply, or a direct message."""
        delivery = self._ask(request_id, asked, None, pinned, anchor)
        answer = delivery.public
        if answer.state != "answer" and self._external(asked, public=False):
            notice = render_external_decline()
            return Reply(notice, notice)
        facts = self._facts(answer, asked)
        audience = self._audience(asked)
        blocked = self._blocked(answer, audience)
        weak = any(f.other_service for f in facts[:1])
        view = View(
            audience="private",
            incident=asked.incident,
            # as it is kept: a pasted secret is not echoed; elsewhere the question is above
            asked=redact(asked.text) if surface == "slash" else None,
            offer_post=audience is not None
            and answer.state == "answer"
            and answer.sure
            and not blocked
            and not weak,
            offer_escalate=asked.place is not None,
            restricted=blocked,
            access_owner=self._access_owner(answer, asked),
            preface=preface,
        )
        stored = self._store(request_id, asked, surface, answer, view, facts)
        return Reply(self.render(stored), render_minimal(answer, request_id), stored)

    def in_thread(
        self,
        request_id: str,
        asked: Asked,
        *,
        pinned: str | None = None,
        anchor: str | None = None,
        preface: str | None = None,
    ) -> ThreadReply:
        """An answer in a thread, for the channel's whole audience; what only the asker
        may read goes to them privately. In a channel shared outside the company a
        question no shareable runbook answers is declined, privately."""
        audience = self._audience(asked)
        delivery = self._ask(request_id, asked, audience, pinned, anchor)
        if delivery.public.state != "answer" and self._external(asked, public=True):
            notice = render_external_decline()
            return ThreadReply(None, Reply(notice, notice), "declined")
        private_reply: Reply | None = None
        documents = 0
        restricted: list[str] = []
        if delivery.private is not None:
            private = delivery.private
            readable = audience.groups if audience is not None else frozenset()
            restricted = list(
                dict.fromkeys(
                    c.source_id for c in private.citations if not readable.intersection(c.access)
                )
            )
            documents = len(restricted) or 1
            private_facts = self._facts(private, asked)
            private_view = View(
                audience="private",
                restricted=True,
                incident=asked.incident,
                withheld_note=restricted_private_note(documents),
                preface=preface,
            )
            key = request_id + PRIVATE_SUFFIX
            stored = self._store(key, asked, "mention", private, private_view, private_facts)
            private_reply = Reply(self.render(stored), render_minimal(private, key), stored)
        public = delivery.public
        if private_reply is not None and public.state != "answer":
            known = private_reply.stored.facts_by_source() if private_reply.stored else {}
            owner = next((known[s] for s in restricted if s in known), None)
            notice = render_restricted_notice(
                asked.user_id, documents, owner.contact if owner is not None else None
            )
            return ThreadReply(Reply(notice, notice), private_reply, "restricted")
        facts = self._facts(public, asked)
        view = View(
            audience="public",
            incident=asked.incident,
            offer_escalate=asked.place is not None,
            withheld_note=withheld_note(asked.user_id, documents) if private_reply else None,
            access_owner=self._access_owner(public, asked),
            preface=preface,
        )
        stored = self._store(request_id, asked, "mention", public, view, facts)
        reply = Reply(self.render(stored), render_minimal(public, request_id), stored)
        return ThreadReply(reply, private_reply, public.state, public)

    def for_alert(self, request_id: str, asked: Asked, alert: AlertPost) -> AlertReply | None:
        """The reply in an alert's thread: its own runbook (by ``runbook_url``, else by
        name) or the best confident match, for the channel's whole audience. None when
        nothing is confident (or a one-line note, when so configured)."""
        match = self.matcher.find(alert.runbook_url, alert.alertname)
        audience = self.audiences.audience(asked.place) or self.audiences.outside()
        delivery = self.service.ask(
            asked.search,
            request_id,
            asker=audience,
            audience=audience,
            user_id="alert",
            channel_id=asked.channel_id,
            pinned=match.source_id,
            anchor=match.anchor,
            context=AskContext(alert=True),
        )
        answer = delivery.public
        facts = self._facts(answer, asked)
        weak = match.source_id is None and any(f.other_service for f in facts[:1])
        name = alert.alertname or alert.title
        if match.unindexed_url:  # a runbook the alert names and the index lacks: a gap
            self.service.record_gap(
                f"{name}: runbook_url {redact(match.unindexed_url)}",
                request_id,
                UNINDEXED_RUNBOOK_URL,
                service=alert.service,
            )
        if answer.state != "answer" or weak:
            if not self.alert_note and not match.unindexed_url:
                return None  # never silence about a runbook_url that names no runbook
            note = render_no_runbook(name, _unindexed_note(match.unindexed_url))
            return AlertReply(Reply(note, note), None, match)
        view = View(
            audience="public",
            incident=asked.incident,
            offer_escalate=True,
            preface=alert_preface(name, match),
            compact=True,
            alert_name=name,
            alert_url=None if match.unindexed_url else alert.runbook_url,  # else said above
        )
        stored = self._store(request_id, asked, "alert", answer, view, facts)
        reply = Reply(self.render(stored), render_minimal(answer, request_id), stored)
        return AlertReply(reply, answer, match)

    def follow_up(
        self, request_id: str, asked: Asked, topic: ThreadTopic, wants: FollowUp
    ) -> ThreadReply | None:
        """A follow-up on the runbook the thread is about: its next action section after
        what the thread has shown, or its Escalation section, saying which runbook it
        continues. None when the asker (or the channel) may no longer read that runbook,
        or it has nothing more: then the question is answered as a new one."""
        audience = (
            self.audiences.audience(asked.place, external_user=asked.external_user)
            if asked.place
            else None
        )
        asker = self.audiences.asker(asked.user_id, asked.place, external_user=asked.external_user)
        if audience is not None:
            asker = Scope(asker.groups & audience.groups, asker.complete)  # public: both
        delivery = self.service.ask(
            f"{topic.title}: {asked.text}",
            request_id,
            asker=asker,
            audience=audience,
            user_id=asked.user_id,
            channel_id=asked.channel_id,
            pinned=topic.source_id,
            context=AskContext(follow_up=True),
        )
        base = delivery.public
        if base.state != "answer" or not base.citations:
            if not self._readable(topic.source_id, asker):
                return None
            return self._end_of_runbook(request_id, asked, topic, wants, base, asker, audience)
        try:
            nxt = self.sections.continue_after(
                base, topic.sections, escalate=wants == "escalate", question=asked.text
            )
        except Exception:
            log.exception("could not continue the runbook; answering the question anew")
            return None
        if nxt is not None and wants == "next" and nxt.citations[0].section in topic.sections:
            nxt = None  # only what the thread has shown is left: the runbook has ended
        if nxt is None:
            return self._end_of_runbook(request_id, asked, topic, wants, base, asker, audience)
        if audience is not None and self.service.disclose(nxt, audience).blocked:
            return None
        lead = nxt.citations[0]
        facts = self._facts(nxt, asked)
        public = audience is not None
        fixes_ended = wants == "next" and "escalate" in heading_kinds(
            tuple(lead.section.split(SECTION_SEPARATOR))
        )
        view = View(
            audience="public" if public else "private",
            incident=asked.incident,
            offer_escalate=asked.place is not None,
            preface=(end_of_fixes_preface if fixes_ended else continuing_preface)(topic, lead.url),
        )
        stored = self._store(request_id, asked, "mention" if public else "dm", nxt, view, facts)
        reply = Reply(self.render(stored), render_minimal(nxt, request_id), stored)
        return ThreadReply(reply, None, nxt.state, nxt)

    def _readable(self, source_id: str, scope: Scope) -> bool:
        meta = self.lookup()(source_id)
        return meta is not None and bool(scope.groups & set(meta.access))

    def _end_of_runbook(
        self,
        request_id: str,
        asked: Asked,
        topic: ThreadTopic,
        wants: FollowUp,
        base: Answer,
        asker: Scope,
        audience: Scope | None,
    ) -> ThreadReply:
        """The runbook has nothing more: say so, name who to call, list the other runbooks
        of its service; never the same runbook again as another service's match."""
        url = base.citations[0].url if base.citations else self.service.runbook_url(topic.source_id)
        fixes = [
            s for s in topic.sections if "act" in heading_kinds(tuple(s.split(SECTION_SEPARATOR)))
        ]
        related = tuple(
            Link(label=f"{title} ({section})" if section and section != title else title, url=u)
            for title, section, u in self.service.related(
                f"{topic.title} {asked.text}", asker, topic.source_id
            )
        )
        public = audience is not None
        view = View(
            audience="public" if public else "private",
            incident=asked.incident,
            offer_escalate=asked.place is not None,
            ended="escalate" if wants == "escalate" else "next",
            runbook=Link(label=topic.title, url=url),
            last_fix=next(reversed(fixes or topic.sections), None),
            related_runbooks=related,
            step=self.service.human_step_for(topic.source_id),
        )
        stored = self._store(request_id, asked, "mention" if public else "dm", base, view, ())
        message = self.render(stored)
        return ThreadReply(Reply(message, message, stored), None, "answer", None)

    def render(self, stored: StoredRequest) -> Message:
        """The stored answer's message; a title whose source has no link links to its
        runbook's web page (``RUNBOOK_PUBLIC_URL``)."""
        view = stored.view
        if view.ended is not None:
            return render_end_of_runbook(stored.request_id, view)
        if stored.answer.citations and (
            view.compact or (stored.surface == "alert" and view.resolved)
        ):
            return render_alert_card(
                stored.answer,
                request_id=stored.request_id,
                today=self.today(),
                view=view,
                public_url=self.public_url,
            )
        return render_answer(
            with_page_links(stored.answer, self.public_url),
            request_id=stored.request_id,
            today=self.today(),
            view=stored.view,
            facts=page_linked_facts(stored.facts_by_source(), self.public_url),
            browser_url=web_answer_url(self.public_url, stored.asked or stored.question),
        )

    # -- pieces ----------------------------------------------------------------------

    def _facts(self, answer: Answer, asked: Asked) -> tuple[DocFacts, ...]:
        if not answer.citations:
            return ()
        lookup = self.lookup()
        text = redact(asked.text + ("\n" + asked.parent.text if asked.parent else ""))
        alert_service = asked.parent.service if asked.parent is not None else None
        names = named_services(text, self.known_services(), alert_service)
        out: list[DocFacts] = []
        firsts: dict[str, Citation] = {}
        for c in answer.citations:
            firsts.setdefault(c.source_id, c)  # each document's first quote
        for i, citation in enumerate(firsts.values()):
            meta = lookup(citation.source_id)
            escalation = (
                self.sections.escalation(citation.source_id, citation.section) if i == 0 else None
            )
            own = [c for c in answer.citations if c.source_id == citation.source_id]
            quoted = {c.section for c in own}
            # the lead runbook's other fixes, when one of its quotes is a fix (the action
            # may lead, or follow the check it needs)
            acting = next((c for c in own if citation_kinds(c) & {"act"}), None)
            more = (
                tuple(
                    Link(label=a.section, url=a.url)
                    for a in self.sections.actions(citation.source_id, acting.section)
                    if a.section not in quoted
                    and not any(q.startswith(a.section + " > ") for q in quoted)
                )
                if i == 0 and acting is not None
                else ()
            )
            out.append(
                DocFacts(
                    source_id=citation.source_id,
                    contact=self.contacts.for_document(citation.owner, citation.service),
                    escalation=escalation.markdown if escalation else None,
                    escalation_section=escalation.section if escalation else None,
                    escalation_url=escalation.url if escalation else None,
                    other_service=other_service(names, citation.title, citation.path, meta),
                    more_actions=more[:MAX_MORE_ACTIONS],
                )
            )
        return tuple(out)

    def _external(self, asked: Asked, *, public: bool) -> bool:
        return asked.external_user or self.audiences.is_external(asked.place, public=public)

    def _blocked(self, answer: Answer, audience: Scope | None) -> bool:
        """Does ``answer`` cite what the channel's audience may not read?"""
        if audience is None or answer.state != "answer" or not answer.citations:
            return False
        return bool(self.service.disclose(answer, audience).blocked)

    def _access_owner(self, answer: Answer, asked: Asked) -> str | None:
        if answer.reason != "access-denied":
            return None
        try:
            return self.hidden_owner(asked.search)
        except Exception:
            log.exception("could not find the restricted runbook's owner")
            return None

    def _store(
        self,
        key: str,
        asked: Asked,
        surface: Surface,
        answer: Answer,
        view: View,
        facts: tuple[DocFacts, ...],
    ) -> StoredRequest:
        if view.step is None:  # who to call now, as it is when the answer is delivered
            view = view.model_copy(update={"step": self.service.human_step(answer)})
        stored = StoredRequest(
            request_id=key,
            question=asked.search,
            asked=asked.text,  # put() redacts
            surface=surface,
            channel_id=asked.channel_id,
            thread_ts=asked.thread_ts,
            service=answer.citations[0].service if answer.citations else None,
            cited=tuple(c.source_id for c in answer.citations),
            incident=asked.incident,
            alert=asked.in_alert,
            answer=answer,
            view=view,
            facts=facts,
            keep_seconds=self.alert_keep_seconds if surface == "alert" else None,
        )
        self.requests.put(stored)
        return stored


def _unindexed_note(url: str | None) -> str | None:
    if not url:
        return None
    shown = redact(url)
    path = urlsplit(shown).path.strip("/")
    label = clip("/".join(path.split("/")[-2:]) or shown, 120)
    where = link(shown, label) if safe_url(shown) else escape(label)
    return f"Its runbook_url ({where}) is not an indexed runbook."


def alert_preface(alertname: str, match: RunbookMatch) -> str:
    """Why this runbook, above an alert's reply."""
    name = bold(clip(alertname.strip(), 150) or "This alert")
    if match.matched_by == "runbook_url":
        why = "the runbook its `runbook_url` names"
    elif match.matched_by == "alert_name":
        why = "the runbook that names this alert"
    else:
        why = "the closest runbook"
    line = f":rotating_light: {name}: {why}."
    unindexed = _unindexed_note(match.unindexed_url)
    if unindexed:
        line = f":warning: {name}: {unindexed[0].lower()}{unindexed[1:]} Showing {why}."
    return line


def end_of_fixes_preface(topic: ThreadTopic, url: str | None) -> str:
    """Over a runbook's Escalation section shown after its last fix: no fix is left."""
    title = link(url, clip(topic.title, 150)) if safe_url(url) else escape(clip(topic.title, 150))
    fixes = [s for s in topic.sections if "act" in heading_kinds(tuple(s.split(SECTION_SEPARATOR)))]
    last = f" after “{escape(clip(fixes[-1], 120))}”" if fixes else ""
    return f":checkered_flag: *{END_OF_RUNBOOK}* No fix follows{last} in *{title}*; its escalation:"


def continuing_preface(topic: ThreadTopic, url: str | None) -> str:
    """Which runbook a follow-up continues, and after what: the last fix the thread
    showed ("if that doesn't work" means the fix, not the check quoted beside it)."""
    title = link(url, clip(topic.title, 150)) if safe_url(url) else escape(clip(topic.title, 150))
    fixes = [s for s in topic.sections if "act" in heading_kinds(tuple(s.split(SECTION_SEPARATOR)))]
    last = (fixes or list(topic.sections))[-1:]
    after = f", after “{escape(clip(last[0], 120))}”" if last else ""
    return f":leftwards_arrow_with_hook: Continuing from *{title}*{after}."


def page_linked_facts(facts: Mapping[str, DocFacts], base_url: str | None) -> dict[str, DocFacts]:
    """``facts`` with "Other fixes" and the Escalation heading linked to the runbook's web
    page when their source has no link (nothing when ``base_url`` is unset)."""
    if not base_url:
        return dict(facts)

    def linked(f: DocFacts) -> DocFacts:
        more = tuple(
            m
            if m.url
            else m.model_copy(update={"url": runbook_url(base_url, f.source_id, m.label)})
            for m in f.more_actions
        )
        escalation_url = f.escalation_url
        if f.escalation and not escalation_url:
            escalation_url = runbook_url(base_url, f.source_id, f.escalation_section)
        return f.model_copy(update={"more_actions": more, "escalation_url": escalation_url})

    return {k: linked(f) for k, f in facts.items()}
