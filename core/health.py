"""Whether an optional backend answers: warn once per outage, retry later, note the recovery."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

DEFAULT_RETRY_AFTER_SECONDS = 1.0


class ServiceHealth:
    """After a failure the backend is not asked again for ``retry_after_seconds`` (callers
    check :meth:`usable` and take their fallback), so an unreachable host costs one
    timeout per interval instead of one per request.
    """

    def __init__(
        self,
        logger: logging.Logger,
        name: str,
        fallback: str,
        retry_after_seconds: float = DEFAULT_RETRY_AFTER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._log = logger
        self._name = name
        self._fallback = fallback
        self._retry_after = retry_after_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._down = False
        self._next_try = 0.0

    @property
    def down(self) -> bool:
        return self._down

    def usable(self) -> bool:
        """False while the backend is down and the retry interval has not passed."""
        return not self._down or self._clock() >= self._next_try

    def failed(self, exc: BaseException) -> None:
        with self._lock:
            self._next_try = self._clock() + self._retry_after
            if self._down:
                return
            self._down = True
        self._log.warning(
            "%s unavailable (%s: %s); %s", self._name, type(exc).__name__, exc, self._fallback
        )

    def ok(self) -> None:
        if not self._down:  # the common case, without the lock
            return
        with self._lock:
            if not self._down:
                return
            self._down = False
        self._log.info("%s resumed", self._name)
