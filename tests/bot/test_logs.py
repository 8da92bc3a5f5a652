"""bot.logs: JSON lines, request ids, and no secrets in the output."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
from collections.abc import Iterator

import pytest

from bot.logs import bind_request_id, configure_logging, current_request_id, new_request_id
from tests.conftest import logging_to

TOKEN = "xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx"


@pytest.fixture()
def stream() -> Iterator[io.StringIO]:
    """configure_logging into a buffer; the root logger is restored afterwards."""
    buf = io.StringIO()
    with logging_to(buf):
        yield buf


def lines(buf: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in buf.getvalue().splitlines()]


def test_json_shape(stream: io.StringIO) -> None:
    logging.getLogger("runbook_bot.test").info("hello %s", "world", extra={"state": "answer"})
    logging.getLogger("runbook_bot.test").debug("below the level")
    (line,) = lines(stream)
    assert set(line) == {"ts", "level", "logger", "msg", "state"}
    assert line["level"] == "INFO"
    assert line["logger"] == "runbook_bot.test"
    assert line["msg"] == "hello world"
    assert line["state"] == "answer"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", str(line["ts"]))


def test_request_id_propagates(stream: io.StringIO) -> None:
    log = logging.getLogger("runbook_bot.test")
    assert current_request_id() is None
    with bind_request_id("r-0123456789") as rid:
        assert rid == current_request_id() == "r-0123456789"
        log.info("outer")
        with bind_request_id() as inner:
            log.info("inner")

        async def task() -> None:
            log.info("in a task")

        asyncio.run(task())
    log.info("after")
    assert current_request_id() is None
    got = [(line["msg"], line.get("request_id")) for line in lines(stream)]
    assert got == [
        ("outer", "r-0123456789"),
        ("inner", inner),
        ("in a task", "r-0123456789"),
        ("after", None),
    ]


def test_explicit_request_id_in_extra_wins(stream: io.StringIO) -> None:
    with bind_request_id("r-aaaaaaaaaa"):
        logging.getLogger("x").info("answered", extra={"request_id": "r-bbbbbbbbbb"})
    assert lines(stream)[0]["request_id"] == "r-bbbbbbbbbb"


def test_new_request_id_format() -> None:
    ids = {new_request_id() for _ in range(100)}
    assert len(ids) == 100
    assert all(re.fullmatch(r"r-[0-9a-f]{10}", rid) for rid in ids)


def test_secrets_never_reach_the_output(stream: io.StringIO) -> None:
    log = logging.getLogger("slack_bolt.App")
    log.warning(f"question was: my token is {TOKEN}")
    log.warning("args: %s", TOKEN)
    log.warning("extra", extra={"question": f"use {TOKEN}", "nested": {"q": [TOKEN]}})
    try:
        raise ValueError(f"bad credentials {TOKEN}")
    except ValueError:
        log.exception("failed")
    out = stream.getvalue()
    assert TOKEN not in out
    assert "xoxb-1234" not in out
    assert out.count("[REDACTED:slack_token]") == 5
    assert "ValueError" in lines(stream)[-1]["exc"]  # type: ignore[operator]


def test_text_format() -> None:
    buf = io.StringIO()
    with logging_to(buf, "debug", "text"), bind_request_id("r-0000000001"):
        logging.getLogger("runbook_bot.t").debug("token %s", TOKEN, extra={"k": "v"})
    line = buf.getvalue().strip()
    assert re.fullmatch(
        r"\S+Z DEBUG runbook_bot\.t \[r-0000000001\] token \[REDACTED:slack_token\] k=v", line
    )


def test_configure_twice_replaces_the_handler(stream: io.StringIO) -> None:
    configure_logging("INFO", "json", stream=stream)
    logging.getLogger("x").info("once")
    assert len(stream.getvalue().splitlines()) == 1


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="log level"):
        configure_logging("LOUD")
    with pytest.raises(ValueError, match="log format"):
        configure_logging("INFO", "xml")


def test_json_bodies_in_log_lines_are_read_unescaped(stream: io.StringIO) -> None:
    # bolt logs response bodies as JSON: "\u201c" and "\"" hide a label from the patterns
    body = json.dumps(
        {"text": 'Searching runbooks for “pw: hunter2 fails” and password "Tr0ub4dor"'}
    )
    logging.getLogger("runbook_bot.bolt").warning('Responding with status: 200 body: "%s"', body)
    (line,) = lines(stream)
    assert "hunter2" not in json.dumps(line) and "Tr0ub4dor" not in json.dumps(line)
    assert "Searching runbooks for" in str(line["msg"])
