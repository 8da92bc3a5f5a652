from __future__ import annotations

import logging
import threading

import pytest
import redis

from state.client import redis_client
from state.dedup import Deduplicator
from tests.conftest import RedisServer


@pytest.fixture()
def client(redis_server: RedisServer) -> redis.Redis:
    return redis_client(redis_server.url)


def test_first_time_once_across_two_replicas(client: redis.Redis) -> None:
    a = Deduplicator(client, ttl_seconds=60, namespace="t")
    b = Deduplicator(client, ttl_seconds=60, namespace="t")
    assert a.first_time("Ev01") is True
    assert a.first_time("Ev01") is False  # Slack's retry to the same replica
    assert b.first_time("Ev01") is False  # ... or to another one
    assert b.first_time("Ev02") is True
    assert a.first_time("Ev02") is False
    assert 0 < client.ttl("t:seen:Ev01") <= 60


def test_concurrent_deliveries_are_claimed_exactly_once(client: redis.Redis) -> None:
    replicas = [Deduplicator(client, namespace="t") for _ in range(3)]
    results: list[bool] = []
    lock = threading.Lock()

    def deliver(d: Deduplicator) -> None:
        claimed = d.first_time("Ev-concurrent")
        with lock:
            results.append(claimed)

    threads = [threading.Thread(target=deliver, args=(replicas[i % 3],)) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False] * 23 + [True]


def test_falls_back_to_this_process_when_redis_is_down(
    client: redis.Redis, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="runbook_bot.dedup")
    d = Deduplicator(client, ttl_seconds=60, namespace="t", retry_after_seconds=0.0)
    assert d.first_time("before") is True
    redis_server.stop()
    assert d.first_time("during") is True
    assert d.first_time("during") is False
    assert d.first_time("before") is False
    assert d.first_time("during-2") is True
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and warnings[0].name == "runbook_bot.dedup"

    redis_server.start()  # empty: the claims made during the outage are not in Redis
    assert d.first_time("during") is False  # still remembered by this process
    assert d.first_time("after") is True
    assert Deduplicator(client, namespace="t").first_time("after") is False
    assert [r.getMessage() for r in caplog.records].count("dedup resumed") == 1


def test_local_memory_expires_and_is_bounded(redis_server: RedisServer) -> None:
    now = [0.0]
    d = Deduplicator(None, ttl_seconds=10, max_local_entries=3, clock=lambda: now[0])
    assert d.first_time("a") is True
    assert d.first_time("a") is False
    now[0] = 11.0
    assert d.first_time("a") is True  # expired
    for k in "bcde":
        assert d.first_time(k) is True
    assert d.local_size() == 3  # the oldest were dropped
    assert d.first_time("e") is False


def test_rejects_empty_keys_and_bad_settings(redis_server: RedisServer) -> None:
    with pytest.raises(ValueError):
        Deduplicator(None).first_time("")
    with pytest.raises(ValueError):
        Deduplicator(None, ttl_seconds=0)
