"""The worker pools: requests are acknowledged on listener threads and answered on a
small pool of their own; both count the work in flight, so shutdown can wait for it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

from bot.slack.blockkit import Message

log = logging.getLogger("runbook_bot.slack")
P = ParamSpec("P")
T = TypeVar("T")


class InFlight:
    """Counts work accepted and not yet finished; :meth:`wait_idle` waits for none."""

    def __init__(self) -> None:
        self._count = 0
        self._changed = threading.Condition()

    @property
    def count(self) -> int:
        with self._changed:
            return self._count

    def enter(self) -> None:
        with self._changed:
            self._count += 1

    def exit(self) -> None:
        with self._changed:
            self._count -= 1
            self._changed.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self._count == 0, timeout)


class TrackedPool(ThreadPoolExecutor):
    """A thread pool whose queued and running tasks are counted in an :class:`InFlight`."""

    def __init__(self, max_workers: int, name: str, in_flight: InFlight) -> None:
        super().__init__(max_workers, thread_name_prefix=name)
        self._in_flight = in_flight

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        self._in_flight.enter()
        try:
            future = super().submit(fn, *args, **kwargs)
        except BaseException:
            self._in_flight.exit()
            raise
        future.add_done_callback(lambda _: self._in_flight.exit())
        return future


def backstop(fn: Callable[..., None], *args: Any) -> None:
    """Run ``fn``: the work functions handle their own errors, this logs anything left."""
    try:
        fn(*args)
    except Exception:
        log.exception("unhandled error in %s", getattr(fn, "__name__", fn))


class Handoff:
    """An answer handed from the worker to the acknowledgement, if it is ready in time.

    The listener waits up to its budget in :meth:`take`; the worker's :meth:`offer` is
    accepted only before that, so exactly one of them delivers the answer.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._message: Message | None = None
        self._closed = False

    def offer(self, message: Message) -> bool:
        """Hand ``message`` to the acknowledgement; False when it has already gone."""
        with self._lock:
            if self._closed:
                return False
            self._message = message
            self._ready.set()
            return True

    def take(self, timeout: float) -> Message | None:
        """The message offered within ``timeout`` seconds, or None (the worker sends it)."""
        self._ready.wait(timeout)
        with self._lock:
            self._closed = True
            return self._message
