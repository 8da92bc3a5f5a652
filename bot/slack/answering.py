"""From a question asked in Slack to the message that answers it, for every surface.

One pipeline: the question is answered for the asker (and, in a channel, for the
channel's audience) by :class:`bot.service.AnswerService`; in an alert's thread or for
a "what do I do" question the answer opens with the runbook's action section
(:class:`bot.sections.RunbookSections`); the facts shown besides the quotes are
gathered (owner or fallback contact, Escalation section, whether the runbook is about
another service than the one asked about); the request is stored for the buttons; and
the message is rendered. Surfaces (slash command, mentions, buttons) only decide where
the result goes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from bot.sections import RunbookSections, citation_kinds
from bot.service import AnswerService
from bot.service_names import named_services, other_service
from bot.slack.alerts import ThreadParent, focused_query
from bot.slack.answer_view import render_answer
from bot.slack.blockkit import Message
from bot.slack.channels import is_direct_message
from bot.slack.contacts import Contacts
from bot.slack.notices import (
    render_minimal,
    render_restricted_notice,
    restricted_private_note,
    withheld_note,
)
from bot.slack.presentation import DocFacts, Link, View
from bot.slack.requests import PRIVATE_SUFFIX, RequestStore, StoredRequest, Surface
from retrieval.disclosure import DocumentLookup
from retrieval.intent import question_intent
from retrieval.permissions import Scope
from retrieval.query import parse_alert_text
from retrieval.redact import redact
from retrieval.types import Answer

log = logging.getLogger("runbook_bot.slack")
#: questions that ask what to do: their answer opens with an action section
ACTION_INTENTS = frozenset({"act", "procedure"})
MAX_MORE_ACTIONS = 5


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
        return bool(parse_alert_text(self.text).alert_name) and len(self.text) > 40

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
    public: Reply
    private: Reply | None = None  # for the asker only: what the channel may not read
    state: str = "answer"


@dataclass
class Answering:
    service: AnswerService
    sections: RunbookSections
    contacts: Contacts
    requests: RequestStore
    lookup: Callable[[], DocumentLookup]  # the live index's document metadata
    known_services: Callable[[], frozenset[str]]
    hidden_owner: Callable[[str], str | None]  # owner of the runbook an asker may not read
    today: Callable[[], date] = field(default=date.today)

    # -- the two deliveries ----------------------------------------------------------

    def for_asker(self, request_id: str, asked: Asked, surface: Surface = "slash") -> Reply:
        """An answer only the asker sees (a slash command's ephemeral reply)."""
        resolver = self.service.resolver
        delivery = self.service.ask(
            asked.search,
            request_id,
            asker=resolver.scope_for_user(asked.user_id),
            audience=None,
            user_id=asked.user_id,
            channel_id=asked.channel_id,
        )
        answer = self._lead(delivery.public, asked)
        facts = self._facts(answer, asked)
        audience = resolver.audience_for_channel(asked.place) if asked.place else None
        blocked = self._blocked(answer, audience)
        weak = any(f.other_service for f in facts[:1])
        view = View(
            audience="private",
            incident=asked.incident,
            asked=redact(asked.text),  # as it is kept: a pasted secret is not echoed
            offer_post=audience is not None
            and answer.state == "answer"
            and not blocked
            and not weak,
            offer_escalate=asked.place is not None,
            restricted=blocked,
            access_owner=self._access_owner(answer, asked),
        )
        stored = self._store(request_id, asked, surface, answer, view, facts)
        return Reply(self.render(stored), render_minimal(answer, request_id), stored)

    def in_thread(self, request_id: str, asked: Asked) -> ThreadReply:
        """An answer in a thread, for the channel's whole audience; what only the asker
        may read goes to them privately."""
        resolver = self.service.resolver
        audience = resolver.audience_for_channel(asked.place) if asked.place else None
        delivery = self.service.ask(
            asked.search,
            request_id,
            asker=resolver.scope_for_user(asked.user_id),
            audience=audience,
            user_id=asked.user_id,
            channel_id=asked.channel_id,
        )
        private_reply: Reply | None = None
        documents = 0
        restricted: list[str] = []
        if delivery.private is not None:
            private = self._lead(delivery.private, asked)
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
            )
            key = request_id + PRIVATE_SUFFIX
            stored = self._store(key, asked, "mention", private, private_view, private_facts)
            private_reply = Reply(self.render(stored), render_minimal(private, key), stored)
        public = self._lead(delivery.public, asked)
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
        )
        stored = self._store(request_id, asked, "mention", public, view, facts)
        reply = Reply(self.render(stored), render_minimal(public, request_id), stored)
        return ThreadReply(reply, private_reply, public.state)

    def render(self, stored: StoredRequest) -> Message:
        return render_answer(
            stored.answer,
            request_id=stored.request_id,
            today=self.today(),
            view=stored.view,
            facts=stored.facts_by_source(),
        )

    # -- pieces ----------------------------------------------------------------------

    def _lead(self, answer: Answer, asked: Asked) -> Answer:
        """In an alert's context, or for "what do I do", the answer opens with action."""
        if asked.in_alert or question_intent(asked.text) in ACTION_INTENTS:
            try:
                return self.sections.action_first(answer, asked.search)
            except Exception:  # showing the answer as it is beats failing
                log.exception("could not find the action section; showing the answer as is")
        return answer

    def _facts(self, answer: Answer, asked: Asked) -> tuple[DocFacts, ...]:
        if not answer.citations:
            return ()
        lookup = self.lookup()
        text = redact(asked.text + ("\n" + asked.parent.text if asked.parent else ""))
        alert_service = asked.parent.service if asked.parent is not None else None
        names = named_services(text, self.known_services(), alert_service)
        out: list[DocFacts] = []
        for i, citation in enumerate(dict((c.source_id, c) for c in answer.citations).values()):
            meta = lookup(citation.source_id)
            escalation = self.sections.escalation(citation.source_id) if i == 0 else None
            quoted = {c.section for c in answer.citations if c.source_id == citation.source_id}
            more = (
                tuple(
                    Link(label=a.section, url=a.url)
                    for a in self.sections.actions(citation.source_id)
                    if a.section not in quoted
                    and not any(q.startswith(a.section + " > ") for q in quoted)
                )
                if i == 0 and citation_kinds(citation) & {"act"}
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
        )
        self.requests.put(stored)
        return stored
