"""bot.server over real sockets: uvicorn, a real bolt App, real signatures, the JSON logger.

Each test starts its own server with short limits (a 1 s read timeout) and reads what a
raw client sees: status lines, when the server closes the connection, and every line the
process wrote to stderr (all of it must be JSON log lines, never a bare traceback).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import io
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from slack_bolt import Ack, App
from slack_sdk import WebClient

from bot.http_limits import ServerLimits
from bot.metrics import Metrics
from bot.runtime import Runtime
from bot.server import BotServer
from bot.settings import Settings, load_settings
from tests.conftest import logging_to
from tests.fakes.signing import signed_headers
from tests.fakes.slack_api import FakeSlackAPI

SECRET = "server-test-secret"
TOKEN = "metrics-bearer-token"
LIMITS = ServerLimits(
    read_timeout=1.0,
    keep_alive_timeout=5,
    max_connections=40,
    max_header_bytes=4096,
    max_body_bytes=10_000,
    shutdown_timeout=5,
)
#: Slack for a timed-out connection to be noticed on a busy two-core machine.
SLACK_SECONDS = 2.5


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def fake_slack() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as fake:
        yield fake


def slack_app(fake: FakeSlackAPI) -> App:
    """A real bolt App: ``/runbook`` acknowledges, ``/slow`` takes a second to."""
    app = App(
        client=WebClient(token="xoxb-test", base_url=fake.base_url),
        signing_secret=SECRET,
        token_verification_enabled=False,
        process_before_response=False,
    )

    @app.command("/runbook")
    def runbook(ack: Ack, command: dict[str, Any]) -> None:
        ack(f"got {command['text']}")

    @app.command("/slow")
    def slow(ack: Ack) -> None:
        time.sleep(1.0)
        ack("slow but done")

    @app.event("app_mention")
    def mention(ack: Ack) -> None:
        ack()

    return app


class CurrentStderr(io.TextIOBase):
    """Writes to whatever ``sys.stderr`` is now (pytest swaps it between test phases)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


@pytest.fixture()
def stderr_log(capfd: pytest.CaptureFixture[str]) -> Iterator[Callable[[], list[dict[str, Any]]]]:
    """Logging set up as ``serve`` does (JSON on stderr); returns a reader of stderr that
    fails on any line that is not a JSON log line."""
    seen: list[str] = []

    def read() -> list[dict[str, Any]]:
        seen.append(capfd.readouterr().err)
        text = "".join(seen)
        assert "Traceback" not in text, text
        out = []
        for line in text.splitlines():
            if line.strip():
                record = json.loads(line)  # raises on anything that is not a JSON line
                assert isinstance(record, dict) and {"ts", "level", "logger", "msg"} <= set(record)
                out.append(record)
        return out

    with logging_to(CurrentStderr()):  # JSON lines on stderr
        yield read
        read()


@pytest.fixture()
def runtime(tmp_path: Path) -> Runtime:
    return Runtime(load_settings(data_dir=tmp_path / "data"))


@pytest.fixture()
def server(
    fake_slack: FakeSlackAPI,
    runtime: Runtime,
    stderr_log: Callable[[], list[dict[str, Any]]],
) -> Iterator[BotServer]:
    metrics = Metrics()
    srv = BotServer(
        slack_app(fake_slack),
        runtime,
        host="127.0.0.1",
        port=0,
        metrics=metrics.render,
        metrics_token=TOKEN,
        limits=LIMITS,
    ).start()
    yield srv
    srv.stop()


# --------------------------------------------------------------------------- clients


def connect(server: BotServer, port: int | None = None) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port or server.port), timeout=15)


def read_until_closed(sock: socket.socket) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection, and how long that took."""
    started = time.monotonic()
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    return data, time.monotonic() - started


def status_of(raw: bytes) -> int:
    return int(raw.split(b" ", 2)[1]) if raw.startswith(b"HTTP/1.1 ") else 0


def request(
    server: BotServer,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    port: int | None = None,
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port or server.port, timeout=15)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def signed_post(
    server: BotServer, body: bytes, content_type: str
) -> tuple[int, dict[str, str], bytes]:
    """POST /slack/events signed with the app's secret (also for bodies that are not UTF-8)."""
    ts = str(int(time.time()))
    digest = hmac.new(SECRET.encode(), b"v0:" + ts.encode() + b":" + body, hashlib.sha256)
    headers = {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": "v0=" + digest.hexdigest(),
    }
    return request(server, "POST", "/slack/events", body, headers)


def slash_body(text: str, command: str = "/runbook") -> str:
    return urlencode(
        {
            "command": command,
            "text": text,
            "user_id": "U0ALICE01",
            "channel_id": "C0GENERAL1",
            "team_id": "T1",
            "response_url": "http://127.0.0.1:9/unused",
            "trigger_id": "t.1",
        }
    )


def slash(server: BotServer, text: str, command: str = "/runbook") -> tuple[int, bytes]:
    body = slash_body(text, command)
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    headers.update(signed_headers(SECRET, body))
    status, _, data = request(server, "POST", "/slack/events", body.encode(), headers)
    return status, data


def records_with(log: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    return [r for r in log if text in str(r["msg"])]


# --------------------------------------------------------------------------- Slack path


def test_signed_command_is_acknowledged_and_bad_signature_is_401(server: BotServer) -> None:
    status, data = slash(server, "disk full")
    assert status == 200 and b"got disk full" in data

    body = slash_body("disk full")
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    headers.update(signed_headers("not-the-secret", body))
    assert request(server, "POST", "/slack/events", body.encode(), headers)[0] == 401
    stale = signed_headers(SECRET, body, int(time.time()) - 600)
    stale["Content-Type"] = "application/x-www-form-urlencoded"
    assert request(server, "POST", "/slack/events", body.encode(), stale)[0] == 401


def test_unknown_paths_and_methods(server: BotServer) -> None:
    assert request(server, "GET", "/nope")[0] == 404
    assert request(server, "POST", "/other", b"x", {"Content-Type": "text/plain"})[0] == 404
    assert request(server, "GET", "/slack/events")[0] == 405


@pytest.mark.parametrize(
    ("body", "content_type", "problem"),
    [
        (b'{"type": "event_callback", "event": ', "application/json", "not valid JSON"),
        (b"[1, 2, 3]", "application/json", "not a JSON object"),
        (b"payload=%7Bnot-json", "application/x-www-form-urlencoded", "not valid JSON"),
        (b"payload=%5B1%5D", "application/x-www-form-urlencoded", "not a JSON object"),
        (b"command=%2Frunbook&text=%FF%FE", "application/x-www-form-urlencoded", "not UTF-8"),
        (b"command=/runbook&text=\xff\xfe", "application/x-www-form-urlencoded", "not UTF-8"),
        (b'{"event": "\xc3\x28"}', "application/json", "not UTF-8"),
    ],
    ids=[
        "event-invalid-json",
        "event-json-array",
        "interactivity-invalid-payload",
        "interactivity-payload-array",
        "command-escaped-non-utf8",
        "command-raw-non-utf8",
        "event-raw-non-utf8",
    ],
)
def test_malformed_signed_bodies_get_400_and_one_json_log_line(
    server: BotServer,
    stderr_log: Callable[[], list[dict[str, Any]]],
    body: bytes,
    content_type: str,
    problem: str,
) -> None:
    status, headers, data = signed_post(server, body, content_type)
    assert status == 400
    assert problem in data.decode()
    assert headers["content-type"].startswith("text/plain")
    # the server is still answering, on a fresh connection
    assert slash(server, "still here")[0] == 200
    rejected = records_with(stderr_log(), "rejected POST /slack/events")
    assert len(rejected) == 1, rejected
    assert rejected[0]["level"] == "WARNING" and rejected[0]["status"] == 400
    assert problem in rejected[0]["reason"]


def test_oversized_body_is_413_without_reading_it(
    server: BotServer, stderr_log: Callable[[], list[dict[str, Any]]]
) -> None:
    sock = connect(server)
    sock.sendall(
        b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n{" % (LIMITS.max_body_bytes + 1)
    )
    raw, _ = read_until_closed(sock)
    sock.close()
    assert status_of(raw) == 413

    # a chunked body without a length is cut off at the cap too
    sock = connect(server)
    sock.sendall(
        b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"a" * 4096
    try:
        for _ in range(4):
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    except OSError:
        pass  # the server may answer and close before the last chunk
    raw, _ = read_until_closed(sock)
    sock.close()
    assert status_of(raw) == 413
    assert len(records_with(stderr_log(), "payload too large")) == 2


def test_negative_content_length_is_400_at_once(
    server: BotServer, stderr_log: Callable[[], list[dict[str, Any]]]
) -> None:
    sock = connect(server)
    sock.sendall(b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n")
    raw, seconds = read_until_closed(sock)
    sock.close()
    assert status_of(raw) == 400
    assert seconds < LIMITS.read_timeout
    assert records_with(stderr_log(), "Invalid HTTP request")


def test_oversized_headers_are_431_and_a_long_request_line_414(
    server: BotServer, stderr_log: Callable[[], list[dict[str, Any]]]
) -> None:
    sock = connect(server)
    sock.sendall(
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (2 * LIMITS.max_header_bytes)
    )
    raw, _ = read_until_closed(sock)
    sock.close()
    assert status_of(raw) == 431
    sock = connect(server)
    sock.sendall(b"GET /healthz?" + b"a" * (2 * LIMITS.max_header_bytes))
    raw, _ = read_until_closed(sock)
    sock.close()
    assert status_of(raw) == 414
    log = records_with(stderr_log(), "rejected a request")
    assert [r["status"] for r in log] == [431, 414]


# --------------------------------------------------------------------------- timeouts


def test_stalled_headers_are_answered_408_and_closed_within_the_timeout(
    server: BotServer, stderr_log: Callable[[], list[dict[str, Any]]]
) -> None:
    sock = connect(server)
    sock.sendall(b"POST /slack/events HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    raw, seconds = read_until_closed(sock)
    sock.close()
    assert status_of(raw) == 408
    assert LIMITS.read_timeout * 0.9 <= seconds < LIMITS.read_timeout + SLACK_SECONDS
    (line,) = records_with(stderr_log(), "request headers not received")
    assert line["status"] == 408


def test_trickled_headers_do_not_extend_the_deadline(server: BotServer) -> None:
    sock = connect(server)
    started = time.monotonic()
    header = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Trickle: " + b"a" * 100
    closed = False
    for byte in header:
        try:
            sock.sendall(bytes([byte]))
        except OSError:
            closed = True
            break
        time.sleep(0.05)
        if time.monotonic() - started > LIMITS.read_timeout + SLACK_SECONDS:
            break
    raw, _ = read_until_closed(sock)
    sock.close()
    assert closed or status_of(raw) == 408
    assert time.monotonic() - started < LIMITS.read_timeout + SLACK_SECONDS


def test_silent_and_kept_alive_connections_are_closed(server: BotServer) -> None:
    silent = connect(server)
    raw, seconds = read_until_closed(silent)
    silent.close()
    assert status_of(raw) == 408 and seconds < LIMITS.read_timeout + SLACK_SECONDS

    # a kept-alive connection that starts a second request and stalls
    sock = connect(server)
    sock.sendall(b"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
    first = b""
    while b"\r\n\r\n" not in first or not first.endswith(b"Not Found"):
        first += sock.recv(4096)
    assert status_of(first) == 404
    sock.sendall(b"GET /nope HTTP/1.1\r\nHost: x\r\nX-Slow:")
    raw, seconds = read_until_closed(sock)
    sock.close()
    assert status_of(raw) == 408
    assert seconds < LIMITS.read_timeout + SLACK_SECONDS


def test_stalled_body_is_answered_408(
    server: BotServer, stderr_log: Callable[[], list[dict[str, Any]]]
) -> None:
    sock = connect(server)
    sock.sendall(
        b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"type": '
    )
    raw, seconds = read_until_closed(sock)
    sock.close()
    assert status_of(raw) == 408
    assert LIMITS.read_timeout * 0.9 <= seconds < LIMITS.read_timeout + SLACK_SECONDS
    (line,) = records_with(stderr_log(), "request body not received in time")
    assert line["status"] == 408


def test_stalled_connections_hold_no_thread_and_do_not_block_requests(
    server: BotServer,
) -> None:
    threads_before = threading.active_count()
    stalled = []
    for i in range(LIMITS.max_connections // 2):
        sock = connect(server)
        if i % 2:
            sock.sendall(b"POST /slack/events HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        else:
            sock.sendall(b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{")
        stalled.append(sock)
    time.sleep(0.2)
    assert threading.active_count() - threads_before <= 2  # no thread per connection
    started = time.monotonic()
    status, data = slash(server, "answered while others stall")
    assert status == 200 and b"answered while others stall" in data
    assert time.monotonic() - started < LIMITS.read_timeout  # not after the stalls time out
    for sock in stalled:
        raw, _ = read_until_closed(sock)
        assert status_of(raw) == 408
        sock.close()
    deadline = time.monotonic() + SLACK_SECONDS
    while server.open_connections and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.open_connections == 0


def test_connections_beyond_the_bound_are_closed_at_once(
    fake_slack: FakeSlackAPI,
    runtime: Runtime,
    stderr_log: Callable[[], list[dict[str, Any]]],
) -> None:
    limits = ServerLimits(read_timeout=1.0, max_connections=5, shutdown_timeout=5)
    with BotServer(slack_app(fake_slack), runtime, host="127.0.0.1", port=0, limits=limits) as srv:
        held = [connect(srv) for _ in range(limits.max_connections)]
        for sock in held:
            sock.sendall(b"GET /healthz HTTP/1.1\r\n")
        time.sleep(0.2)
        extra = connect(srv)
        raw, seconds = read_until_closed(extra)
        extra.close()
        assert raw == b"" and seconds < limits.read_timeout
        assert srv.open_connections == limits.max_connections
        assert records_with(stderr_log(), "refused a connection")
        for sock in held:  # the stalled ones time out and free their places
            read_until_closed(sock)
            sock.close()
        assert slash(srv, "after the stall")[0] == 200


def test_stop_finishes_a_request_in_progress(server: BotServer) -> None:
    result: dict[str, Any] = {}

    def call() -> None:
        result["status"], result["body"] = slash(server, "", command="/slow")

    client = threading.Thread(target=call)
    client.start()
    time.sleep(0.3)  # the listener is now sleeping before its ack
    server.stop()
    client.join(timeout=10)
    assert result == {"status": 200, "body": b"slow but done"}
    with pytest.raises(OSError):
        connect(server)


def test_uvicorn_logs_go_through_the_json_logger(
    server: BotServer, stderr_log: Callable[[], list[dict[str, Any]]]
) -> None:
    request(server, "GET", "/nope")
    server.stop()
    log = stderr_log()
    loggers = {r["logger"] for r in log}
    assert "uvicorn.error" in loggers
    assert records_with(log, "Started server process")
    assert records_with(log, "Shutting down")
    assert all("color_message" not in r for r in log)
    assert not [r for r in log if r["logger"] == "uvicorn.access"]  # kept at WARNING


def test_a_port_in_use_fails_in_the_constructor(runtime: Runtime, server: BotServer) -> None:
    with pytest.raises(OSError):
        BotServer(None, runtime, host="127.0.0.1", port=server.port)


# --------------------------------------------------------------------------- /metrics


def test_metrics_need_the_bearer_token(
    server: BotServer, stderr_log: Callable[[], list[dict[str, Any]]]
) -> None:
    status, headers, _ = request(server, "GET", "/metrics")
    assert status == 401 and headers["www-authenticate"] == "Bearer"
    wrong = {"Authorization": "Bearer not-the-token"}
    assert request(server, "GET", "/metrics", headers=wrong)[0] == 401
    assert request(server, "GET", "/metrics", headers={"Authorization": TOKEN})[0] == 401
    good = {"Authorization": f"Bearer {TOKEN}"}
    status, headers, body = request(server, "GET", "/metrics", headers=good)
    assert status == 200
    assert headers["content-type"].startswith("text/plain; version=")
    assert b"runbook_bot_requests_total" in body or b"runbook_bot_stage_seconds" in body
    refused = records_with(stderr_log(), "refused /metrics")
    assert len(refused) == 3 and all(TOKEN not in json.dumps(r) for r in refused)


def test_without_token_or_port_metrics_are_not_served(runtime: Runtime) -> None:
    with BotServer(
        None, runtime, host="127.0.0.1", port=0, metrics=Metrics().render, limits=LIMITS
    ) as srv:
        assert srv.metrics_port is None
        assert request(srv, "GET", "/metrics")[0] == 404
        assert request(srv, "GET", "/metrics", headers={"Authorization": "Bearer "})[0] == 404
        assert request(srv, "POST", "/slack/events", b"{}")[0] == 404  # Socket Mode: no app


def test_blank_token_does_not_open_metrics(runtime: Runtime) -> None:
    with BotServer(
        None, runtime, host="127.0.0.1", port=0, metrics=Metrics().render, metrics_token=""
    ) as srv:
        assert request(srv, "GET", "/metrics", headers={"Authorization": "Bearer "})[0] == 404


def test_metrics_port_serves_metrics_on_loopback_only(
    fake_slack: FakeSlackAPI, runtime: Runtime
) -> None:
    metrics = Metrics()
    metrics.request("slash_command", "answer")
    with BotServer(
        slack_app(fake_slack),
        runtime,
        host="0.0.0.0",
        port=0,
        metrics=metrics.render,
        metrics_port=0,
        limits=LIMITS,
    ) as srv:
        assert srv.metrics_port is not None and srv.metrics_port != srv.port
        assert srv.metrics_url == f"http://127.0.0.1:{srv.metrics_port}"
        status, _, body = request(srv, "GET", "/metrics", port=srv.metrics_port)
        assert status == 200
        assert b'runbook_bot_requests_total{outcome="answer",surface="slash_command"} 1.0' in body
        # the public port does not serve it; the metrics port serves nothing else
        assert request(srv, "GET", "/metrics")[0] == 404
        assert request(srv, "GET", "/healthz", port=srv.metrics_port)[0] == 404
        assert request(srv, "POST", "/slack/events", b"{}", port=srv.metrics_port)[0] == 404
        assert slash(srv, "public port still serves Slack")[0] == 200


def test_metrics_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUNBOOK_METRICS_TOKEN", "s3cret-token")
    monkeypatch.setenv("RUNBOOK_METRICS_PORT", "9464")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.metrics_token is not None
    assert settings.metrics_token.get_secret_value() == "s3cret-token"
    assert settings.metrics_port == 9464
    assert "s3cret-token" not in repr(settings)
    monkeypatch.setenv("RUNBOOK_METRICS_TOKEN", "  ")
    monkeypatch.delenv("RUNBOOK_METRICS_PORT")
    blank = Settings(_env_file=None)  # type: ignore[call-arg]
    assert blank.metrics_token is None and blank.metrics_port is None
