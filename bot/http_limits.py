"""How much the HTTP server lets one client hold: time, bytes and connections."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ServerLimits:
    """Limits of ``bot.server.BotServer``; the defaults suit Slack's traffic.

    A connection that has not sent a request's complete headers within ``read_timeout``
    seconds of connecting (or of its first byte after a keep-alive pause) is answered 408
    and closed; a request whose body has not arrived within another ``read_timeout``
    seconds is answered 408 too. No thread is held while a client is slow.
    """

    #: Seconds to receive a request's headers, and again its body.
    read_timeout: float = 10.0
    #: Seconds an idle keep-alive connection stays open between requests.
    keep_alive_timeout: int = 5
    #: Open connections (and requests in progress) at most; beyond it new connections are
    #: closed at once and requests on open ones are answered 503.
    max_connections: int = 200
    #: Bytes of request line and headers at most: a longer request line is answered 414,
    #: a larger head 431.
    max_header_bytes: int = 16_384
    #: Bytes of body at most (larger is answered 413); Slack payloads are far smaller.
    max_body_bytes: int = 1_000_000
    #: Seconds a stopping server waits for requests in progress before cancelling them.
    shutdown_timeout: int = 10


DEFAULT_LIMITS = ServerLimits()
