"""Short-lived values the replicas share: Redis ``{namespace}:{kind}:{key}`` with a TTL,
and an in-process copy that answers while Redis is down.

Redis decides while it answers (``SET NX`` is the one atomic claim across replicas);
every write is mirrored in a bounded, expiring in-process copy, which takes over during
an outage (replicas then no longer see each other's state) and is read when Redis has
no value for a key written while it was down. A claim made while Redis was down still
holds when it is back (restarted empty, or never told): the store's next call that
reaches Redis puts each such claim back, with the rest of its TTL, before it claims,
reads or writes anything, so neither this process nor another replica claims it again.
A release made while Redis was down (an alert resolved) reaches it the same way: the key
is deleted there if it still holds the value released, so a claim made since stays.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable

import redis

from core.health import DEFAULT_RETRY_AFTER_SECONDS
from state.fail_soft import UNAVAILABLE, FailSoftRedis
from state.keys import DEFAULT_NAMESPACE
from state.local_copy import LocalCopy

log = logging.getLogger("runbook_bot.state")

MAX_LOCAL_ENTRIES = 20_000


# delete the key only while it still holds the value released (another claim made since
# then is not undone)
_RELEASE_IF_SAME = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
)


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
        retry_after_seconds: float = DEFAULT_RETRY_AFTER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        name: str | None = None,
        logger: logging.Logger = log,
    ) -> None:
        """``name`` (default "{kind} store") words the outage warning."""
        self._kind = kind
        self._log = logger
        self._redis = FailSoftRedis(
            client,
            logger=logger,
            name=name or f"{kind} store",
            fallback="keeping it in this process",
            namespace=namespace,
            retry_after_seconds=retry_after_seconds,
            clock=clock,
        )
        self._local: LocalCopy[str] = LocalCopy(max_local, clock)
        self._max_local = max_local
        self._lock = threading.Lock()
        self._unsynced: dict[str, None] = {}  # keys claimed here while Redis was down
        # keys released here while Redis was down, with the value they were released from
        self._unreleased: dict[str, str] = {}

    def key(self, key: str) -> str:
        return self._redis.key(self._kind, key)

    def claim(self, key: str, value: str, ttl: int) -> bool:
        """Set ``key`` unless it is set: True for exactly one caller within ``ttl``, also
        across an outage of Redis (see the module's notes)."""
        self._restore_claims()
        claimed = self._redis.run(
            lambda r: bool(r.set(self.key(key), value, nx=True, ex=ttl)), UNAVAILABLE
        )
        if claimed is UNAVAILABLE:
            if not self._local.claim(key, value, ttl):
                return False
            with self._lock:
                if len(self._unsynced) < self._max_local:
                    self._unsynced[key] = None
            return True
        if claimed:
            self._local.put(key, value, ttl)
        return claimed

    def _restore_claims(self) -> None:
        """Put the claims made while Redis was down, and still live here, back into Redis
        (unless it has a value for the key by now), once it answers again; and release in
        Redis what was released here meanwhile."""
        self._apply_releases()
        with self._lock:
            if not self._unsynced:
                return
            keys = list(self._unsynced)
        live = [(key, held) for key in keys if (held := self._local.held(key)) is not None]

        def restore(r: redis.Redis) -> bool:
            with r.pipeline(transaction=False) as pipe:
                for key, (value, left) in live:
                    pipe.set(self.key(key), value, nx=True, ex=max(1, math.ceil(left)))
                pipe.execute()
            return True

        if live and not self._redis.run(restore, False):
            return  # still down: kept for the next call
        with self._lock:
            for key in keys:
                self._unsynced.pop(key, None)
        if live:
            self._log.info(
                "%s: %d claim(s) made while Redis was down put back", self._kind, len(live)
            )

    def get(self, key: str) -> str | None:
        self._restore_claims()
        value = self._redis.run(lambda r: _text(r.get(self.key(key))), None)
        return value if value is not None else self._local.get(key)

    def take(self, key: str) -> str | None:
        """The value of ``key``, deleted (``GETDEL``): only one caller gets it, when it was
        put with ``mirror=False``."""
        local = self._local.pop(key)
        value = self._redis.run(lambda r: _text(r.getdel(self.key(key))), None)
        return value if value is not None else local

    def put(self, key: str, value: str, ttl: int, *, mirror: bool = True) -> None:
        """Keep ``value`` for ``ttl`` seconds. ``mirror=False``: keep it in this process
        only when Redis cannot take it, for a value that must be taken once (another
        replica's :meth:`take` cannot delete this process's copy)."""
        self._restore_claims()
        if mirror:
            self._local.put(key, value, ttl)
        stored = self._redis.run(lambda r: r.set(self.key(key), value, ex=ttl), UNAVAILABLE)
        if stored is UNAVAILABLE and not mirror:
            self._local.put(key, value, ttl)

    def delete(self, key: str) -> None:
        """Release ``key``. While Redis is down the release is remembered and applied when
        it answers again, unless another claim has set the key to a new value by then."""
        with self._lock:
            self._unsynced.pop(key, None)
        released = self._local.pop(key)
        done = self._redis.run(lambda r: r.delete(self.key(key)), UNAVAILABLE)
        if done is UNAVAILABLE and released is not None:
            with self._lock:
                if len(self._unreleased) < self._max_local:
                    self._unreleased[key] = released

    def _apply_releases(self) -> None:
        with self._lock:
            if not self._unreleased:
                return
            pending = dict(self._unreleased)

        def release(r: redis.Redis) -> bool:
            for key, value in pending.items():
                r.eval(_RELEASE_IF_SAME, 1, self.key(key), value)
            return True

        if not self._redis.run(release, False):
            return  # still down: kept for the next call
        with self._lock:
            for key in pending:
                self._unreleased.pop(key, None)

    def count(self, key: str, ttl: int) -> int:
        """Add one to the counter ``key`` (which lives ``ttl`` seconds from its first
        count); its new value."""

        def incr(r: redis.Redis) -> int:
            with r.pipeline(transaction=True) as pipe:
                pipe.incr(self.key(key))
                pipe.expire(self.key(key), ttl, nx=True)
                n, _ = pipe.execute()
            return int(n)

        self._restore_claims()
        n = self._redis.run(incr, UNAVAILABLE)
        if n is not UNAVAILABLE:
            return n
        return int(self._local.update(key, lambda old: str(int(old or 0) + 1), ttl))
