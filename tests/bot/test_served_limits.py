"""The header limits of ``runbook-bot serve`` itself, over raw sockets: a request line or
header section over 16 KiB is answered (414, 431), never reset, whatever its size, and
each refusal is one JSON log line."""

from __future__ import annotations

import json
import shutil
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.http_limits import DEFAULT_LIMITS
from tests.conftest import RedisServer, free_port
from tests.fakes.slack_openid import FakeSlackOpenID
from tests.serve_process import serve_env, serving

LIMIT = DEFAULT_LIMITS.max_header_bytes
KIB = 1024


@dataclass
class Served:
    port: int
    log: Path

    def lines(self) -> list[dict[str, Any]]:
        out = []
        for line in self.log.read_text().splitlines():
            if line.startswith("{"):
                out.append(json.loads(line))
        return out


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, sample_index_template: Path, model_dir: Path
) -> Iterator[Served]:
    work = tmp_path_factory.mktemp("served-limits")
    redis = RedisServer(work)
    redis.start()
    fake = FakeSlackOpenID().start()
    data = work / "data"
    shutil.copytree(sample_index_template, data)
    if not (data / "models").exists():
        (data / "models").symlink_to(model_dir)
    port = free_port()
    env = serve_env(
        f"http://127.0.0.1:{port}", fake, redis.url, "limits-secret", RUNBOOK_LOG_FORMAT="json"
    )
    log = work / "serve.log"
    try:
        with log.open("wb") as out, serving(data, port, env, work, output=out, log=log):
            yield Served(port, log)
    finally:
        fake.stop()
        redis.stop()
    assert "Traceback" not in log.read_text()


def exchange(port: int, raw: bytes) -> bytes:
    """Send ``raw`` (all of it, as a client would) and read the answer until the server
    closes; a reset fails the test."""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        sock.sendall(raw)
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return data
            data += chunk


def status_of(raw: bytes) -> int:
    assert raw.startswith(b"HTTP/1.1 "), raw[:200]
    return int(raw.split(b" ", 2)[1])


def with_header(size: int) -> bytes:
    return b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * size + b"\r\n\r\n"


def with_path(size: int) -> bytes:
    return b"GET /healthz?" + b"a" * size + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def refusals(served: Served, status: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 5
    while True:
        found = [r for r in served.lines() if r.get("status") == status]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def test_headers_within_the_limit_are_served(served: Served) -> None:
    assert status_of(exchange(served.port, with_header(LIMIT - 200))) == 200
    assert status_of(exchange(served.port, with_path(LIMIT - 200))) == 200


@pytest.mark.parametrize("size", [17 * KIB, 70 * KIB, 200 * KIB, 1024 * KIB])
def test_headers_over_the_limit_are_431_whatever_their_size(served: Served, size: int) -> None:
    raw = exchange(served.port, with_header(size))
    assert status_of(raw) == 431
    assert b"connection: close" in raw.lower()
    assert refusals(served, 431)


@pytest.mark.parametrize("size", [17 * KIB, 70 * KIB, 1024 * KIB])
def test_request_lines_over_the_limit_are_414_whatever_their_size(
    served: Served, size: int
) -> None:
    raw = exchange(served.port, with_path(size))
    assert status_of(raw) == 414
    (line, *_) = refusals(served, 414)
    assert line["logger"] == "runbook_bot.server" and line["level"] == "WARNING"
    assert "client" in line


def test_a_request_after_a_refusal_is_served(served: Served) -> None:
    exchange(served.port, with_header(200 * KIB))
    assert status_of(exchange(served.port, with_header(100))) == 200
