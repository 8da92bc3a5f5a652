"""Sending messages, with a way out when Slack rejects one.

When Slack rejects a full answer (``msg_blocks_too_long``, ``invalid_blocks``, …), the
minimal version (the runbook link and its first command) is sent instead of nothing.
Replies through a ``response_url`` (ephemeral answers, in-place updates after a click)
get the same treatment; their failures come back as an HTTP status and body.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from slack_bolt import Respond
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.slack.blockkit import Message

log = logging.getLogger("runbook_bot.slack")

#: Slack's answers for a message it will not show as sent
REJECTED = frozenset(
    {
        "msg_blocks_too_long",
        "msg_too_long",
        "invalid_blocks",
        "invalid_blocks_format",
        "invalid_attachments",
        "too_many_attachments",
        "block_mismatch",
        "markdown_text_conflict",
    }
)


class ResponseError(SlackClientError):
    """A response_url post Slack did not accept (``error`` is Slack's answer)."""

    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


def slack_error(exc: BaseException) -> str | None:
    if isinstance(exc, SlackApiError) and exc.response is not None:
        return str(exc.response.get("error") or "") or None
    if isinstance(exc, ResponseError):
        return exc.error
    return None


class Sender:
    def __init__(self, client: WebClient) -> None:
        self._client = client

    def post(
        self,
        channel: str,
        message: Message,
        *,
        thread_ts: str | None = None,
        minimal: Message | None = None,
    ) -> str | None:
        """``chat.postMessage``; the message's ts."""
        kwargs: dict[str, Any] = {"channel": channel, "unfurl_links": False, "unfurl_media": False}
        if thread_ts:
            kwargs["thread_ts"] = thread_ts

        def send(m: Message) -> str | None:
            resp = self._client.chat_postMessage(**kwargs, **m.kwargs())
            return str(resp.get("ts") or "") or None

        return self._with_fallback(send, message, minimal, f"chat.postMessage {channel}")

    def ephemeral(
        self,
        channel: str,
        user: str,
        message: Message,
        *,
        thread_ts: str | None = None,
        minimal: Message | None = None,
    ) -> None:
        kwargs: dict[str, Any] = {"channel": channel, "user": user}
        if thread_ts:
            kwargs["thread_ts"] = thread_ts

        def send(m: Message) -> None:
            self._client.chat_postEphemeral(**kwargs, **m.kwargs())

        self._with_fallback(send, message, minimal, f"chat.postEphemeral {channel}")

    def respond(
        self,
        respond: Respond,
        message: Message,
        *,
        replace: bool = False,
        minimal: Message | None = None,
    ) -> None:
        """An ephemeral reply through the request's ``response_url``; ``replace`` replaces
        the message whose button was clicked."""

        def send(m: Message) -> None:
            resp = respond(
                text=m.text,
                blocks=m.blocks,
                response_type="ephemeral",
                replace_original=replace,
            )
            status = int(getattr(resp, "status_code", 200) or 200)
            body = str(getattr(resp, "body", "") or "")
            error = _response_error(status, body)
            if error is not None:
                raise ResponseError(error)

        self._with_fallback(send, message, minimal, "response_url")

    def update(
        self, channel: str, ts: str, message: Message, *, minimal: Message | None = None
    ) -> None:
        """``chat.update``: the message at ``ts`` shows ``message`` from now on."""

        def send(m: Message) -> None:
            self._client.chat_update(channel=channel, ts=ts, **m.kwargs())

        self._with_fallback(send, message, minimal, f"chat.update {channel}")

    def replace(
        self,
        body: dict[str, Any],
        respond: Respond,
        message: Message,
        *,
        public: bool,
        minimal: Message | None = None,
    ) -> None:
        """Show ``message`` in place of the message whose button was clicked: a public
        message is updated (``chat.update``), an ephemeral one replaced through the
        click's ``response_url``."""
        container = body.get("container") or {}
        channel = str((body.get("channel") or {}).get("id") or container.get("channel_id") or "")
        ts = str(container.get("message_ts") or "")
        if public and channel and ts and not container.get("is_ephemeral"):
            self.update(channel, ts, message, minimal=minimal)
        else:
            self.respond(respond, message, replace=True, minimal=minimal)

    def tell(self, respond: Respond, text: str) -> None:
        """A short ephemeral note to the person who clicked."""
        try:
            respond(text=text, response_type="ephemeral", replace_original=False)
        except Exception:
            log.exception("could not answer through the response_url")

    def _with_fallback(
        self, send: Any, message: Message, minimal: Message | None, where: str
    ) -> Any:
        try:
            return send(message)
        except (SlackApiError, ResponseError) as exc:
            error = slack_error(exc)
            if minimal is None or error not in REJECTED:
                raise
            log.warning("%s rejected the full message (%s): sending the minimal one", where, error)
            return send(minimal)


def _response_error(status: int, body: str) -> str | None:
    """The error of a response_url reply: an HTTP error, or ``{"ok": false}``."""
    try:
        data = json.loads(body) if body.strip().startswith("{") else None
    except ValueError:
        data = None
    if isinstance(data, dict) and data.get("ok") is False:
        return str(data.get("error") or "error")
    if status >= 300:
        return body.strip()[:100] or f"http_{status}"
    return None
