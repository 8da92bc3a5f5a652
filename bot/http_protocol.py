"""uvicorn's h11 protocol with a deadline for request headers, a bound on their size, and
a bound on connections.

uvicorn times out idle keep-alive connections, but not a client that opens a connection
and then sends its headers slowly or never finishes them; and h11 bounds only headers
that arrive in pieces (a large head read in one go passes, a larger one ends in a
reset). :func:`guarded_h11_protocol` returns an ``H11Protocol`` subclass that:

- closes (after a ``408``) a connection whose request line and headers are not complete
  within ``read_timeout`` seconds of connecting, or of the first byte of a new request
  on a kept-alive connection; trickling bytes does not extend the deadline;
- answers a request line longer than ``max_header_bytes`` with ``414`` and a longer
  request line and headers with ``431``, however they arrive: the answer is sent, the
  sending side closed, and what the client still sends is read and dropped for a
  moment (so the client reads the answer instead of a reset), then the connection is
  closed;
- closes new connections at once while ``max_connections`` are already open.

Each time a JSON log line says so. A stalled connection costs a socket and a timer on
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
#: Seconds a refused connection keeps reading (and dropping) what the client still sends.
REFUSED_LINGER_SECONDS = 2.0


def refusal(status: int, phrase: str, reason: str) -> bytes:
    """A complete ``connection: close`` response of ``status`` with ``reason`` as text."""
    body = (reason + "\n").encode()
    return (
        f"HTTP/1.1 {status} {phrase}\r\n".encode()
        + b"content-type: text/plain; charset=utf-8\r\n"
        + b"content-length: "
        + str(len(body)).encode()
        + b"\r\nconnection: close\r\n\r\n"
        + body
    )


#: (status, response) for a request line, or a whole head, over the limit.
REQUEST_LINE_TOO_LONG = (414, refusal(414, "URI Too Long", "request line too long"))
HEADERS_TOO_LARGE = (
    431,
    refusal(431, "Request Header Fields Too Large", "request headers too large"),
)


def head_problem(head: bytes, limit: int) -> tuple[int, bytes] | None:
    """What is wrong with the start of a request (its first bytes, at least ``limit + 4``
    of them when there are that many): a request line over ``limit`` bytes, or a request
    line and headers over ``limit`` bytes; None when neither is (yet)."""
    line_end = head.find(b"\n")
    if line_end > limit or (line_end < 0 and len(head) > limit):
        return REQUEST_LINE_TOO_LONG
    ends = [i + len(m) for m in (b"\r\n\r\n", b"\n\n") if (i := head.find(m)) >= 0]
    size = min(ends) if ends else len(head)
    return HEADERS_TOO_LARGE if size > limit else None


class GuardedH11Protocol(H11Protocol):
    """Set :attr:`read_timeout` and :attr:`max_connections` on a subclass."""

    read_timeout: float = 10.0
    max_connections: int = 200
    max_header_bytes: int = 16_384

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_deadline: asyncio.TimerHandle | None = None
        self._head = bytearray()  # the start of the request whose head is arriving
        self._refused: asyncio.TimerHandle | None = None  # lingering after a refusal

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
        if self._refused is not None:
            return  # what a refused client still sends is dropped
        if self.conn.their_state is h11.IDLE:
            if self._header_deadline is None:
                self._arm()  # the first byte of a request on a kept-alive connection
            self._head += data[: self.max_header_bytes + 4 - len(self._head)]
            problem = head_problem(bytes(self._head), self.max_header_bytes)
            if problem is not None:
                self._refuse(*problem)
                return
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm()  # the request line and headers are in
            self._head.clear()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._refused is not None:
            self._refused.cancel()
        super().connection_lost(exc)

    def _refuse(self, status: int, response: bytes) -> None:
        """Answer ``response``, close the sending side, drop what still comes for
        :data:`REFUSED_LINGER_SECONDS`, then close."""
        self._disarm()
        self._unset_keepalive_if_required()
        reason = response.rsplit(b"\r\n\r\n", 1)[1].decode().strip()
        log.warning(
            "rejected a request from %s: %s",
            self._peer(),
            reason,
            extra={"status": status, "client": self._peer(), "reason": reason},
        )
        self._head.clear()
        self._refused = self.loop.call_later(REFUSED_LINGER_SECONDS, self.transport.close)
        self.transport.write(response)
        if self.transport.can_write_eof():
            self.transport.write_eof()
        else:
            self.transport.close()

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


def guarded_h11_protocol(
    read_timeout: float, max_connections: int, max_header_bytes: int = 16_384
) -> type[GuardedH11Protocol]:
    """A :class:`GuardedH11Protocol` class with these limits, for ``uvicorn.Config(http=...)``."""
    return type(
        "GuardedH11Protocol",
        (GuardedH11Protocol,),
        {
            "read_timeout": read_timeout,
            "max_connections": max_connections,
            "max_header_bytes": max_header_bytes,
        },
    )
