"""Sign-in states: each accepted once, only before it expires, with or without Redis."""

from __future__ import annotations

import time

import redis

from state.sign_in_states import RedisOAuthStateStore
from tests.conftest import RedisServer, free_port


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_state_is_accepted_once_across_replicas(redis_server: RedisServer) -> None:
    client = redis.Redis.from_url(redis_server.url)
    one = RedisOAuthStateStore(client, namespace="web-test")
    two = RedisOAuthStateStore(client, namespace="web-test")
    state = one.issue()
    assert len(state) >= 32
    assert client.ttl(one.key(state)) > 0
    assert two.consume(state) is True
    assert one.consume(state) is False
    assert one.consume("never-issued") is False
    assert one.consume("") is False


def test_states_expire(redis_server: RedisServer) -> None:
    client = redis.Redis.from_url(redis_server.url)
    clock = Clock()
    store = RedisOAuthStateStore(client, ttl_seconds=600, clock=clock)
    state = store.issue()
    assert 590 < client.ttl(store.key(state)) <= 600
    client.pexpire(store.key(state), 1)  # as if ten minutes had passed
    clock.now += 601
    time.sleep(0.05)
    assert store.consume(state) is False


def test_a_state_issued_while_redis_was_down_is_accepted_once_after(
    redis_server: RedisServer,
) -> None:
    store = RedisOAuthStateStore(redis.Redis.from_url(redis_server.url))
    redis_server.stop()
    state = store.issue()
    redis_server.start()
    assert store.consume(state) is True
    assert store.consume(state) is False


def test_without_redis_states_are_kept_in_the_process() -> None:
    down = redis.Redis(host="127.0.0.1", port=free_port(), socket_connect_timeout=0.2)
    clock = Clock()
    store = RedisOAuthStateStore(down, ttl_seconds=600, clock=clock)
    state = store.issue()
    assert store.consume(state) is True
    assert store.consume(state) is False
    late = store.issue()
    clock.now += 601
    assert store.consume(late) is False
