"""The one fail-soft Redis helper: fallbacks, one warning per outage, retry interval."""

from __future__ import annotations

import logging

import pytest
import redis

from core.health import ServiceHealth
from state.client import redis_client
from state.fail_soft import UNAVAILABLE, FailSoftRedis
from tests.conftest import RedisServer

LOG = logging.getLogger("runbook_bot.test-state")


def helper(client: redis.Redis | None, clock: list[float]) -> FailSoftRedis:
    return FailSoftRedis(
        client,
        logger=LOG,
        name="thing",
        fallback="doing without",
        namespace="t",
        retry_after_seconds=5.0,
        clock=lambda: clock[0],
    )


def test_calls_redis_with_namespaced_keys(redis_server: RedisServer) -> None:
    client = redis_client(redis_server.url)
    r = helper(client, [0.0])
    assert r.key("seen", "Ev1") == "t:seen:Ev1"
    assert r.run(lambda c: c.set(r.key("x"), "1"), UNAVAILABLE) is True
    assert r.run(lambda c: c.get(r.key("x")), UNAVAILABLE) == b"1"
    assert r.run(lambda c: c.get(r.key("missing")), UNAVAILABLE) is None  # an answer
    assert client.keys("*") == [b"t:x"]


def test_no_client_takes_the_fallback_quietly(caplog: pytest.LogCaptureFixture) -> None:
    r = helper(None, [0.0])
    assert not r.usable()
    assert r.run(lambda c: c.ping(), "fallback") == "fallback"
    assert caplog.records == []


def test_an_outage_warns_once_waits_the_interval_and_notes_the_recovery(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOG.name)
    now = [100.0]
    r = helper(redis_client(redis_server.url), now)
    calls: list[str] = []

    def ping(c: redis.Redis) -> bool:
        calls.append("ping")
        return bool(c.ping())

    redis_server.stop()
    assert r.run(ping, UNAVAILABLE) is UNAVAILABLE
    assert r.health.down and not r.usable()
    assert r.run(ping, UNAVAILABLE) is UNAVAILABLE
    assert calls == ["ping"]  # not asked again within the interval
    now[0] += 5.0
    assert r.run(ping, UNAVAILABLE) is UNAVAILABLE  # asked again: still down
    assert calls == ["ping", "ping"]
    redis_server.start()
    assert r.run(ping, UNAVAILABLE) is UNAVAILABLE  # inside the new interval
    assert r.run(ping, UNAVAILABLE, always=True) is True  # an invalidation asks anyway
    assert not r.health.down
    messages = [(rec.levelno, rec.getMessage()) for rec in caplog.records]
    assert [m for level, m in messages if level == logging.WARNING] == [
        "thing unavailable (ConnectionError: Error 111 connecting to "
        f"127.0.0.1:{redis_server.port}. Connection refused.); doing without"
    ]
    assert [m for _, m in messages].count("thing resumed") == 1


def test_service_health_retry_interval() -> None:
    now = [100.0]
    health = ServiceHealth(logging.getLogger("t"), "x", "y", 5.0, clock=lambda: now[0])
    assert health.usable()
    health.failed(ConnectionError("boom"))
    assert health.down and not health.usable()
    now[0] += 5.0
    assert health.usable()
    health.ok()
    assert not health.down
