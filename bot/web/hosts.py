"""Which host names the web pages answer to: the public address, and loopback names in
local mode; any other ``Host`` header is answered ``400``.

A page of another site whose name the attacker points at 127.0.0.1 (DNS rebinding) runs
in the same browser as the person's own pages, so a local-mode server, which asks for no
sign-in, would otherwise read its runbooks to that page. The browser sends that site's
name as ``Host``; only names of this server pass :class:`AllowedHosts`. Ports are not
compared (a proxy may or may not keep them), as Starlette's ``TrustedHostMiddleware``
does; unlike it, IPv6 literals (``[::1]:3000``) are read correctly.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from bot.web.config import WebConfig

log = logging.getLogger("runbook_bot.server")

#: The names a browser uses for this machine (``Host: [::1]:3000`` is read as ``::1``).
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_MAX_HOST_CHARS = 300


def host_name(header: str) -> str | None:
    """The name in a ``Host`` header, lower case, without port or trailing dot; None when
    it is not one (``[::1`` , ``a:b:c``, empty)."""
    header = header.strip()
    if header.startswith("["):
        inner, bracket, rest = header[1:].partition("]")
        if not bracket or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        name = inner
    else:
        name, colon, port = header.partition(":")
        if colon and not port.isdigit():
            return None
    name = name.rstrip(".").lower()
    return name or None


def page_hosts(config: WebConfig) -> frozenset[str] | None:
    """The host names the pages answer to (None: any, when they show no runbook)."""
    if config.mode == "off":
        return None
    names: set[str] = set()
    redirect = config.sign_in.redirect_uri if config.sign_in is not None else None
    for url in (config.public_url, redirect):
        host = urlsplit(url).hostname if url else None
        if host:
            names.add(host.rstrip(".").lower())
    if config.mode == "local":
        names |= LOOPBACK_NAMES
    return frozenset(names)


class AllowedHosts:
    """ASGI middleware: requests whose ``Host`` is not one of ``hosts`` get ``400`` (and
    one log line), before any session or page sees them."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str] | None) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.hosts is None or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = Headers(scope=scope).get("host", "")
        if host_name(header) in self.hosts:
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        peer = f"{client[0]}:{client[1]}" if client else "-"
        reason = "unknown host name"
        log.warning(
            "rejected %s %s from %s: %s",
            scope.get("method", "-"),
            scope.get("path", "-"),
            peer,
            reason,
            extra={
                "status": 400,
                "client": peer,
                "reason": reason,
                "host": header[:_MAX_HOST_CHARS],
            },
        )
        response = PlainTextResponse(f"{reason}\n", 400, headers={"connection": "close"})
        await response(scope, receive, send)
