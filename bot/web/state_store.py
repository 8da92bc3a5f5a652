"""One-time OAuth ``state`` values for Sign in with Slack, shared by every replica.

A slack_sdk :class:`~slack_sdk.oauth.state_store.OAuthStateStore`: :meth:`issue` keeps a
random state under ``{ns}:oauth-state:<state>`` in Redis for ``ttl_seconds``, and
:meth:`consume` deletes it (``GETDEL``), so each state is accepted once and only before it
expires. While Redis is down states are kept in this process instead (a sign-in that
started on another replica then has to start again).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import redis
from slack_sdk.oauth.state_store import OAuthStateStore

from retrieval.cache import DEFAULT_NAMESPACE, REDIS_ERRORS, ServiceHealth, check_namespace

log = logging.getLogger("runbook_bot.web.signin")

STATE_TTL_SECONDS = 600
MAX_LOCAL_STATES = 10_000


class RedisOAuthStateStore(OAuthStateStore):
    def __init__(
        self,
        client: redis.Redis | None,
        ttl_seconds: int = STATE_TTL_SECONDS,
        namespace: str = DEFAULT_NAMESPACE,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._ttl = ttl_seconds
        self._ns = check_namespace(namespace)
        self._clock = clock
        self._lock = threading.Lock()
        self._local: OrderedDict[str, float] = OrderedDict()  # state -> expiry
        self._health = ServiceHealth(log, "sign-in state store", "keeping states in this process")

    @property
    def logger(self) -> logging.Logger:
        return log

    def key(self, state: str) -> str:
        return f"{self._ns}:oauth-state:{state}"

    def issue(self, *args: object, **kwargs: object) -> str:
        state = secrets.token_urlsafe(24)
        if self._client is not None and self._health.usable():
            try:
                self._client.set(self.key(state), "1", ex=self._ttl)
            except REDIS_ERRORS as exc:
                self._health.failed(exc)
            else:
                self._health.ok()
                return state
        with self._lock:
            self._local[state] = self._clock() + self._ttl
            while len(self._local) > MAX_LOCAL_STATES:
                self._local.popitem(last=False)
        return state

    def consume(self, state: str) -> bool:
        if not state or len(state) > 200:
            return False
        with self._lock:
            expiry = self._local.pop(state, None)
        if expiry is not None:
            return expiry > self._clock()
        if self._client is None or not self._health.usable():
            return False
        try:
            found = self._client.getdel(self.key(state))
        except REDIS_ERRORS as exc:
            self._health.failed(exc)
            return False
        self._health.ok()
        return found is not None
