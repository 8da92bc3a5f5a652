"""One-time OAuth ``state`` values for Sign in with Slack, shared by every replica.

A slack_sdk :class:`~slack_sdk.oauth.state_store.OAuthStateStore`: :meth:`issue` keeps a
random state under ``{ns}:oauth-state:<state>`` for ``ttl_seconds``, and :meth:`consume`
takes it (``GETDEL``), so each state is accepted once and only before it expires. While
Redis is down states are kept in this process instead (a sign-in that started on another
replica then has to start again).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable

import redis
from slack_sdk.oauth.state_store import OAuthStateStore

from state.keys import DEFAULT_NAMESPACE
from state.ttl_store import TtlStore

log = logging.getLogger("runbook_bot.web.signin")

STATE_TTL_SECONDS = 600
MAX_LOCAL_STATES = 10_000
MAX_STATE_LENGTH = 200


class RedisOAuthStateStore(OAuthStateStore):
    def __init__(
        self,
        client: redis.Redis | None,
        ttl_seconds: int = STATE_TTL_SECONDS,
        namespace: str = DEFAULT_NAMESPACE,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl = ttl_seconds
        self._store = TtlStore(
            client,
            "oauth-state",
            namespace,
            max_local=MAX_LOCAL_STATES,
            clock=clock,
            name="sign-in state store",
            logger=log,
        )

    @property
    def logger(self) -> logging.Logger:
        return log

    def key(self, state: str) -> str:
        return self._store.key(state)

    def issue(self, *args: object, **kwargs: object) -> str:
        state = secrets.token_urlsafe(24)
        self._store.put(state, "1", self._ttl, mirror=False)
        return state

    def consume(self, state: str) -> bool:
        if not state or len(state) > MAX_STATE_LENGTH:
            return False
        return self._store.take(state) is not None
