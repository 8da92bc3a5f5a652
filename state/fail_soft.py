"""The one way state talks to Redis: try the call, and on trouble fall back.

Every Redis-backed store runs its calls through :meth:`FailSoftRedis.run`. A Redis error
marks Redis unhealthy (warned once per outage), the call returns the caller's fallback,
and Redis is not asked again until the retry interval has passed; the first call that
succeeds again logs the recovery. Without a client (none configured) every call takes
its fallback quietly.
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Callable
from typing import Final, TypeVar

import redis

from core.health import DEFAULT_RETRY_AFTER_SECONDS, ServiceHealth
from state.client import REDIS_ERRORS
from state.keys import DEFAULT_NAMESPACE, Keys

T = TypeVar("T")
F = TypeVar("F")


class _Unavailable(enum.Enum):
    UNAVAILABLE = "unavailable"


#: A fallback that tells "Redis could not be asked" apart from any answer Redis gives.
UNAVAILABLE: Final = _Unavailable.UNAVAILABLE


class FailSoftRedis:
    """A Redis client (or none), the namespace's key builder, and the health of both."""

    def __init__(
        self,
        client: redis.Redis | None,
        *,
        logger: logging.Logger,
        name: str,
        fallback: str,
        namespace: str = DEFAULT_NAMESPACE,
        retry_after_seconds: float = DEFAULT_RETRY_AFTER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``name`` and ``fallback`` word the outage warning: "{name} unavailable (...);
        {fallback}"."""
        self.client = client
        self.keys = Keys(namespace)
        self.health = ServiceHealth(logger, name, fallback, retry_after_seconds, clock)

    def key(self, *parts: str | int) -> str:
        return self.keys.key(*parts)

    def usable(self) -> bool:
        """A client is configured and Redis is not known to be down."""
        return self.client is not None and self.health.usable()

    def run(self, op: Callable[[redis.Redis], T], fallback: F, *, always: bool = False) -> T | F:
        """``op(client)``, or ``fallback`` when there is no client, Redis is known to be
        down, or the call fails. ``always``: ask even while Redis is known to be down (an
        invalidation that must not be skipped)."""
        client = self.client
        if client is None or not (always or self.health.usable()):
            return fallback
        try:
            result = op(client)
        except REDIS_ERRORS as exc:
            self.health.failed(exc)
            return fallback
        self.health.ok()
        return result
