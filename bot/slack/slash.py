"""``/runbook <question>``: an answer only the asker sees.

Slack waits 3 seconds for the acknowledgement, and a slash command's acknowledgement
message cannot be replaced later. So the answer is worked out on the answer pool while
the listener waits up to :attr:`SlackContext.ack_seconds`: when it is ready in time (the
usual case) the acknowledgement *is* the answer; otherwise the acknowledgement says the
search is running and the answer follows through the ``response_url``. A replayed
request (the same signed body twice) is answered once.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

from slack_bolt import Ack, App, BoltRequest, Respond

from bot.logs import bind_request_id, new_request_id
from bot.slack.answering import Asked
from bot.slack.blockkit import Message
from bot.slack.context import SlackContext, error_detail
from bot.slack.messages import MAX_QUESTION_CHARS, asks_nothing, plain_question
from bot.slack.notices import render_error, render_searching, render_usage
from bot.slack.presentation import View
from bot.slack.requests import StoredRequest, Surface
from bot.slack.workers import Handoff
from core.models import Answer

log = logging.getLogger("runbook_bot.slack")
SURFACE = "slash_command"
COMMAND = "/runbook"


class SlashCommand:
    def __init__(self, ctx: SlackContext) -> None:
        self.ctx = ctx

    def register(self, app: App) -> None:
        app.command(COMMAND)(self.on_command)

    def on_command(
        self, ack: Ack, body: dict[str, Any], respond: Respond, request: BoltRequest
    ) -> None:
        ctx = self.ctx
        # Slack never retries a slash command, so the same signed body twice is a replay
        # (valid for the 5-minute signature window): answer it once. Socket Mode has no
        # raw body; its payload (with the per-invocation trigger_id) stands in.
        raw = request.raw_body or json.dumps(body, sort_keys=True)
        digest = hashlib.sha256(raw.encode("utf-8")).hexdigest()
        if not ctx.dedup.first_time(f"command:{digest}"):
            ack()
            log.info("duplicate slash command ignored")
            ctx.metrics.request(SURFACE, "duplicate")
            return
        text = plain_question(str(body.get("text") or ""))
        if asks_nothing(text):
            usage = render_usage()
            ack(text=usage.text, blocks=usage.blocks, response_type="ephemeral")
            ctx.metrics.request(SURFACE, "usage")
            return
        handoff = Handoff()
        request_id = new_request_id()
        ctx.submit(self.answer, request_id, text[:MAX_QUESTION_CHARS], body, respond, handoff)
        message = handoff.take(ctx.ack_seconds) or render_searching(text)
        ack(text=message.text, blocks=message.blocks, response_type="ephemeral")

    def answer(
        self,
        request_id: str,
        question: str,
        body: dict[str, Any],
        respond: Respond,
        handoff: Handoff,
    ) -> None:
        ctx = self.ctx
        with bind_request_id(request_id):
            user_id = str(body.get("user_id") or "")
            channel_id = str(body.get("channel_id") or "") or None
            minimal: Message | None = None
            state: str
            try:
                asked = Asked(
                    text=question,
                    user_id=user_id,
                    channel_id=channel_id,
                    incident=ctx.incident(channel_id, body.get("channel_name")),
                )
                reply = ctx.answering.for_asker(request_id, asked)
                message, minimal = reply.message, reply.minimal
                state = reply.stored.answer.state if reply.stored else "answer"
            except Exception as exc:
                ctx.failed(request_id, exc, SURFACE)
                message = failure(ctx, request_id, exc, question, channel_id)
                state = "error"
            else:
                ctx.metrics.request(SURFACE, state)
            if handoff.offer(message):
                return
            try:
                with ctx.metrics.time_stage("slack"):
                    ctx.sender.respond(respond, message, minimal=minimal)
            except Exception:
                log.exception("could not answer through the response_url")


def failure(
    ctx: SlackContext,
    request_id: str,
    exc: BaseException,
    question: str,
    channel_id: str | None,
    *,
    thread_ts: str | None = None,
    query: str | None = None,
    surface: Surface = "slash",
    alert: bool = False,
) -> Message:
    """The error message (next step first, a Retry button), with the request stored so
    that Retry can ask again."""
    step, detail = error_detail(exc)
    try:
        ctx.requests.put(
            StoredRequest(
                request_id=request_id,
                question=query or question,
                asked=question,
                surface=surface,
                channel_id=channel_id,
                thread_ts=thread_ts,
                alert=alert,
                answer=Answer(state="abstain", text="The search failed."),
                view=View(audience="public" if surface in ("mention", "alert") else "private"),
            )
        )
    except Exception:
        log.exception("could not keep the failed request for a retry")
    return render_error(request_id, detail, next_step=step, search_link=ctx.search_link(question))
