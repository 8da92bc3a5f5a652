"""A bounded, expiring in-process copy of state, for while Redis is down.

Each entry carries its own expiry (:class:`cachetools.TLRUCache`); when the copy is full
the least recently used entries go first. Safe to share between threads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from cachetools import TLRUCache

V = TypeVar("V")


def _expiry(_key: str, entry: tuple[float, object], _now: float) -> float:
    return entry[0]


class LocalCopy(Generic[V]):
    def __init__(self, max_entries: int, clock: Callable[[], float] = time.monotonic) -> None:
        if max_entries <= 0:
            raise ValueError("max_entries must be positive")
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: TLRUCache[str, tuple[float, V]] = TLRUCache(
            maxsize=max_entries, ttu=_expiry, timer=clock
        )

    def get(self, key: str) -> V | None:
        with self._lock:
            entry = self._entries.get(key)
        return None if entry is None else entry[1]

    def held(self, key: str) -> tuple[V, float] | None:
        """``key``'s live value and the seconds it has left, or None."""
        with self._lock:
            entry = self._entries.get(key)
        if entry is None:
            return None
        left = entry[0] - self._clock()
        return (entry[1], left) if left > 0 else None

    def put(self, key: str, value: V, ttl: float) -> None:
        """Keep ``value`` for ``ttl`` seconds from now."""
        with self._lock:
            self._entries.pop(key, None)  # a new expiry, and the newest again
            self._entries[key] = (self._clock() + ttl, value)

    def claim(self, key: str, value: V, ttl: float) -> bool:
        """Keep ``value`` unless ``key`` holds a live value: True when it was kept."""
        with self._lock:
            if self._entries.get(key) is not None:
                return False
            self._entries[key] = (self._clock() + ttl, value)
            return True

    def pop(self, key: str) -> V | None:
        with self._lock:
            entry = self._entries.pop(key, None)
        if entry is None or entry[0] <= self._clock():
            return None
        return entry[1]

    def update(self, key: str, change: Callable[[V | None], V], ttl: float) -> V:
        """Replace ``key``'s value by ``change(old)``; a new key lives ``ttl`` seconds, an
        existing one keeps its expiry. The new value."""
        with self._lock:
            entry = self._entries.get(key)
            expires = entry[0] if entry is not None else self._clock() + ttl
            value = change(entry[1] if entry is not None else None)
            self._entries[key] = (expires, value)
            return value

    def __len__(self) -> int:
        with self._lock:
            self._entries.expire()
            return len(self._entries)
