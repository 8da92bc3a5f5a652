"""The buttons on answers: feedback, Post to channel, Escalate to owner, Retry, and the
search link (only acknowledged).

A click updates its message in place (the button gives way to what happened) rather than
adding a message. "Post to channel" and "Escalate to owner" post at most once per answer,
however often and by whoever they are clicked; everything posted is checked against what
the channel's whole audience may read, at click time, against the live index. A best
guess is never posted (its message offers no such button; an older copy's click is told).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from typing import Any

from slack_bolt import Ack, App, Respond
from slack_sdk.errors import SlackApiError, SlackRequestError

from bot.logs import bind_request_id, new_request_id
from bot.oncall import OnCallError
from bot.slack import actions as ids
from bot.slack.answering import Asked
from bot.slack.blockkit import Message, clip
from bot.slack.channels import is_direct_message
from bot.slack.context import SlackContext
from bot.slack.human_step_view import escalation_target
from bot.slack.notices import (
    render_escalation,
    render_help_request,
    render_minimal,
    render_paged,
)
from bot.slack.presentation import View
from bot.slack.requests import SHARED_SUFFIX, StoredRequest, base_request_id
from bot.slack.slash import failure
from bot.text import is_best_guess
from core.models import Citation
from retrieval.answer import Disclosure
from state.querylog import FeedbackValue, build_feedback, hash_user

log = logging.getLogger("runbook_bot.slack")
THANKS = "Thanks for the feedback: it helps the runbook owners."
EXPIRED = "This answer has expired: ask again with /runbook."
NOT_POSTED_BEST_GUESS = (
    "Not posted: this answer is a best guess. Check the runbook, then share its link."
)
NOT_IN_CHANNEL = ("not_in_channel", "channel_not_found", "is_archived")


def _clicked(body: dict[str, Any]) -> tuple[str, str, str]:
    """(stored request key, clicking user, channel) of a button click."""
    action = (body.get("actions") or [{}])[0]
    key = str(action.get("value") or "")[:100] or "unknown"
    user = str((body.get("user") or {}).get("id") or "")
    channel = str((body.get("channel") or {}).get("id") or "")
    return key, user, channel


def _thread_of(body: dict[str, Any]) -> str | None:
    container = body.get("container") or {}
    message = body.get("message") or {}
    return str(container.get("thread_ts") or message.get("thread_ts") or "") or None


def left_out_note(left_out: Sequence[str]) -> str:
    """ "Left out ...: 1 related incident, 1 warning." (empty when nothing was)."""
    if not left_out:
        return ""
    counts = Counter(left_out)
    parts = [f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in counts.items()]
    return "Left out, as not everyone there may read them: " + ", ".join(parts) + "."


class AnswerButtons:
    def __init__(self, ctx: SlackContext) -> None:
        self.ctx = ctx

    def register(self, app: App) -> None:
        app.action(ids.FEEDBACK_HELPFUL)(self.on_feedback)
        app.action(ids.FEEDBACK_NOT_HELPFUL)(self.on_feedback)
        app.action(ids.POST_TO_CHANNEL)(self.on_post_to_channel)
        app.action(ids.ESCALATE)(self.on_escalate)
        app.action(ids.PAGE_ONCALL)(self.on_page)
        app.action(ids.FULL_RUNBOOK)(self.on_full_runbook)
        app.action(ids.RETRY)(self.on_retry)
        app.action(ids.OPEN_SEARCH)(self.on_open_search)
        app.action(ids.OPEN_IN_BROWSER)(self.on_open_search)  # a link: nothing to do
        app.action(ids.SHOW_MORE)(self.on_show_more)

    def _run(self, fn: Any, surface: str, body: dict[str, Any], respond: Respond) -> None:
        key, _, _ = _clicked(body)

        def work() -> None:
            with bind_request_id(base_request_id(key)):
                try:
                    fn(key, body, respond)
                except Exception as exc:
                    self.ctx.failed(base_request_id(key), exc, surface)
                    self.ctx.sender.tell(respond, "That did not work: try again in a minute.")

        self.ctx.submit(work)

    def _clicked_request(
        self, key: str, body: dict[str, Any], respond: Respond, *, cited: bool = False
    ) -> tuple[StoredRequest, str, str] | None:
        """(the clicked message's stored request, the clicking user, the channel: the one
        clicked in, else the one answered in); None, and the clicker told, when it has
        expired (or, ``cited``, cites nothing)."""
        _, user_id, clicked_channel = _clicked(body)
        stored = self.ctx.requests.get(key)
        if stored is None or (cited and not stored.answer.citations):
            self.ctx.sender.tell(respond, EXPIRED)
            return None
        return stored, user_id, clicked_channel or stored.channel_id or ""

    # -- feedback ----------------------------------------------------------------------

    def on_feedback(self, ack: Ack, body: dict[str, Any], respond: Respond) -> None:
        ack()
        self._run(self._feedback, "feedback", body, respond)

    def _feedback(self, key: str, body: dict[str, Any], respond: Respond) -> None:
        ctx = self.ctx
        _, user_id, _ = _clicked(body)
        action = (body.get("actions") or [{}])[0]
        value: FeedbackValue = (
            "helpful" if action.get("action_id") == ids.FEEDBACK_HELPFUL else "not_helpful"
        )
        request_id = base_request_id(key)
        stored = ctx.requests.get(key)
        if ctx.dedup.first_time(f"feedback:{request_id}:{user_id or 'unknown'}:{value}"):
            ctx.feedback_log().record_feedback(
                build_feedback(
                    request_id=request_id,
                    user_hash=hash_user(user_id or "unknown", ctx.user_salt()),
                    value=value,
                    question=stored.question if stored else "",
                    service=stored.service if stored else None,
                    cited=stored.cited if stored else (),
                    cited_access=(
                        {c.source_id: c.access for c in stored.answer.citations} if stored else None
                    ),
                )
            )
            ctx.metrics.feedback(value)
            log.info("feedback %s", value, extra={"feedback": value, "known": bool(stored)})
        else:
            log.info("repeated feedback %s ignored", value)
        if stored is None:
            ctx.sender.tell(respond, THANKS)
            return
        self._redraw(stored, body, respond, key, feedback=value)

    def _redraw(
        self,
        stored: StoredRequest,
        body: dict[str, Any],
        respond: Respond,
        key: str | None = None,
        **view: Any,
    ) -> None:
        """The stored answer with its ``view`` changed (feedback given, shown whole,
        escalated, paged): kept, and drawn again in place of the clicked message; with
        the click's ``key``, a minimal message stands by should Slack refuse the full one."""
        updated = stored.model_copy(update={"view": stored.view.model_copy(update=view)})
        self.ctx.requests.put(updated)
        minimal = render_minimal(updated.answer, key) if key is not None else None
        self.ctx.sender.replace(
            body,
            respond,
            self.ctx.answering.render(updated),
            public=stored.view.audience == "public",
            minimal=minimal,
        )

    # -- show more ---------------------------------------------------------------------

    def on_show_more(self, ack: Ack, body: dict[str, Any], respond: Respond) -> None:
        ack()
        self._run(self._show_more, "show more", body, respond)

    def _show_more(self, key: str, body: dict[str, Any], respond: Respond) -> None:
        """The same message, in place, with the lead quote whole and its examples shown."""
        clicked = self._clicked_request(key, body, respond)
        if clicked is None:
            return
        self._redraw(clicked[0], body, respond, key, expanded=True)

    # -- post to channel ---------------------------------------------------------------

    def on_post_to_channel(self, ack: Ack, body: dict[str, Any], respond: Respond) -> None:
        ack()
        self._run(self._post_to_channel, "post to channel", body, respond)

    def _post_to_channel(self, key: str, body: dict[str, Any], respond: Respond) -> None:
        ctx = self.ctx
        clicked = self._clicked_request(key, body, respond)
        if clicked is None:
            return
        stored, user_id, channel = clicked
        shown, why = self._for_channel(stored, channel)
        if shown is None or why is not None:
            log.info("not posting to %s: %s", channel, why)
            ctx.sender.tell(respond, why or "Not posted.")
            return
        base = base_request_id(key)
        if not ctx.dedup.first_time(f"post:{base}:{stored.post_failures}"):
            log.info("repeated Post to channel ignored")
            ctx.sender.tell(respond, "Already posted to the channel.")
            return
        thread_ts = _thread_of(body) or stored.thread_ts
        shared = stored.model_copy(
            update={
                "request_id": base + SHARED_SUFFIX,
                "answer": shown.answer,
                "thread_ts": thread_ts,
                "view": View(
                    audience="public",
                    incident=stored.incident,
                    asked=stored.asked,
                    shared_by=user_id or None,
                    offer_escalate=stored.view.offer_escalate,
                ),
            }
        )
        ctx.requests.put(shared)
        try:
            ctx.sender.post(
                channel,
                ctx.answering.render(shared),
                thread_ts=thread_ts,
                minimal=render_minimal(shown.answer, shared.request_id),
            )
        except SlackApiError as exc:
            ctx.requests.put(stored.model_copy(update={"post_failures": stored.post_failures + 1}))
            error = exc.response.get("error") if exc.response is not None else None
            if error not in NOT_IN_CHANNEL:
                raise
            ctx.sender.tell(
                respond, f"I can't post in this channel ({error}): invite me and try again."
            )
            return
        log.info("posted the answer to %s", channel)
        note = left_out_note(shown.left_out)
        updated = stored.model_copy(
            update={
                "view": stored.view.model_copy(
                    update={"posted_by": user_id or "someone", "posted_note": note or None}
                )
            }
        )
        ctx.requests.put(updated)
        message = ctx.answering.render(updated)
        done = "Posted to the channel." + (f" {note}" if note else "")
        ctx.sender.respond(respond, Message(text=done, blocks=message.blocks), replace=True)

    def _for_channel(
        self, stored: StoredRequest, channel: str
    ) -> tuple[Disclosure | None, str | None]:
        """The stored answer as ``channel`` may see it now, or why it may not be posted."""
        if not channel or is_direct_message(channel):
            return None, "There is no channel to post to here."
        answer = stored.answer
        if answer.state != "answer" or not answer.citations:
            return None, "Only answers that cite a runbook can be posted to the channel."
        if is_best_guess(answer):
            return None, NOT_POSTED_BEST_GUESS
        service = self.ctx.service
        audience = self.ctx.audiences.audience(channel) or self.ctx.audiences.outside()
        shown = service.disclose(answer, audience)
        if not shown.blocked:
            return shown, None
        lookup = self.ctx.answering.lookup()
        for citation in shown.blocked:
            if lookup(citation.source_id) is None:
                return None, (
                    f"Not posted: {citation.title} is no longer in the index. "
                    "Ask again for the current runbook."
                )
        titles = list(dict.fromkeys(c.title for c in shown.blocked))
        names = ", ".join(titles[:3]) + (" and more" if len(titles) > 3 else "")
        return None, (
            f"Not posted: not everyone in this channel may read {names}. "
            "The answer stays visible only to you."
        )

    # -- escalate ----------------------------------------------------------------------

    def on_escalate(self, ack: Ack, body: dict[str, Any], respond: Respond) -> None:
        ack()
        self._run(self._escalate, "escalate", body, respond)

    def _escalate(self, key: str, body: dict[str, Any], respond: Respond) -> None:
        ctx = self.ctx
        clicked = self._clicked_request(key, body, respond)
        if clicked is None:
            return
        stored, user_id, channel = clicked
        lead = stored.answer.citations[0] if stored.answer.citations else None
        facts = stored.facts_by_source().get(lead.source_id) if lead is not None else None
        if stored.view.step is not None:
            contact = escalation_target(stored.view.step)
        else:
            contact = facts.contact if facts is not None else None
            if contact is not None and not contact.id:
                contact = None
        if contact is None:
            ctx.sender.tell(respond, "There is nobody on record to escalate to.")
            return
        if not channel or is_direct_message(channel):
            ctx.sender.tell(respond, "There is no channel to escalate in here.")
            return
        if not ctx.dedup.first_time(f"escalate:{base_request_id(key)}"):
            ctx.sender.tell(respond, f"Already escalated to {contact.label}.")
            return
        citation = self._readable_lead(stored, channel)
        thread_ts = self._thread(body, stored)
        if contact.kind == "channel" and contact.id and contact.id != channel:
            # the service's channel: asked there, with a link back to this thread
            permalink = self._permalink(channel, thread_ts) if thread_ts else None
            there = self._readable_lead(stored, contact.id)
            try:
                ctx.sender.post(contact.id, render_help_request(user_id, there, permalink))
            except SlackApiError as exc:
                error = exc.response.get("error") if exc.response is not None else None
                if error not in NOT_IN_CHANNEL:
                    raise
                ctx.sender.tell(
                    respond, f"I can't post in {contact.label} ({error}): ask there yourself."
                )
                return
        ctx.sender.post(channel, render_escalation(user_id, contact, citation), thread_ts=thread_ts)
        log.info("escalated to %s in %s", contact.label, channel)
        self._redraw(stored, body, respond, escalated_by=user_id or "someone")

    def _readable_lead(self, stored: StoredRequest, channel: str) -> Citation | None:
        """The answer's lead citation when everyone in ``channel`` may read it, else None
        (never name what a channel may not read)."""
        answer = stored.answer
        if not answer.citations:
            return None
        audience = self.ctx.audiences.audience(channel) or self.ctx.audiences.outside()
        shown = self.ctx.service.disclose(answer, audience)
        return answer.citations[0] if not shown.blocked else None

    def _thread(self, body: dict[str, Any], stored: StoredRequest) -> str | None:
        """The thread a click's post goes in: the message's, else a thread started on it."""
        container = body.get("container") or {}
        thread_ts = _thread_of(body) or stored.thread_ts
        if (
            thread_ts is None
            and stored.view.audience == "public"
            and not container.get("is_ephemeral")
        ):
            thread_ts = str(container.get("message_ts") or "") or None  # start a thread on it
        return thread_ts

    def _permalink(self, channel: str, ts: str) -> str | None:
        try:
            resp = self.ctx.client.chat_getPermalink(channel=channel, message_ts=ts)
        except (SlackApiError, SlackRequestError, OSError) as exc:
            log.info("chat.getPermalink %s/%s failed: %s", channel, ts, exc)
            return None
        link = resp.get("permalink")
        return str(link) if link else None

    # -- full runbook ------------------------------------------------------------------

    def on_full_runbook(self, ack: Ack, body: dict[str, Any], respond: Respond) -> None:
        ack()
        action = (body.get("actions") or [{}])[0]
        if action.get("url"):
            return  # the runbook's web page opens in the browser
        self._run(self._full_runbook, "full runbook", body, respond)

    def _full_runbook(self, key: str, body: dict[str, Any], respond: Respond) -> None:
        """An alert's card expanded in place: the whole answer, with all its buttons."""
        clicked = self._clicked_request(key, body, respond, cited=True)
        if clicked is None:
            return
        self._redraw(clicked[0], body, respond, key, compact=False)

    # -- page on-call ------------------------------------------------------------------

    def on_page(self, ack: Ack, body: dict[str, Any], respond: Respond) -> None:
        ack()  # Slack asked "Page on-call?" before sending the click
        self._run(self._page, "page on-call", body, respond)

    def _page(self, key: str, body: dict[str, Any], respond: Respond) -> None:
        ctx = self.ctx
        clicked = self._clicked_request(key, body, respond)
        if clicked is None:
            return
        stored, user_id, channel = clicked
        step = stored.view.step
        pager = ctx.answering.pager
        if step is None or step.page_service is None or pager is None:
            ctx.sender.tell(respond, "Paging is not set up for this runbook's service.")
            return
        if not channel or is_direct_message(channel):
            ctx.sender.tell(respond, "There is no channel to page from here.")
            return
        base = base_request_id(key)
        if not ctx.dedup.first_time(f"page:{base}:{stored.page_failures}"):
            ctx.sender.tell(respond, "Already paged: the incident is linked in the thread.")
            return
        thread_ts = self._thread(body, stored)
        permalink = self._permalink(channel, thread_ts) if thread_ts else None
        citation = stored.answer.citations[0] if stored.answer.citations else None
        runbook = step.runbook or (citation.title if citation else None) or "runbook"
        asked = clip(" ".join((stored.asked or stored.question).split()), 200)
        title = f"{runbook}: {asked}" if asked else runbook
        details = "\n".join(
            line
            for line in (
                "Paged from Slack by runbook-bot.",
                f"Thread: {permalink}" if permalink else None,
                f"Runbook: {citation.url}" if citation and citation.url else None,
            )
            if line
        )
        try:
            incident = pager.page(step.page_service, title, details, f"runbook-bot:{base}")
        except OnCallError as exc:
            ctx.requests.put(stored.model_copy(update={"page_failures": stored.page_failures + 1}))
            log.warning("paging on-call failed: %s", exc)
            who = ", ".join(c.label for c in step.contacts)
            ctx.sender.tell(respond, f"Paging failed ({exc}). Try again, or call {who} directly.")
            return
        log.info("paged on-call: incident %s on %s", incident.id, incident.service)
        ctx.sender.post(channel, render_paged(user_id, step, incident), thread_ts=thread_ts)
        self._redraw(
            stored, body, respond, paged_by=user_id or "someone", incident_url=incident.url
        )

    # -- retry -------------------------------------------------------------------------

    def on_retry(self, ack: Ack, body: dict[str, Any], respond: Respond) -> None:
        ack()
        self._run(self._retry, "retry", body, respond)

    def _retry(self, key: str, body: dict[str, Any], respond: Respond) -> None:
        ctx = self.ctx
        clicked = self._clicked_request(key, body, respond)
        if clicked is None:
            return
        stored, user_id, clicked_channel = clicked
        channel = clicked_channel or None
        request_id = new_request_id()
        asked = Asked(
            text=stored.asked or stored.question,
            user_id=user_id,
            channel_id=channel,
            thread_ts=stored.thread_ts,
            incident=ctx.incident(channel),
            query=stored.question,
            alert=stored.alert,
        )
        public = stored.surface in ("mention", "alert")
        with bind_request_id(request_id):
            try:
                if not public:
                    surface = stored.surface if stored.surface in ("dm", "shortcut") else "slash"
                    reply = ctx.answering.for_asker(request_id, asked, surface)
                    ctx.sender.respond(respond, reply.message, replace=True, minimal=reply.minimal)
                    return
                thread = ctx.answering.in_thread(request_id, asked)
                if thread.public is not None:
                    ctx.sender.replace(
                        body,
                        respond,
                        thread.public.message,
                        public=True,
                        minimal=thread.public.minimal,
                    )
                if thread.private is not None and channel and user_id:
                    ctx.sender.ephemeral(
                        channel, user_id, thread.private.message, thread_ts=stored.thread_ts
                    )
            except Exception as exc:
                ctx.failed(request_id, exc, "retry")
                message = failure(
                    ctx,
                    request_id,
                    exc,
                    asked.text,
                    channel,
                    thread_ts=stored.thread_ts,
                    query=stored.question,
                    surface=stored.surface,
                )
                ctx.sender.replace(body, respond, message, public=public)

    def on_open_search(self, ack: Ack) -> None:
        ack()  # a link button: Slack opens the URL, the app only acknowledges
