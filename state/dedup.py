"""Answer each Slack event once, across Slack's retries and across replicas.

Redis ``SET {ns}:seen:{key} 1 NX EX ttl`` decides which replica claims an event. This
process also remembers the keys it has seen (bounded, expiring), which answers
concurrent deliveries to one process without a round trip and carries on when Redis
is down; during an outage replicas can no longer see each other's claims.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import redis

from core.health import DEFAULT_RETRY_AFTER_SECONDS
from state.fail_soft import FailSoftRedis
from state.keys import DEFAULT_NAMESPACE
from state.local_copy import LocalCopy

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
        retry_after_seconds: float = DEFAULT_RETRY_AFTER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        if max_local_entries <= 0:
            raise ValueError("max_local_entries must be positive")
        self._ttl = ttl_seconds
        self._redis = FailSoftRedis(
            client,
            logger=log,
            name="dedup",
            fallback="deduplicating within this process only",
            namespace=namespace,
            retry_after_seconds=retry_after_seconds,
            clock=clock,
        )
        self._seen: LocalCopy[bool] = LocalCopy(max_local_entries, clock)

    def first_time(self, key: str) -> bool:
        """True exactly once per ``key`` within the TTL; False for every repeat."""
        if not key:
            raise ValueError("dedup key must not be empty")
        if not self._seen.claim(key, True, self._ttl):
            return False
        rkey = self._redis.key("seen", key)
        return self._redis.run(lambda r: bool(r.set(rkey, 1, nx=True, ex=self._ttl)), True)

    def local_size(self) -> int:
        return len(self._seen)
