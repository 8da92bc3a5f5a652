"""``@runbook <question>``: an answer in the thread of the mention.

The reply is for the channel's whole audience (it cites only what everyone there may
read); runbooks only the asker may read go to them as an ephemeral message, and the
thread says so without naming them. In an alert's thread the alert (the thread's
parent) focuses the search, and the answer opens with what to do; a bare mention there
answers from the alert's own runbook (its ``runbook_url``, else its name). In a thread
the bot has already answered, a follow-up ("and if that doesn't work?") continues the
same runbook. In a channel shared outside the company only shareable runbooks are
answered from; otherwise the asker is told so privately. Each event is answered once,
across Slack's retries and across replicas.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any

from slack_bolt import App, BoltContext
from slack_sdk.errors import SlackApiError, SlackRequestError

from bot.logs import bind_request_id
from bot.slack.alerts import ThreadParent, read_parent
from bot.slack.answering import Asked, ThreadReply, alert_preface
from bot.slack.context import SlackContext
from bot.slack.messages import asks_nothing, is_help, question_of
from bot.slack.notices import render_usage
from bot.slack.slash import failure
from retrieval.reading import follow_up

log = logging.getLogger("runbook_bot.slack")
SURFACE = "slack_mention"
IGNORED_SUBTYPES = frozenset({"message_changed", "message_deleted", "bot_message"})


class Mentions:
    def __init__(self, ctx: SlackContext) -> None:
        self.ctx = ctx

    def register(self, app: App) -> None:
        app.event("app_mention")(self.on_mention)

    def on_mention(self, body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
        channel = str(event.get("channel") or "")
        ts = str(event.get("ts") or "")
        if not channel or not ts:
            return
        if event.get("bot_id") or (
            context.bot_user_id and event.get("user") == context.bot_user_id
        ):
            return
        if event.get("subtype") in IGNORED_SUBTYPES:
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
        thread_ts = str(event.get("thread_ts") or event["ts"])
        question = question_of(event, bot_user_id)
        parent: ThreadParent | None = None
        threaded = bool(event.get("thread_ts")) and event.get("thread_ts") != event.get("ts")
        with bind_request_id(request_id):
            try:
                if threaded:
                    parent = self._thread_parent(channel, thread_ts, bot_user_id)
                if is_help(question) or (parent is None and asks_nothing(question)):
                    question = ""
                if not question and parent is None:
                    ctx.sender.post(channel, render_usage(), thread_ts=thread_ts)
                    ctx.metrics.request(SURFACE, "usage")
                    return
                asked = Asked(
                    text=question,
                    user_id=str(event.get("user") or ""),
                    channel_id=channel,
                    thread_ts=thread_ts,
                    incident=ctx.incident(channel),
                    parent=parent,
                    external_user=external_user,
                )
                reply = self._reply(request_id, asked, in_thread=threaded)
                with ctx.metrics.time_stage("slack"):
                    if reply.public is not None:
                        ctx.sender.post(
                            channel,
                            reply.public.message,
                            thread_ts=thread_ts,
                            minimal=reply.public.minimal,
                        )
                    if reply.private is not None and asked.user_id:
                        # ephemeral: only the asker sees it, never a reply in the thread
                        ctx.sender.ephemeral(
                            channel,
                            asked.user_id,
                            reply.private.message,
                            thread_ts=thread_ts,
                            minimal=reply.private.minimal,
                        )
                if reply.public is not None and reply.answer is not None:
                    ctx.threads.remember(channel, thread_ts, reply.answer, request_id)
                ctx.metrics.request(SURFACE, reply.state)
            except Exception as exc:
                ctx.failed(request_id, exc, SURFACE)
                query = Asked(question, "", parent=parent).search if parent else None
                message = failure(
                    ctx,
                    request_id,
                    exc,
                    question,
                    channel,
                    thread_ts=thread_ts,
                    query=query,
                    surface="mention",
                    alert=parent is not None and parent.is_alert,
                )
                try:
                    ctx.sender.post(channel, message, thread_ts=thread_ts)
                except Exception:
                    log.exception("could not post to %s (thread %s)", channel, thread_ts)

    def _reply(self, request_id: str, asked: Asked, *, in_thread: bool) -> ThreadReply:
        """A follow-up on the thread's runbook, the alert's own runbook for a bare
        mention under an alert, or an answer to the question."""
        ctx = self.ctx
        channel, thread_ts = asked.channel_id or "", asked.thread_ts or ""
        wants = follow_up(asked.text) if in_thread else None
        topic = ctx.threads.get(channel, thread_ts) if wants else None
        if topic is not None and wants is not None:
            continued = ctx.answering.follow_up(request_id, asked, topic, wants)
            if continued is not None:
                return continued
        post = asked.parent.post if asked.parent is not None else None
        if post is not None and not asked.text:
            match = ctx.answering.matcher.find(post.runbook_url, post.alertname)
            if match.source_id is not None:
                preface = alert_preface(post.alertname or post.title, match)
                return ctx.answering.in_thread(
                    request_id,
                    dataclasses.replace(asked, query=post.query()),
                    pinned=match.source_id,
                    anchor=match.anchor,
                    preface=preface,
                )
        return ctx.answering.in_thread(request_id, asked)

    def _thread_parent(
        self, channel: str, thread_ts: str, bot_user_id: str | None
    ) -> ThreadParent | None:
        """The thread's parent message (an alert, usually), or None when unreadable."""
        try:
            resp = self.ctx.client.conversations_replies(channel=channel, ts=thread_ts, limit=1)
        except (SlackApiError, SlackRequestError, OSError) as exc:
            log.warning("conversations.replies %s/%s failed: %s", channel, thread_ts, exc)
            return None
        messages = resp.get("messages") or []
        if not messages or not isinstance(messages[0], Mapping):
            return None
        return read_parent(messages[0], bot_user_id)
