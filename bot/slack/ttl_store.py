"""Short-lived state the replicas share: Redis ``{namespace}:{kind}:{key}`` with a TTL,
and an in-process copy that answers while Redis is down.

Redis decides while it answers (``SET NX`` is the one atomic claim across replicas);
every write is mirrored in a bounded, expiring in-process copy, which takes over during
an outage (replicas then no longer see each other's state) and is read when Redis has
no value for a key written while it was down.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import redis

from retrieval.cache import DEFAULT_NAMESPACE, REDIS_ERRORS, ServiceHealth, check_namespace

log = logging.getLogger("runbook_bot.slack")

MAX_LOCAL_ENTRIES = 20_000


def _text(raw: bytes | str | None) -> str | None:
    if raw is None:
        return None
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)


class TtlStore:
    def __init__(
        self,
        client: redis.Redis | None,
        kind: str,
        namespace: str = DEFAULT_NAMESPACE,
        *,
        max_local: int = MAX_LOCAL_ENTRIES,
        retry_after_seconds: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._prefix = f"{check_namespace(namespace)}:{kind}:"
        self._max = max_local
        self._clock = clock
        self._lock = threading.Lock()
        self._local: OrderedDict[str, tuple[float, str]] = OrderedDict()
        self._health = ServiceHealth(
            log, f"{kind} store", "keeping it in this process", retry_after_seconds, clock
        )

    def key(self, key: str) -> str:
        return self._prefix + key

    # -- the in-process copy -----------------------------------------------------------

    def _local_get(self, key: str) -> str | None:
        now = self._clock()
        with self._lock:
            entry = self._local.get(key)
            if entry is None:
                return None
            if entry[0] <= now:
                del self._local[key]
                return None
            return entry[1]

    def _local_put(self, key: str, value: str, ttl: float) -> None:
        with self._lock:
            self._local.pop(key, None)
            self._local[key] = (self._clock() + ttl, value)
            while len(self._local) > self._max:
                self._local.popitem(last=False)

    def _redis(self) -> redis.Redis | None:
        return self._client if self._client is not None and self._health.usable() else None

    # -- operations --------------------------------------------------------------------

    def claim(self, key: str, value: str, ttl: int) -> bool:
        """Set ``key`` unless it is set: True for exactly one caller within ``ttl``."""
        client = self._redis()
        if client is not None:
            try:
                claimed = bool(client.set(self.key(key), value, nx=True, ex=ttl))
            except REDIS_ERRORS as exc:
                self._health.failed(exc)
            else:
                self._health.ok()
                if claimed:
                    self._local_put(key, value, ttl)
                return claimed
        with self._lock:
            entry = self._local.get(key)
            if entry is not None and entry[0] > self._clock():
                return False
        self._local_put(key, value, ttl)
        return True

    def get(self, key: str) -> str | None:
        client = self._redis()
        if client is not None:
            try:
                raw = client.get(self.key(key))
            except REDIS_ERRORS as exc:
                self._health.failed(exc)
            else:
                self._health.ok()
                value = _text(raw)
                if value is not None:
                    return value
        return self._local_get(key)

    def put(self, key: str, value: str, ttl: int) -> None:
        self._local_put(key, value, ttl)
        client = self._redis()
        if client is None:
            return
        try:
            client.set(self.key(key), value, ex=ttl)
        except REDIS_ERRORS as exc:
            self._health.failed(exc)
            return
        self._health.ok()

    def delete(self, key: str) -> None:
        with self._lock:
            self._local.pop(key, None)
        client = self._redis()
        if client is None:
            return
        try:
            client.delete(self.key(key))
        except REDIS_ERRORS as exc:
            self._health.failed(exc)
            return
        self._health.ok()

    def count(self, key: str, ttl: int) -> int:
        """Add one to the counter ``key`` (which lives ``ttl`` seconds from its first
        count); its new value."""
        client = self._redis()
        if client is not None:
            try:
                with client.pipeline(transaction=True) as pipe:
                    pipe.incr(self.key(key))
                    pipe.expire(self.key(key), ttl, nx=True)
                    n, _ = pipe.execute()
            except REDIS_ERRORS as exc:
                self._health.failed(exc)
            else:
                self._health.ok()
                return int(n)
        with self._lock:
            entry = self._local.get(key)
            now = self._clock()
            if entry is None or entry[0] <= now:
                entry = (now + ttl, "0")
            n = int(entry[1]) + 1
            self._local[key] = (entry[0], str(n))
        return n
