"""Short-lived shared values: Redis while it answers, this process while it is down."""

from __future__ import annotations

import logging

import pytest
import redis

from state.client import redis_client
from state.local_copy import LocalCopy
from state.ttl_store import TtlStore
from tests.conftest import RedisServer


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def client(redis_server: RedisServer) -> redis.Redis:
    return redis_client(redis_server.url)


def test_values_are_shared_by_replicas_and_expire(client: redis.Redis) -> None:
    a, b = TtlStore(client, "thread", "t"), TtlStore(client, "thread", "t")
    a.put("C1:1.0", "runbook-a", ttl=60)
    assert b.get("C1:1.0") == "runbook-a"
    assert 0 < client.ttl("t:thread:C1:1.0") <= 60
    b.delete("C1:1.0")
    assert client.exists("t:thread:C1:1.0") == 0


def test_one_claim_across_replicas(client: redis.Redis) -> None:
    a, b = TtlStore(client, "alert", "t"), TtlStore(client, "alert", "t")
    assert a.claim("fp", "first", ttl=60) is True
    assert b.claim("fp", "second", ttl=60) is False
    assert b.get("fp") == "first"


def test_counters_live_from_their_first_count(client: redis.Redis) -> None:
    store = TtlStore(client, "rate", "t")
    assert [store.count("C1", ttl=30) for _ in range(3)] == [1, 2, 3]
    assert 0 < client.ttl("t:rate:C1") <= 30


def test_a_value_put_without_mirror_is_taken_once_across_replicas(client: redis.Redis) -> None:
    a, b = TtlStore(client, "once", "t"), TtlStore(client, "once", "t")
    a.put("s", "1", ttl=60, mirror=False)
    assert b.take("s") == "1"
    assert a.take("s") is None
    assert b.take("s") is None


def test_while_redis_is_down_the_process_keeps_the_state(
    client: redis.Redis, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="runbook_bot.state")
    clock = Clock()
    store = TtlStore(client, "alert", "t", retry_after_seconds=0.0, clock=clock)
    store.put("before", "x", ttl=60)
    redis_server.stop()
    assert store.get("before") == "x"  # the in-process copy of what was written
    assert store.claim("fp", "1", ttl=60) is True
    assert store.claim("fp", "2", ttl=60) is False
    assert [store.count("C1", ttl=30) for _ in range(2)] == [1, 2]
    clock.now += 31
    assert store.count("C1", ttl=30) == 1  # the counter's window has passed
    clock.now += 30
    assert store.get("fp") is None  # expired
    store.put("once", "1", ttl=60, mirror=False)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and warnings[0].getMessage().startswith("alert store unavailable")

    redis_server.start()  # empty
    assert store.take("once") == "1"  # written while Redis was down: this process has it
    assert store.take("once") is None
    assert store.claim("fp", "3", ttl=60) is True  # Redis decides again
    assert [r.getMessage() for r in caplog.records].count("alert store resumed") == 1


def test_the_local_copy_is_bounded_and_expires() -> None:
    clock = Clock()
    copy: LocalCopy[str] = LocalCopy(2, clock)
    copy.put("a", "1", ttl=10)
    copy.put("b", "2", ttl=10)
    copy.put("c", "3", ttl=10)
    assert len(copy) == 2 and copy.get("a") is None  # the least recently used went
    assert copy.claim("b", "x", ttl=10) is False
    clock.now += 4
    assert copy.held("b") == ("2", 6.0)  # the value and the seconds it has left
    clock.now += 6
    assert copy.held("b") is None
    assert copy.get("b") is None and copy.pop("c") is None
    assert copy.claim("b", "x", ttl=10) is True
    assert copy.update("n", lambda old: (old or "") + "+", ttl=5) == "+"
    clock.now += 4
    assert copy.update("n", lambda old: (old or "") + "+", ttl=5) == "++"
    clock.now += 1
    assert copy.get("n") is None  # kept its first expiry
    with pytest.raises(ValueError):
        LocalCopy(0)


def test_a_claim_made_while_redis_was_down_holds_after_it_returns(
    client: redis.Redis, redis_server: RedisServer
) -> None:
    clock = Clock()
    a = TtlStore(client, "alert", "t", retry_after_seconds=0.0, clock=clock)
    b = TtlStore(client, "alert", "t", retry_after_seconds=0.0, clock=clock)  # another replica
    redis_server.stop()
    assert a.claim("fp", "first", ttl=60) is True
    a.put("fp", "first, answered", ttl=60)  # what was replied, kept with the claim
    assert a.claim("gone", "x", ttl=10) is True
    clock.now += 11  # "gone" expires before Redis is back

    redis_server.start()  # empty
    assert a.claim("fp", "second", ttl=60) is False  # still claimed within its TTL
    assert a.get("fp") == "first, answered"
    # put back into Redis with what is left of its TTL: other replicas see it too
    assert b.claim("fp", "third", ttl=60) is False and b.get("fp") == "first, answered"
    assert 0 < client.ttl("t:alert:fp") <= 49
    assert client.exists("t:alert:gone") == 0
    assert a.claim("gone", "y", ttl=10) is True  # expired: a new claim
    a.delete("fp")  # released: the next claim is a first again, on either replica
    assert b.claim("fp", "fourth", ttl=60) is True


def test_claims_made_while_redis_was_down_reach_it_on_the_next_call(
    client: redis.Redis, redis_server: RedisServer
) -> None:
    a = TtlStore(client, "alert", "t", retry_after_seconds=0.0)
    b = TtlStore(client, "alert", "t", retry_after_seconds=0.0)
    redis_server.stop()
    assert a.claim("C1:fp", "first", ttl=60) is True
    redis_server.start()
    assert a.get("C2:other") is None  # any call that reaches Redis puts the claims back
    assert b.claim("C1:fp", "second", ttl=60) is False


def test_a_claim_released_by_another_replica_is_not_held_by_this_ones_copy(
    client: redis.Redis,
) -> None:
    a, b = TtlStore(client, "alert", "t"), TtlStore(client, "alert", "t")
    assert a.claim("fp", "first", ttl=60) is True
    b.delete("fp")  # e.g. the alert resolved, delivered to the other replica
    assert a.claim("fp", "again", ttl=60) is True  # Redis decides, not a's own copy


def test_a_release_made_while_redis_was_unreachable_reaches_it_when_it_answers(
    client: redis.Redis, redis_server: RedisServer
) -> None:
    a = TtlStore(client, "alert", "t", retry_after_seconds=0.0)
    b = TtlStore(client, "alert", "t", retry_after_seconds=0.0)
    assert a.claim("fp", "first", ttl=60) is True
    assert a.claim("kept", "first", ttl=60) is True
    # Redis keeps its data but refuses the stores' connections for a while
    admin = redis_client(redis_server.url)
    admin.config_set("requirepass", "locked")
    admin.client_kill_filter(_type="normal", skipme=False)
    locked = redis.Redis.from_url(redis_server.url, password="locked")
    try:
        a.delete("fp")  # the alert resolved while Redis could not be reached
        a.delete("kept")
        locked.set("t:alert:kept", "another replica's claim")  # claimed anew meanwhile
        assert locked.exists("t:alert:fp") == 1  # Redis still holds the released claim
    finally:
        locked.config_set("requirepass", "")
    assert b.get("other") is None
    assert a.get("other") is None  # a's next call that reaches Redis applies the release
    assert client.exists("t:alert:fp") == 0
    assert b.claim("fp", "again", ttl=60) is True  # a first again, on either replica
    assert client.get("t:alert:kept") == b"another replica's claim"  # not undone
