"""Delivered answers by request id, for the buttons on them.

A click (feedback, Post to channel, Escalate, Retry) names its message's request id; the
stored request has what the message was rendered from (the answer, its view and facts),
so the message can be rendered again in place. Kept in a :class:`state.ttl_store.TtlStore`
(Redis ``{ns}:req:{rid}``, shared by replicas, 30 minutes: as long as a response_url
lives, with a bounded in-process copy that answers while Redis is down). No secret of
the question is kept.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Literal

import redis
from pydantic import ValidationError

from bot.slack.presentation import DocFacts, View
from core.models import Answer, Frozen
from core.redact import redact
from core.storable import storable_answer
from state.keys import DEFAULT_NAMESPACE
from state.ttl_store import TtlStore

log = logging.getLogger("runbook_bot.slack")

REQUEST_TTL_SECONDS = 30 * 60  # as long as a response_url lives
MAX_LOCAL_REQUESTS = 2_000
PRIVATE_SUFFIX = ".private"  # the asker's private copy of a thread answer
SHARED_SUFFIX = ".shared"  # the copy posted with "Post to channel"

#: where the answer went: a slash command's or shortcut's ephemeral reply, a thread
#: (a mention), an alert's thread (an auto-reply), a direct message
Surface = Literal["slash", "mention", "alert", "dm", "shortcut"]


def base_request_id(key: str) -> str:
    """The request id of a stored message key (``r-1.private`` -> ``r-1``)."""
    return key.split(".", 1)[0]


class StoredRequest(Frozen):
    """A delivered message: what it was rendered from and where it went."""

    request_id: str  # the key: the request id, with a suffix for a second copy
    question: str  # what was searched (redacted); an alert's thread adds the alert
    asked: str | None = None  # what the asker typed (redacted)
    surface: Surface = "slash"
    channel_id: str | None = None
    thread_ts: str | None = None
    service: str | None = None
    cited: tuple[str, ...] = ()
    incident: bool = False
    alert: bool = False
    answer: Answer
    view: View = View()
    facts: tuple[DocFacts, ...] = ()
    post_failures: int = 0  # failed "Post to channel" attempts (each may be retried)
    page_failures: int = 0  # failed "Page on-call" attempts (each may be retried)
    keep_seconds: int | None = None  # kept longer than a response_url lives (an alert's reply)

    def facts_by_source(self) -> dict[str, DocFacts]:
        return {f.source_id: f for f in self.facts}


class RequestStore:
    def __init__(
        self,
        client: redis.Redis | None,
        ttl_seconds: int = REQUEST_TTL_SECONDS,
        namespace: str = DEFAULT_NAMESPACE,
        *,
        max_local: int = MAX_LOCAL_REQUESTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl = ttl_seconds
        self._store = TtlStore(
            client,
            "req",
            namespace,
            max_local=max_local,
            clock=clock,
            name="request store",
            logger=log,
        )

    def key(self, request_id: str) -> str:
        return self._store.key(request_id)

    def put(self, stored: StoredRequest) -> None:
        """Keep ``stored`` (as long as a response_url lives, or its ``keep_seconds``):
        its questions redacted, none of their secrets in the answer."""
        ttl = stored.keep_seconds or self._ttl
        asked = redact(stored.asked) if stored.asked else stored.asked
        view = stored.view
        if view.asked:
            view = view.model_copy(update={"asked": redact(view.asked)})
        stored = stored.model_copy(
            update={
                "question": redact(stored.question),
                "asked": asked,
                "view": view,
                "answer": storable_answer(
                    storable_answer(stored.answer, stored.question), stored.asked or ""
                ),
            }
        )
        self._store.put(stored.request_id, stored.model_dump_json(), ttl)

    def get(self, request_id: str) -> StoredRequest | None:
        raw = self._store.get(request_id)
        if raw is None:
            return None
        try:
            return StoredRequest.model_validate_json(raw)
        except ValidationError:
            log.info("dropping an unreadable stored request %s", request_id)
            return None
