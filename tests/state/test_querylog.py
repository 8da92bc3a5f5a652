from __future__ import annotations

import dataclasses
import json
import logging
import stat
import time
from pathlib import Path

import pytest
import redis

from state.client import redis_client
from state.querylog import (
    FileQueryLog,
    QueryLogError,
    QueryRecord,
    RedisQueryLog,
    build_feedback,
    build_record,
    feedback_path_for,
    hash_user,
)
from tests.conftest import RedisServer

DAY = 86_400
SECRET_QUESTION = "deploy fails with xoxb-123456789012-abcdefghijklmnop and password=hunter2, why?"
SECRETS = ("xoxb-123456789012", "abcdefghijklmnop", "hunter2")


@pytest.fixture()
def client(redis_server: RedisServer) -> redis.Redis:
    return redis_client(redis_server.url)


def record(question: str = "how do I restart checkout?", ts: float | None = None) -> QueryRecord:
    return build_record(
        request_id="req-1",
        user_hash=hash_user("U123", "salt"),
        channel="C0SREPRIV1",
        scope_id="0123456789abcdef",
        question=question,
        state="answer",
        cited=("checkout-api/restart.md",),
        latencies_ms={"search": 12.5, "total": 40.0},
        cache_hit=False,
        service="checkout-api",
        cited_access={"checkout-api/restart.md": ["everyone"]},
        ts=ts,
    )


def raw_stream(client: redis.Redis, stream: str) -> bytes:
    """Every field name and value in the stream, as Redis holds them."""
    parts: list[bytes] = []
    for _id, fields in client.xrange(stream) or []:
        for name, value in (fields or {}).items():
            parts += [x if isinstance(x, bytes) else x.encode() for x in (name, value)]
    return b"\n".join(parts)


def test_hash_user_is_salted_and_stable(redis_server: RedisServer) -> None:
    assert hash_user("U123", "s1") == hash_user("U123", "s1")
    assert hash_user("U123", "s1") != hash_user("U123", "s2")
    assert hash_user("U123", "s1") != hash_user("U124", "s1")
    assert "U123" not in hash_user("U123", "s1")
    with pytest.raises(ValueError):
        hash_user("U123", "")


def test_question_is_stored_redacted(client: redis.Redis) -> None:
    log = RedisQueryLog(client, namespace="t")
    rec = record(SECRET_QUESTION)
    assert not any(s in rec.question for s in SECRETS)
    assert "[REDACTED" in rec.question and "deploy fails with" in rec.question
    log.record(rec)
    # a record built by hand, bypassing build_record, is redacted on the way out too
    log.record(dataclasses.replace(rec, request_id="req-2", question=SECRET_QUESTION))
    stored = log.recent(1)
    assert [r.request_id for r in stored] == ["req-1", "req-2"]
    assert all(r.question == rec.question for r in stored)
    raw = raw_stream(client, "t:querylog")
    assert b"req-2" in raw
    assert not any(s.encode() in raw for s in SECRETS)


def test_redis_round_trip_keeps_every_field(client: redis.Redis) -> None:
    log = RedisQueryLog(client, namespace="t")
    rec = record()
    log.record(rec)
    assert log.recent(1) == [rec]


def as_json(rec: QueryRecord) -> str:
    return json.dumps(dataclasses.asdict(rec))


def test_entries_written_before_cited_access_was_recorded_still_load(
    client: redis.Redis,
) -> None:
    log = RedisQueryLog(client, namespace="t")
    older = dataclasses.asdict(record())
    del older["cited_access"]
    client.xadd("t:querylog", {"json": json.dumps(older)})
    (loaded,) = log.recent(1)
    assert loaded.cited_access == {} and loaded.cited == ("checkout-api/restart.md",)


def test_retention_trims_the_stream_and_old_entries_are_never_returned(
    client: redis.Redis,
) -> None:
    log = RedisQueryLog(client, retention_days=30, namespace="t")
    now_ms = int(time.time() * 1000)
    forty_days_ago = now_ms - 40 * DAY * 1000
    for i in range(250):  # entries written 40 days ago (explicit stream ids)
        old = record(ts=forty_days_ago / 1000 + i)
        old = dataclasses.replace(old, request_id=f"old-{i}")
        client.xadd("t:querylog", {"json": as_json(old)}, id=f"{forty_days_ago + i}-0")
    recent = dataclasses.replace(record(ts=time.time() - 2 * DAY), request_id="two-days")
    client.xadd("t:querylog", {"json": as_json(recent)}, id=f"{now_ms - 2 * DAY * 1000}-0")
    assert client.xlen("t:querylog") == 251

    log.record(record())  # XADD ... MINID ~ <now - 30 days>
    assert client.xlen("t:querylog") < 150  # whole stream nodes of old entries went
    # whatever `~` left behind is past the retention and never returned
    assert [r.request_id for r in log.recent(365)] == ["two-days", "req-1"]
    assert [r.request_id for r in log.recent(1)] == ["req-1"]


def test_redis_feedback_round_trip(client: redis.Redis) -> None:
    log = RedisQueryLog(client, namespace="t")
    fb = build_feedback(
        request_id="req-1",
        user_hash=hash_user("U1", "salt"),
        value="not_helpful",
        question="why is xoxb-123456789012-abcdefghijklmnop rejected",
        service="checkout-api",
        cited=("a.md", "b.md"),
        cited_access={"a.md": ("sre",), "b.md": ("everyone", "external")},
    )
    assert "xoxb" not in fb.question
    log.record_feedback(fb)
    assert log.recent_feedback(1) == [fb]
    assert log.recent(1) == []  # a separate stream
    assert b"xoxb" not in raw_stream(client, "t:feedback")


def test_redis_down_drops_records_and_logs_once(
    client: redis.Redis, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="runbook_bot.querylog")
    log = RedisQueryLog(client, namespace="t", retry_after_seconds=0.0)
    redis_server.stop()
    for _ in range(3):
        log.record(record())
        log.record_feedback(
            build_feedback(request_id="r", user_hash="h", value="helpful", question="q")
        )
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and warnings[0].name == "runbook_bot.querylog"
    with pytest.raises(QueryLogError):
        log.recent(1)
    redis_server.start()
    log.record(record())
    assert [r.request_id for r in log.recent(1)] == ["req-1"]
    assert [r.getMessage() for r in caplog.records].count("query log resumed") == 1


def test_file_log_round_trip_and_prune(tmp_path: Path, redis_server: RedisServer) -> None:
    path = tmp_path / "logs" / "queries.jsonl"
    log = FileQueryLog(path, retention_days=30)
    assert log.recent(1) == [] and log.recent_feedback(1) == []
    fresh = record(SECRET_QUESTION)
    old = dataclasses.replace(record(ts=time.time() - 40 * DAY), request_id="old")
    week = dataclasses.replace(record(ts=time.time() - 7 * DAY), request_id="week")
    for rec in (old, week, fresh):
        log.record(rec)
    with path.open("a") as fh:
        fh.write('{"truncated": \n')
    assert not any(s in path.read_text() for s in SECRETS)
    assert log.recent(1) == [fresh]
    assert [r.request_id for r in log.recent(365)] == ["week", "req-1"]  # retention caps

    fb = build_feedback(request_id="req-1", user_hash="h", value="helpful", question="q?")
    log.record_feedback(fb)
    assert log.feedback_path == tmp_path / "logs" / "queries.feedback.jsonl"
    assert log.recent_feedback(1) == [fb]

    assert log.prune() == 2  # the 40-day-old record and the unreadable line
    assert len(path.read_text().splitlines()) == 2
    assert log.recent(365) == [week, fresh]
    assert log.prune() == 0


def test_feedback_path_naming(redis_server: RedisServer) -> None:
    assert feedback_path_for(Path("/x/q.jsonl")) == Path("/x/q.feedback.jsonl")
    assert feedback_path_for(Path("/x/q.log")) == Path("/x/q.log.feedback.jsonl")


def test_feedback_value_is_checked(redis_server: RedisServer) -> None:
    with pytest.raises(ValueError):
        build_feedback(request_id="r", user_hash="h", value="meh", question="q")  # type: ignore[arg-type]


def test_file_log_write_errors_are_logged_once_not_raised(
    tmp_path: Path, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    log = FileQueryLog(blocker / "queries.jsonl")
    log.record(record())
    log.record(record())
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1


def test_file_logs_are_private_also_when_they_existed(tmp_path: Path) -> None:
    path = tmp_path / "queries.jsonl"
    feedback = feedback_path_for(path)
    feedback.write_text("")
    feedback.chmod(0o644)  # left by an older version
    log = FileQueryLog(path, retention_days=30)
    log.record(record())
    log.record_feedback(
        build_feedback(request_id="r", user_hash="h", value="helpful", question="q")
    )
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(feedback.stat().st_mode) == 0o600

    log.record(dataclasses.replace(record(ts=time.time() - 40 * DAY), request_id="old"))
    assert log.prune() == 1  # rewritten through a new file: still private
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
