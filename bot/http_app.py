"""The ASGI app of ``runbook-bot serve``: ``/slack/events``, ``/healthz``, ``/metrics``,
and the web pages (``bot.web``) at ``/``.

Slack requests (slash commands, events and interactivity all arrive on one path) go to
the bolt App through bolt's Starlette adapter. Before bolt sees a request, the body is
read with a size cap (413) and a deadline (408), and checked to be a body Slack could
have sent (400: not UTF-8, not JSON, not a form). bolt then verifies the signature (401
on a bad signature or a timestamp older than five minutes) and acknowledges within
Slack's three seconds. Every rejection is one JSON log line, never a traceback.

bolt's ``App`` is synchronous: ``dispatch`` runs on Starlette's thread pool (the
adapter's own ``handle`` would run it on the event loop and stall every other
connection while a listener acknowledges).

``/metrics`` is served here only with a bearer token (``Authorization: Bearer <token>``);
without one it is not served on this app at all (see :func:`metrics_app` for the
loopback-only listener).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from bot.http_limits import DEFAULT_LIMITS, ServerLimits
from bot.runtime import Runtime
from bot.slack_body import body_problem
from state.client import REDIS_ERRORS

log = logging.getLogger("runbook_bot.server")

SLACK_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
METRICS_PATH = "/metrics"

#: ``render() -> (body, content type)``, e.g. ``bot.metrics.Metrics.render``
MetricsRenderer = Callable[[], tuple[bytes, str]]


def health(runtime: Runtime) -> tuple[int, dict[str, Any]]:
    """(HTTP status, body) of ``/healthz``: 503 when the index cannot be searched."""
    qdrant = False
    generation: int | None = None
    try:
        qdrant = bool(runtime.vector_index.ping())
        if qdrant:
            generation = runtime.searcher.generation()
    except Exception as exc:  # health must answer whatever is broken
        log.debug("health: index check failed: %s", exc)
        qdrant = False
    redis_ok = False
    try:
        redis_ok = bool(runtime.redis.ping())
    except REDIS_ERRORS:
        redis_ok = False
    except Exception as exc:
        log.debug("health: redis check failed: %s", exc)
    status = "ok" if qdrant and redis_ok else "degraded"
    body = {"status": status, "generation": generation, "qdrant": qdrant, "redis": redis_ok}
    return (200 if qdrant else 503), body


# --------------------------------------------------------------------------- rejections


class _Rejected(Exception):
    """A request answered with ``status`` before bolt sees it."""

    def __init__(self, status: int, reason: str, *, close: bool = False) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.close = close


def _client(request: Request) -> str:
    client = request.client
    return f"{client.host}:{client.port}" if client else "-"


def _reject(request: Request, rejected: _Rejected) -> Response:
    log.warning(
        "rejected %s %s from %s: %s",
        request.method,
        request.url.path,
        _client(request),
        rejected.reason,
        extra={"status": rejected.status, "client": _client(request), "reason": rejected.reason},
    )
    headers = {"connection": "close"} if rejected.close else None
    return PlainTextResponse(rejected.reason + "\n", rejected.status, headers=headers)


async def read_body(request: Request, limits: ServerLimits) -> bytes:
    """The whole body, at most ``limits.max_body_bytes`` within ``limits.read_timeout``."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limits.max_body_bytes:
        raise _Rejected(413, "payload too large", close=True)
    body = bytearray()
    try:
        async with asyncio.timeout(limits.read_timeout):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limits.max_body_bytes:
                    raise _Rejected(413, "payload too large", close=True)
    except TimeoutError:
        raise _Rejected(408, "request body not received in time", close=True) from None
    return bytes(body)


# --------------------------------------------------------------------------- endpoints


def _slack_endpoint(app: App, limits: ServerLimits) -> Callable[[Request], Any]:
    async def slack_events(request: Request) -> Response:
        try:
            body = await read_body(request, limits)
            problem = body_problem(body, request.headers.get("content-type"))
            if problem is not None:
                raise _Rejected(400, f"malformed Slack request: {problem}")
        except _Rejected as rejected:
            return _reject(request, rejected)
        except ClientDisconnect:
            log.info("client %s went away while sending a request", _client(request))
            return Response(status_code=400)
        bolt_request = to_bolt_request(request, body)
        try:
            bolt_response = await run_in_threadpool(app.dispatch, bolt_request)
        except Exception:
            log.exception("dispatching a Slack request failed")
            return PlainTextResponse("", 500)
        return to_starlette_response(bolt_response)

    return slack_events


def _health_endpoint(runtime: Runtime) -> Callable[[Request], Any]:
    async def healthz(request: Request) -> Response:
        status, body = await run_in_threadpool(health, runtime)
        return JSONResponse(body, status)

    return healthz


def _render(metrics: MetricsRenderer) -> Response:
    try:
        data, content_type = metrics()
    except Exception:
        log.exception("rendering metrics failed")
        return PlainTextResponse("metrics failed\n", 500)
    return Response(data, 200, media_type=content_type)


def bearer_matches(authorization: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``Bearer <token>`` (constant time)."""
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token:
        return False
    return hmac.compare_digest(given.strip().encode(), token.encode())


def _metrics_endpoint(metrics: MetricsRenderer, token: str | None) -> Callable[[Request], Any]:
    async def metrics_page(request: Request) -> Response:
        if token is not None and not bearer_matches(request.headers.get("authorization"), token):
            log.warning(
                "refused /metrics to %s: missing or wrong bearer token",
                _client(request),
                extra={"status": 401, "client": _client(request)},
            )
            return PlainTextResponse(
                "bearer token required\n", 401, headers={"www-authenticate": "Bearer"}
            )
        return await run_in_threadpool(_render, metrics)

    return metrics_page


# --------------------------------------------------------------------------- apps


def web_app(
    app: App | None,
    runtime: Runtime,
    *,
    metrics: MetricsRenderer | None = None,
    metrics_token: str | None = None,
    limits: ServerLimits = DEFAULT_LIMITS,
    extra_routes: Sequence[BaseRoute] = (),
) -> Starlette:
    """The public app: Slack (when ``app`` is given), health, token-guarded metrics, and
    ``extra_routes`` (the web pages, see ``bot.web``) after them."""
    routes: list[BaseRoute] = [Route(HEALTH_PATH, _health_endpoint(runtime), methods=["GET"])]
    if app is not None:
        routes.append(Route(SLACK_PATH, _slack_endpoint(app, limits), methods=["POST"]))
    if metrics is not None and metrics_token:
        routes.append(Route(METRICS_PATH, _metrics_endpoint(metrics, metrics_token)))
    routes.extend(extra_routes)
    return Starlette(routes=routes)


def metrics_app(metrics: MetricsRenderer) -> Starlette:
    """``/metrics`` without a token, for the loopback-only metrics listener."""
    return Starlette(routes=[Route(METRICS_PATH, _metrics_endpoint(metrics, None))])


class ByListener:
    """Routes each connection to an app by the local port it arrived on."""

    def __init__(self, default: ASGIApp, by_port: Mapping[int, ASGIApp]) -> None:
        self.default = default
        self.by_port = dict(by_port)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        server = scope.get("server")
        port = server[1] if server else None
        await self.by_port.get(port, self.default)(scope, receive, send)  # type: ignore[arg-type]
