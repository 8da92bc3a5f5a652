"""What every surface's listeners share: the collaborators, built once by the app."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.logs import new_request_id
from bot.metrics import Metrics
from bot.service import AnswerService
from bot.settings import Settings
from bot.slack.alert_ledger import AlertLedger
from bot.slack.answering import Answering
from bot.slack.audiences import Audiences
from bot.slack.channels import Channels, is_direct_message, is_incident_channel
from bot.slack.requests import RequestStore
from bot.slack.sender import Sender, slack_error
from bot.slack.thread_memory import ThreadMemory
from core.redact import redact
from retrieval.answer import search_link
from retrieval.errors import EmbeddingError, IndexLockedError, IndexUnavailableError
from state.dedup import Deduplicator
from state.querylog import QueryLog

log = logging.getLogger("runbook_bot.slack")


@dataclass
class SlackContext:
    settings: Settings
    client: WebClient
    service: AnswerService
    answering: Answering
    requests: RequestStore
    channels: Channels
    sender: Sender
    metrics: Metrics
    dedup: Deduplicator
    feedback_log: Callable[[], QueryLog]
    user_salt: Callable[[], str]
    submit: Callable[..., None]  # run (fn, *args) on the answer pool
    today: Callable[[], date]
    ack_seconds: float  # how long a slash command waits to acknowledge with the answer
    audiences: Audiences
    threads: ThreadMemory  # the runbook each thread is about
    alerts: AlertLedger  # alert auto-replies: one per alert and channel, rate limit

    def incident(self, channel_id: str | None, name: str | None = None) -> bool:
        """Is this an incident channel (by its name and the configured patterns)?"""
        patterns = self.settings.incident_channel_patterns
        if not channel_id or is_direct_message(channel_id) or not patterns:
            return False
        if name:
            self.channels.remember(channel_id, name)
        return is_incident_channel(self.channels.name(channel_id), patterns)

    def external_user(self, body: dict[str, Any], event: dict[str, Any]) -> bool:
        """Was the event sent by a member of another organization (Slack Connect)?"""
        team = str(body.get("team_id") or "")
        user_team = str(event.get("user_team") or "")
        return bool(team and user_team and team != user_team)

    def answer_message_once(
        self,
        surface: str,
        answer: Callable[[str, dict[str, Any], str | None, bool], None],
        body: dict[str, Any],
        event: dict[str, Any],
        bot_user_id: str | None,
    ) -> None:
        """Submit ``answer(request_id, event, bot_user_id, external_user)`` for a message
        event, unless another delivery of it (a retry, another replica) claimed it first.

        Claims the event, then the message, in that order and only while winning: a
        concurrent retry loses the event claim and leaves the message claim alone (two
        independent claims could each be won by a different delivery, answering none)."""
        channel = str(event.get("channel") or "")
        ts = str(event.get("ts") or "")
        event_id = str(body.get("event_id") or f"{channel}:{ts}")
        dedup = self.dedup
        if not (dedup.first_time(f"event:{event_id}") and dedup.first_time(f"msg:{channel}:{ts}")):
            log.info("duplicate %s %s (%s:%s) ignored", surface, event_id, channel, ts)
            self.metrics.request(surface, "duplicate")
            return
        external = self.external_user(body, event)
        self.submit(answer, new_request_id(), dict(event), bot_user_id, external)

    def search_link(self, question: str) -> str | None:
        """The repository-scoped search for ``question`` (redacted first)."""
        return search_link(self.settings.search_link, redact(question))

    def failed(self, request_id: str, exc: BaseException, surface: str) -> None:
        self.metrics.error(failed_stage(exc))
        self.metrics.request(surface, "error")
        log.error(
            "request %s failed (%s): %s: %s",
            request_id,
            surface,
            type(exc).__name__,
            exc,
            exc_info=exc,
            extra={"request_id": request_id},
        )


def failed_stage(exc: BaseException) -> str:
    if isinstance(exc, EmbeddingError):
        return "embed"
    if isinstance(exc, IndexUnavailableError | TimeoutError):
        return "search"
    if isinstance(exc, SlackClientError):
        return "slack"
    return "answer"


def error_detail(exc: BaseException) -> tuple[str, str | None]:
    """(the next step, the cause in a few words) for a failure shown to the asker."""
    if isinstance(exc, IndexLockedError):
        return (
            "Try again in a minute: the index is being rebuilt.",
            "The runbook index is locked by another process.",
        )
    if isinstance(exc, IndexUnavailableError):
        return (
            "Try again in a minute, or search the runbooks repository meanwhile.",
            "The runbook index is unavailable right now.",
        )
    if isinstance(exc, EmbeddingError):
        return (
            "Try again; if it keeps failing, search the runbooks repository.",
            "The search model failed to run.",
        )
    if isinstance(exc, TimeoutError):
        return "Try again: the search timed out.", "The search timed out."
    error = slack_error(exc)
    if error:
        return (
            "Try again; if it keeps failing, tell the team that runs the bot.",
            f"Slack answered {error}.",
        )
    return "Try again; if it keeps failing, tell the team that runs the bot.", None


Listener = Callable[..., Any]
