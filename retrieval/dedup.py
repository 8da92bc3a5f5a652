"""Answer each Slack event once, across Slack's retries and across replicas.

Redis ``SET {ns}:seen:{key} 1 NX EX ttl`` decides which replica claims an event. This
process also remembers the keys it has seen (bounded, expiring), which answers
concurrent deliveries to one process without a round trip and carries on when Redis
is down; during an outage replicas can no longer see each other's claims.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import redis

from retrieval.cache import DEFAULT_NAMESPACE, REDIS_ERRORS, ServiceHealth, check_namespace

log = logging.getLogger("runbook_bot.dedup")

DEFAULT_MAX_LOCAL_ENTRIES = 100_000


class Deduplicator:
    def __init__(
        self,
        client: redis.Redis | None,
        ttl_seconds: int = 3600,
        namespace: str = DEFAULT_NAMESPACE,
        *,
        max_local_entries: int = DEFAULT_MAX_LOCAL_ENTRIES,
        retry_after_seconds: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        if max_local_entries <= 0:
            raise ValueError("max_local_entries must be positive")
        self._client = client
        self._ttl = ttl_seconds
        self._ns = check_namespace(namespace)
        self._max = max_local_entries
        self._clock = clock
        self._health = ServiceHealth(
            log, "dedup", "deduplicating within this process only", retry_after_seconds, clock
        )
        self._lock = threading.Lock()
        # key -> expiry; every entry has the same TTL, so insertion order is expiry order
        self._seen: OrderedDict[str, float] = OrderedDict()

    def first_time(self, key: str) -> bool:
        """True exactly once per ``key`` within the TTL; False for every repeat."""
        if not key:
            raise ValueError("dedup key must not be empty")
        if not self._claim_locally(key):
            return False
        if self._client is None or not self._health.usable():
            return True
        try:
            claimed = self._client.set(f"{self._ns}:seen:{key}", 1, nx=True, ex=self._ttl)
        except REDIS_ERRORS as exc:
            self._health.failed(exc)
            return True
        self._health.ok()
        return bool(claimed)

    def local_size(self) -> int:
        with self._lock:
            return len(self._seen)

    def _claim_locally(self, key: str) -> bool:
        now = self._clock()
        with self._lock:
            self._prune(now)
            expires = self._seen.get(key)
            if expires is not None and expires > now:
                return False
            self._seen.pop(key, None)
            while len(self._seen) >= self._max:
                self._seen.popitem(last=False)  # the oldest
            self._seen[key] = now + self._ttl
            return True

    def _prune(self, now: float) -> None:
        while self._seen:
            oldest, expires = next(iter(self._seen.items()))
            if expires > now:
                return
            del self._seen[oldest]
