"""A fake OpenAI Chat Completions API on 127.0.0.1 for tests: records requests, scripted replies.

    with FakeOpenAI() as fake:
        fake.set_reply(lambda body: {"answerable": False, "answer": "", "citations": []})
        client = fake.client()  # closed when the server stops
        client.chat.completions.create(model="m", messages=[...])
        assert fake.requests[0]["model"] == "m"

Only ``POST /v1/chat/completions`` is served, in the OpenAI wire format. The scripted
responder gets the decoded request body and returns either a dict (sent as the JSON string
``choices[0].message.content``, as structured output does) or a str (sent as the content
verbatim, e.g. invalid JSON or a plain-text completion). ``set_delay`` holds every reply to
force client timeouts; ``set_status`` answers with an OpenAI-style error instead.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

import openai

from tests.fakes.http_server import LocalHTTPServer

Reply = Callable[[dict[str, Any]], "dict[str, Any] | str"]

DEFAULT_CONTENT: dict[str, Any] = {"answerable": False, "answer": "", "citations": []}


class FakeOpenAI(LocalHTTPServer):
    """A threaded HTTP server that imitates ``POST /v1/chat/completions``."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._requests: list[dict[str, Any]] = []
        self._headers: list[dict[str, str]] = []
        self._reply: Reply = lambda body: dict(DEFAULT_CONTENT)
        self._delay = 0.0
        self._status = 200
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._clients: list[openai.OpenAI] = []

    # ------------------------------------------------------------------ lifecycle

    def _before_start(self) -> None:
        self._stopping.clear()

    def _before_stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping in set_delay
        while self._clients:  # their pooled sockets are closed, not left to the collector
            self._clients.pop().close()

    def client(self, **options: Any) -> openai.OpenAI:
        """An OpenAI client of this server (no retries unless asked), closed with it."""
        options.setdefault("max_retries", 0)
        options.setdefault("api_key", "test")
        c = openai.OpenAI(base_url=self.base_url, **options)
        self._clients.append(c)
        return c

    @property
    def base_url(self) -> str:
        """For ``openai.OpenAI(base_url=...)``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # ------------------------------------------------------------------ recorded requests

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every decoded request body received, in order."""
        with self._lock:
            return list(self._requests)

    @property
    def request_headers(self) -> list[dict[str, str]]:
        with self._lock:
            return list(self._headers)

    def clear(self) -> None:
        with self._lock:
            self._requests.clear()
            self._headers.clear()

    # ------------------------------------------------------------------ script

    def set_reply(self, fn: Reply) -> None:
        """Answer with ``fn(request_body)``: a dict (JSON content) or a str (raw content)."""
        with self._lock:
            self._reply = fn

    def set_delay(self, seconds: float) -> None:
        """Hold every reply this long (longer than the client timeout forces a timeout)."""
        with self._lock:
            self._delay = seconds

    def set_status(self, status: int) -> None:
        """Answer every request with this HTTP status (200 restores normal replies)."""
        with self._lock:
            self._status = status

    # ------------------------------------------------------------------ handling

    def _handle(
        self, path: str, body: dict[str, Any], headers: dict[str, str]
    ) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self._requests.append(body)
            self._headers.append(headers)
            delay, status, reply = self._delay, self._status, self._reply
        if delay > 0:
            self._stopping.wait(delay)
        if path.rstrip("/") != "/v1/chat/completions":
            return 404, _error("Unknown request URL", "invalid_request_error")
        if status != 200:
            return status, _error(f"fake error {status}", "server_error")
        out = reply(body)
        content = out if isinstance(out, str) else json.dumps(out)
        return 200, {
            "id": f"chatcmpl-fake{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model", "fake-model")),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": None},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": 10,
                "completion_tokens": 10,
                "total_tokens": 20,
            },
        }


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        if not isinstance(body, dict):
            body = {"_raw": body}
        status, payload = self.fake._handle(self.path, body, dict(self.headers.items()))
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up (timeout) and closed the connection
            self.close_connection = True


FakeOpenAI.handler_class = _Handler
