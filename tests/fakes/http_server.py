"""A local threaded HTTP server that the network-edge fakes (Slack, OpenAI) build on."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self


class LocalHTTPServer:
    """Serves ``handler_class`` (with ``fake`` bound to self) on 127.0.0.1, a free port."""

    handler_class: type[BaseHTTPRequestHandler]

    def __init__(self) -> None:
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def _before_start(self) -> None:
        return None

    def _before_stop(self) -> None:
        return None

    def _configure(self, server: ThreadingHTTPServer) -> None:
        """Adjust the server before it serves (e.g. wrap its socket in TLS)."""
        return None

    def start(self) -> Self:
        if self._server is not None:
            raise RuntimeError(f"{type(self).__name__} is already running")
        self._before_start()
        handler = type("_BoundHandler", (self.handler_class,), {"fake": self})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        self._configure(server)
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._before_stop()
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError(f"{type(self).__name__} is not running")
        return int(self._server.server_address[1])
