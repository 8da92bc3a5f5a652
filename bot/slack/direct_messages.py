"""Direct messages to the bot: answered in the conversation, with the asker's own scope.

Only the asker reads a direct message, so the answer may cite whatever they may read
(not in a Slack Connect conversation with a member of another organization: then only
shareable runbooks). A reply in a thread stays in the thread. A follow-up ("and if that
doesn't work?") continues the runbook the bot last answered from in the conversation.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App, BoltContext

from bot.logs import bind_request_id
from bot.slack.answering import Asked, Reply
from bot.slack.context import SlackContext
from bot.slack.messages import asks_nothing, is_from_integration, is_help, question_of
from bot.slack.notices import render_usage
from bot.slack.slash import failure
from bot.slack.thread_memory import DM_CONVERSATION
from retrieval.reading import follow_up

log = logging.getLogger("runbook_bot.slack")
SURFACE = "slack_dm"


def is_direct_message_event(event: dict[str, Any]) -> bool:
    return event.get("channel_type") == "im"


class DirectMessages:
    def __init__(self, ctx: SlackContext) -> None:
        self.ctx = ctx

    def register(self, app: App) -> None:
        app.event("message", matchers=[is_direct_message_event])(self.on_message)

    def on_message(self, body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
        if event.get("subtype") is not None or is_from_integration(event):
            return  # edits, deletions, joins, and every bot's messages (its own too)
        if context.bot_user_id and event.get("user") == context.bot_user_id:
            return
        channel = str(event.get("channel") or "")
        ts = str(event.get("ts") or "")
        if not channel or not ts or not event.get("user"):
            return
        self.ctx.answer_message_once(SURFACE, self.answer, body, event, context.bot_user_id)

    def answer(
        self,
        request_id: str,
        event: dict[str, Any],
        bot_user_id: str | None,
        external_user: bool = False,
    ) -> None:
        ctx = self.ctx
        channel = str(event["channel"])
        thread_ts = str(event.get("thread_ts") or "") or None
        question = question_of(event, bot_user_id)
        conversation = thread_ts or DM_CONVERSATION
        with bind_request_id(request_id):
            try:
                if (
                    not question
                    or is_help(question)
                    or (thread_ts is None and asks_nothing(question))
                ):
                    ctx.sender.post(channel, render_usage(), thread_ts=thread_ts)
                    ctx.metrics.request(SURFACE, "usage")
                    return
                asked = Asked(
                    text=question,
                    user_id=str(event.get("user") or ""),
                    channel_id=channel,
                    thread_ts=thread_ts,
                    external_user=external_user,
                )
                reply, answer, state = self._reply(request_id, asked, conversation)
                with ctx.metrics.time_stage("slack"):
                    ctx.sender.post(
                        channel, reply.message, thread_ts=thread_ts, minimal=reply.minimal
                    )
                if answer is not None:
                    ctx.threads.remember(channel, conversation, answer, request_id)
                ctx.metrics.request(SURFACE, state)
            except Exception as exc:
                ctx.failed(request_id, exc, SURFACE)
                message = failure(
                    ctx, request_id, exc, question, channel, thread_ts=thread_ts, surface="dm"
                )
                try:
                    ctx.sender.post(channel, message, thread_ts=thread_ts)
                except Exception:
                    log.exception("could not answer the direct message in %s", channel)

    def _reply(self, request_id: str, asked: Asked, conversation: str) -> tuple[Reply, Any, str]:
        """(the reply, the answer it shows for follow-ups, its state)."""
        ctx = self.ctx
        wants = follow_up(asked.text)
        topic = ctx.threads.get(asked.channel_id or "", conversation) if wants else None
        if topic is not None and wants is not None:
            continued = ctx.answering.follow_up(request_id, asked, topic, wants)
            if continued is not None and continued.public is not None:
                return continued.public, continued.answer, continued.state
        reply = ctx.answering.for_asker(request_id, asked, "dm")
        answer = reply.stored.answer if reply.stored is not None else None
        return reply, answer, answer.state if answer is not None else "declined"
