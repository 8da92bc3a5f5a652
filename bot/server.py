"""The HTTP server of ``runbook-bot serve``: uvicorn serving ``bot.http_app`` in a thread.

::

    server = BotServer(app, runtime, port=3000, metrics=metrics.render,
                       metrics_token="...", metrics_port=9464).start()
    server.url            # http://127.0.0.1:3000
    server.stop()         # finishes the requests in progress, then returns

The listening sockets are bound in the constructor (a port in use raises ``OSError``
there), and uvicorn runs on its own event loop in a background thread, so the caller
keeps its signal handlers. :class:`~bot.http_limits.ServerLimits` bounds what one client
can hold: a deadline for headers (see ``bot.http_protocol``) and for the body, the header
and body size, and the number of open connections. uvicorn's own log lines go through the
project's logging setup (``bot.logs``), as JSON by default.

``web_routes`` (the web pages of ``bot.web``) are served on the main port after Slack,
health and metrics, within the same limits and logging.

``/metrics``: with ``metrics_token`` it is served on the main port to requests carrying
``Authorization: Bearer <token>``; with ``metrics_port`` it is served without a token on
``127.0.0.1:<metrics_port>`` only; with neither it is not served.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Mapping, Sequence

import uvicorn
from slack_bolt import App
from starlette.routing import BaseRoute
from starlette.types import ASGIApp

from bot.http_app import ByListener, MetricsRenderer, metrics_app, web_app
from bot.http_limits import DEFAULT_LIMITS, ServerLimits
from bot.http_protocol import guarded_h11_protocol
from bot.runtime import Runtime

log = logging.getLogger("runbook_bot.server")

#: The metrics listener binds the loopback interface only.
METRICS_HOST = "127.0.0.1"
_START_TIMEOUT_SECONDS = 10.0


def listen(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    return sock


def uvicorn_config(asgi: ASGIApp, limits: ServerLimits) -> uvicorn.Config:
    """uvicorn settings for ``asgi`` within ``limits``, logging through the root logger."""
    return uvicorn.Config(
        asgi,
        http=guarded_h11_protocol(
            limits.read_timeout, limits.max_connections, limits.max_header_bytes
        ),
        ws="none",
        lifespan="off",
        interface="asgi3",
        log_config=None,  # keep the handlers of bot.logs.configure_logging
        access_log=True,
        proxy_headers=False,
        server_header=False,
        timeout_keep_alive=limits.keep_alive_timeout,
        limit_concurrency=limits.max_connections,
        h11_max_incomplete_event_size=limits.max_header_bytes,
        timeout_graceful_shutdown=limits.shutdown_timeout,
    )


class BotServer:
    """Serves the bolt ``app`` (None: health and metrics only, e.g. in Socket Mode)."""

    def __init__(
        self,
        app: App | None,
        runtime: Runtime,
        host: str = "0.0.0.0",
        port: int = 3000,
        metrics: MetricsRenderer | None = None,
        *,
        metrics_token: str | None = None,
        metrics_port: int | None = None,
        limits: ServerLimits = DEFAULT_LIMITS,
        web_routes: Sequence[BaseRoute] = (),
    ) -> None:
        self.limits = limits
        self._sockets = [listen(host, port)]
        by_port: Mapping[int, ASGIApp] = {}
        if metrics is not None and metrics_port is not None:
            try:
                self._sockets.append(listen(METRICS_HOST, metrics_port))
            except OSError:
                self._sockets[0].close()
                raise
            by_port = {self._sockets[1].getsockname()[1]: metrics_app(metrics)}
        public = web_app(
            app,
            runtime,
            metrics=metrics,
            metrics_token=metrics_token or None,
            limits=limits,
            extra_routes=web_routes,
        )
        self._server = uvicorn.Server(uvicorn_config(ByListener(public, by_port), limits))
        self._addresses = [sock.getsockname() for sock in self._sockets]
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        return str(self._addresses[0][0])

    @property
    def port(self) -> int:
        return int(self._addresses[0][1])

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "", "::") else self.host
        return f"http://{host}:{self.port}"

    @property
    def metrics_port(self) -> int | None:
        """The port of the loopback metrics listener, None without one."""
        return int(self._addresses[1][1]) if len(self._addresses) > 1 else None

    @property
    def metrics_url(self) -> str | None:
        """``http://127.0.0.1:<port>`` of the loopback metrics listener, None without one."""
        if len(self._addresses) < 2:
            return None
        return f"http://{self._addresses[1][0]}:{self._addresses[1][1]}"

    @property
    def open_connections(self) -> int:
        """Connections open right now (a diagnostic; read without locking)."""
        return len(self._server.server_state.connections)

    def _run(self) -> None:
        try:
            self._server.run(sockets=self._sockets)
        except BaseException:  # uvicorn exits with SystemExit on a failed start
            log.exception("the HTTP server stopped on an error")

    def start(self) -> BotServer:
        """Serve in a background thread; returns once the server accepts requests."""
        if self._thread is not None:
            return self
        self._thread = threading.Thread(target=self._run, name="runbook-http", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + _START_TIMEOUT_SECONDS
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise OSError(f"the HTTP server did not start on port {self.port}")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop accepting, finish the requests in progress (up to the shutdown timeout)."""
        if self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=self.limits.shutdown_timeout + 5)
            self._thread = None
        for sock in self._sockets:
            sock.close()

    def __enter__(self) -> BotServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
