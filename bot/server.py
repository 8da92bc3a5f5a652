"""The HTTP front: Slack requests at ``/slack/events``, ``/healthz`` and ``/metrics``.

A ``ThreadingHTTPServer`` hands each Slack request (slash commands, events and
interactivity all arrive on one path) to the bolt App, which verifies the signature
(a bad signature or a timestamp older than five minutes gets 401) and acknowledges
within Slack's three seconds.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from slack_bolt import App, BoltRequest, BoltResponse

from bot.runtime import Runtime
from retrieval.cache import REDIS_ERRORS

log = logging.getLogger("runbook_bot.server")

SLACK_PATH = "/slack/events"
MAX_BODY_BYTES = 1_000_000  # Slack payloads are far smaller

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


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s - %s", self.address_string(), format % args)

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path == "/healthz":
            status, body = health(self.server.runtime)
            self._send(status, json.dumps(body).encode(), "application/json")
        elif path == "/metrics" and self.server.metrics is not None:
            try:
                data, content_type = self.server.metrics()
            except Exception:
                log.exception("rendering metrics failed")
                self._send(500, b"metrics failed\n", "text/plain")
                return
            self._send(200, data, content_type)
        else:
            self._send(404, b"not found\n", "text/plain")

    def do_POST(self) -> None:
        split = urlsplit(self.path)
        app = self.server.app
        length = int(self.headers.get("Content-Length") or 0)
        if split.path != SLACK_PATH or app is None:
            self._drain(length)
            self._send(404, b"not found\n", "text/plain")
            return
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            self._send(413, b"payload too large\n", "text/plain")
            return
        raw = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        headers: dict[str, str | Sequence[str]] = {}
        for name in set(self.headers.keys()):
            headers[name.lower()] = list(self.headers.get_all(name) or [])
        request = BoltRequest(body=raw, query=split.query, headers=headers)
        try:
            response: BoltResponse = app.dispatch(request)
        except Exception:
            log.exception("dispatching a Slack request failed")
            self._send(500, b"", "text/plain")
            return
        body = (response.body or "").encode("utf-8")
        extra: list[tuple[str, str]] = []
        content_type = "text/plain; charset=utf-8"
        for name, values in (response.headers or {}).items():
            for value in values:
                if name.lower() == "content-type":
                    content_type = value
                elif name.lower() != "content-length":
                    extra.append((name, value))
        self._send(response.status, body, content_type, extra)

    def _drain(self, length: int) -> None:
        if 0 < length <= MAX_BODY_BYTES:
            self.rfile.read(length)
        elif length:
            self.close_connection = True

    def _send(
        self,
        status: int,
        body: bytes,
        content_type: str,
        headers: list[tuple[str, str]] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers or []:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        app: App | None,
        runtime: Runtime,
        metrics: MetricsRenderer | None,
    ) -> None:
        self.app = app
        self.runtime = runtime
        self.metrics = metrics
        super().__init__(address, _Handler)


class BotServer:
    """Serves the bolt ``app`` (None: health and metrics only, e.g. in Socket Mode)."""

    def __init__(
        self,
        app: App | None,
        runtime: Runtime,
        host: str = "0.0.0.0",
        port: int = 3000,
        metrics: MetricsRenderer | None = None,
    ) -> None:
        self._httpd = _Server((host, port), app, runtime, metrics)
        self._thread: threading.Thread | None = None
        self._serving = False

    @property
    def host(self) -> str:
        return str(self._httpd.server_address[0])

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> BotServer:
        """Serve in a background thread."""
        if self._thread is None:
            self._serving = True
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.2},
                name="runbook-http",
                daemon=True,
            )
            self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in this thread until :meth:`stop` is called from another one."""
        self._serving = True
        self._httpd.serve_forever(poll_interval=0.2)

    def stop(self) -> None:
        if self._serving:  # shutdown() waits for a serve_forever loop that must exist
            self._serving = False
            self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> BotServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
