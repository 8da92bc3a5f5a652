"""The message shortcut "Find runbook for this message": on any message (an alert, a
pasted log, a question), the runbook for it, privately.

An alert an integration posted is answered from its own runbook (``runbook_url``, else
its name) when one is indexed; anything else is searched by its alert name, error lines
and words (:func:`bot.slack.alerts.focused_query`). The answer is ephemeral, through the
shortcut's ``response_url``; "Post to channel" shares it in the message's thread.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from slack_bolt import Ack, App, Respond

from bot.logs import bind_request_id, new_request_id
from bot.slack.alert_post import parse_alert_post
from bot.slack.alerts import focused_query
from bot.slack.answering import Asked, alert_preface
from bot.slack.blockkit import clip, escape
from bot.slack.context import SlackContext
from bot.slack.messages import MAX_QUESTION_CHARS, message_text
from bot.slack.slash import failure
from core.redact import redact

log = logging.getLogger("runbook_bot.slack")
SURFACE = "slack_shortcut"
CALLBACK_ID = "find_runbook"
NO_TEXT = "This message has no text to find a runbook by."
_EXCERPT = 120
_MENTION = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")


class MessageShortcut:
    def __init__(self, ctx: SlackContext) -> None:
        self.ctx = ctx

    def register(self, app: App) -> None:
        app.shortcut(CALLBACK_ID)(self.on_shortcut)

    def on_shortcut(self, ack: Ack, body: dict[str, Any], respond: Respond) -> None:
        ack()
        ctx = self.ctx
        trigger = str(body.get("trigger_id") or "")
        if trigger and not ctx.dedup.first_time(f"shortcut:{trigger}"):
            ctx.metrics.request(SURFACE, "duplicate")
            return
        ctx.submit(self.answer, new_request_id(), body, respond)

    def answer(self, request_id: str, body: dict[str, Any], respond: Respond) -> None:
        ctx = self.ctx
        message = body.get("message") or {}
        user = body.get("user") or {}
        user_id = str(user.get("id") or "")
        channel = str((body.get("channel") or {}).get("id") or "") or None
        text = _MENTION.sub(" ", message_text(message))[:MAX_QUESTION_CHARS]
        with bind_request_id(request_id):
            if not text.strip():
                ctx.sender.tell(respond, NO_TEXT)
                ctx.metrics.request(SURFACE, "usage")
                return
            first = next((ln.strip(" `") for ln in text.splitlines() if re.search(r"\w", ln)), "")
            preface = f":mag: For the message “{escape(clip(redact(first), _EXCERPT))}”"
            alert = parse_alert_post(message)
            pinned = anchor = None
            query = focused_query(text, "")
            if alert is not None:
                query = alert.query()
                match = ctx.answering.matcher.find(alert.runbook_url, alert.alertname)
                pinned, anchor = match.source_id, match.anchor
                preface += " · " + alert_preface(alert.alertname or alert.title, match)
            team = str((body.get("team") or {}).get("id") or "")
            asked = Asked(
                text=first[:MAX_QUESTION_CHARS],
                user_id=user_id,
                channel_id=channel,
                thread_ts=str(message.get("thread_ts") or message.get("ts") or "") or None,
                incident=ctx.incident(channel, (body.get("channel") or {}).get("name")),
                query=query,
                alert=True,  # the message is right there: lead with what to do
                external_user=bool(team and user.get("team_id") and user["team_id"] != team),
            )
            try:
                reply = ctx.answering.for_asker(
                    request_id, asked, "shortcut", pinned=pinned, anchor=anchor, preface=preface
                )
                with ctx.metrics.time_stage("slack"):
                    ctx.sender.respond(respond, reply.message, minimal=reply.minimal)
                state = reply.stored.answer.state if reply.stored else "declined"
                ctx.metrics.request(SURFACE, state)
            except Exception as exc:
                ctx.failed(request_id, exc, SURFACE)
                error = failure(
                    ctx,
                    request_id,
                    exc,
                    asked.text,
                    channel,
                    thread_ts=asked.thread_ts,
                    query=query,
                    surface="shortcut",
                )
                try:
                    ctx.sender.respond(respond, error)
                except Exception:
                    log.exception("could not answer the shortcut through its response_url")
