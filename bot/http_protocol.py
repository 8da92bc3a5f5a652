"""uvicorn's h11 protocol with a deadline for request headers and a bound on connections.

uvicorn times out idle keep-alive connections, but not a client that opens a connection
and then sends its headers slowly or never finishes them. :func:`guarded_h11_protocol`
returns an ``H11Protocol`` subclass that:

- closes (after a ``408``) a connection whose request line and headers are not complete
  within ``read_timeout`` seconds of connecting, or of the first byte of a new request
  on a kept-alive connection; trickling bytes does not extend the deadline;
- closes new connections at once while ``max_connections`` are already open.

Either way a JSON log line says so. A stalled connection costs a socket and a timer on
the event loop, never a thread.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("runbook_bot.server")

_TIMEOUT_BODY = b"request headers not received in time\n"
REQUEST_TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: " + str(len(_TIMEOUT_BODY)).encode() + b"\r\n"
    b"connection: close\r\n\r\n" + _TIMEOUT_BODY
)


class GuardedH11Protocol(H11Protocol):
    """Set :attr:`read_timeout` and :attr:`max_connections` on a subclass."""

    read_timeout: float = 10.0
    max_connections: int = 200

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_deadline: asyncio.TimerHandle | None = None

    def _peer(self) -> str:
        return f"{self.client[0]}:{self.client[1]}" if self.client else "-"

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            self.connections.discard(self)  # now, not when the close completes
            log.warning(
                "refused a connection from %s: %d connections open",
                self._peer(),
                len(self.connections),
                extra={"client": self._peer(), "limit": self.max_connections},
            )
            self.transport.close()
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE and self._header_deadline is None:
            self._arm()  # the first byte of a request on a kept-alive connection
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm()  # the request line and headers are in

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_deadline = self.loop.call_later(self.read_timeout, self._headers_timed_out)

    def _disarm(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _headers_timed_out(self) -> None:
        self._header_deadline = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        log.info(
            "closed a connection from %s: request headers not received within %gs",
            self._peer(),
            self.read_timeout,
            extra={"client": self._peer(), "status": 408},
        )
        self.transport.write(REQUEST_TIMEOUT_RESPONSE)
        self.transport.close()


def guarded_h11_protocol(read_timeout: float, max_connections: int) -> type[GuardedH11Protocol]:
    """A :class:`GuardedH11Protocol` class with these limits, for ``uvicorn.Config(http=...)``."""
    return type(
        "GuardedH11Protocol",
        (GuardedH11Protocol,),
        {"read_timeout": read_timeout, "max_connections": max_connections},
    )
