"""Web page sign-ins kept on the server, so signing out (or a change of access) ends them.

The signed session cookie only names a session; whether it is still open is asked here.
:meth:`WebSessionStore.start` keeps ``{ns}:web-session:<hash of the id>`` (the Slack user
and the scope they signed in with) for the session's length, and lists the id under
``{ns}:web-sessions:<user>`` so every session of a person can be ended at once.
:meth:`end` and :meth:`end_all` delete them.

Fail-closed: while Redis cannot be asked, :meth:`find` says ``"unknown"`` and the
pages show only what needs no sign-in check (the default group's runbooks). Ends that
could not reach Redis are kept in this process too, so this replica refuses the ended
session even after Redis is back.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import redis

from core.health import DEFAULT_RETRY_AFTER_SECONDS
from state.fail_soft import UNAVAILABLE, FailSoftRedis
from state.keys import DEFAULT_NAMESPACE

log = logging.getLogger("runbook_bot.web.sessions")

MAX_LOCAL_ENDS = 10_000
MAX_SESSION_ID_LENGTH = 200


@dataclass(frozen=True)
class WebSession:
    """An open session: who signed in, and the scope id of the groups they read then
    (empty: not known at sign-in)."""

    user_id: str
    scope_id: str


def _digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()[:32]


class WebSessionStore:
    def __init__(
        self,
        client: redis.Redis | None,
        ttl_seconds: int,
        namespace: str = DEFAULT_NAMESPACE,
        *,
        retry_after_seconds: float = DEFAULT_RETRY_AFTER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self._ttl = ttl_seconds
        self._clock = clock
        self._redis = FailSoftRedis(
            client,
            logger=log,
            name="web session store",
            fallback="the web pages show only runbooks everyone may read",
            namespace=namespace,
            retry_after_seconds=retry_after_seconds,
        )
        self._ended: dict[str, float] = {}  # digest -> until (ends Redis did not take)

    def _key(self, session_id: str) -> str:
        return self._redis.key("web-session", _digest(session_id))

    def _user_key(self, user_id: str) -> str:
        return self._redis.key("web-sessions", user_id)

    def start(self, user_id: str, scope_id: str = "") -> str:
        """A new session id for ``user_id``; kept in Redis when it can be (else the
        session reads only public runbooks until it is signed in again)."""
        session_id = secrets.token_urlsafe(24)
        record = json.dumps({"uid": user_id, "scope": scope_id}, separators=(",", ":"))
        key, user_key = self._key(session_id), self._user_key(user_id)

        def store(r: redis.Redis) -> None:
            pipe = r.pipeline()
            pipe.set(key, record, ex=self._ttl)
            pipe.sadd(user_key, _digest(session_id))
            pipe.expire(user_key, self._ttl)
            pipe.execute()

        self._redis.run(store, None)
        return session_id

    def find(self, session_id: str) -> WebSession | Literal["ended", "unknown"]:
        """The open session; ``"ended"`` when it has ended (or never was), ``"unknown"``
        when Redis cannot say."""
        if not session_id or len(session_id) > MAX_SESSION_ID_LENGTH:
            return "ended"
        if self._ended_here(_digest(session_id)):
            return "ended"
        key = self._key(session_id)
        raw = self._redis.run(lambda r: r.get(key), UNAVAILABLE)
        if raw is UNAVAILABLE:
            return "unknown"
        if raw is None:
            return "ended"
        try:
            data = json.loads(raw)
            return WebSession(str(data["uid"]), str(data.get("scope") or ""))
        except (ValueError, KeyError, TypeError):
            return "ended"

    def end(self, session_id: str) -> None:
        """End one session (sign-out), on every replica."""
        if not session_id or len(session_id) > MAX_SESSION_ID_LENGTH:
            return
        key = self._key(session_id)
        if self._redis.run(lambda r: r.delete(key), UNAVAILABLE, always=True) is UNAVAILABLE:
            self._end_here(_digest(session_id))

    def end_all(self, user_id: str) -> int:
        """End every session of ``user_id`` (their access changed); how many were open."""
        user_key = self._user_key(user_id)

        def drop(r: redis.Redis) -> int:
            digests = [d.decode() if isinstance(d, bytes) else str(d) for d in r.smembers(user_key)]
            keys = [self._redis.key("web-session", d) for d in digests]
            ended = int(r.delete(*keys)) if keys else 0
            r.delete(user_key)
            return ended

        ended = self._redis.run(drop, UNAVAILABLE, always=True)
        if ended is UNAVAILABLE:
            log.warning("could not end the web sessions of a user: Redis unavailable")
            return 0
        return int(ended)

    def _end_here(self, digest: str) -> None:
        now = self._clock()
        if len(self._ended) >= MAX_LOCAL_ENDS:
            self._ended = {d: t for d, t in self._ended.items() if t > now}
        self._ended[digest] = now + self._ttl

    def _ended_here(self, digest: str) -> bool:
        until = self._ended.get(digest)
        return until is not None and until > self._clock()
