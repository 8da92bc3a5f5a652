"""Web sessions kept on the server: open until signed out or ended with every session of
the person; "unknown" (never "open") while Redis cannot say."""

from __future__ import annotations

import redis

from state.client import redis_client
from state.web_sessions import WebSession, WebSessionStore
from tests.conftest import RedisServer, free_port


def test_a_session_is_open_on_every_replica_until_it_ends(redis_server: RedisServer) -> None:
    client = redis.Redis.from_url(redis_server.url)
    one = WebSessionStore(client, 600, namespace="web-test")
    two = WebSessionStore(client, 600, namespace="web-test")
    sid = one.start("U1", "scope-a")
    assert two.find(sid) == WebSession("U1", "scope-a")
    assert not [k for k in client.keys("web-test:*") if sid.encode() in k]  # ids are hashed
    assert all(0 < int(client.ttl(k)) <= 600 for k in client.keys("web-test:*"))
    two.end(sid)
    assert one.find(sid) == "ended"
    assert one.find("never-started") == "ended" and one.find("") == "ended"


def test_ending_a_persons_sessions_ends_all_of_them_and_no_one_elses(
    redis_server: RedisServer,
) -> None:
    store = WebSessionStore(redis.Redis.from_url(redis_server.url), 600)
    laptop, phone, other = store.start("U1"), store.start("U1"), store.start("U2")
    assert store.end_all("U1") == 2
    assert store.find(laptop) == "ended" and store.find(phone) == "ended"
    assert store.find(other) == WebSession("U2", "")


def test_without_redis_no_session_is_open_and_an_end_is_kept_here(
    redis_server: RedisServer,
) -> None:
    good = redis_client(redis_server.url)
    other_replica = WebSessionStore(good, 600)
    sid = other_replica.start("U1")
    here = WebSessionStore(redis_client(f"redis://127.0.0.1:{free_port()}/0"), 600)
    assert here.find(sid) == "unknown"
    here.end(sid)  # Redis did not take it: this replica remembers
    here._redis.client = good  # Redis is back
    assert here.find(sid) == "ended"
    assert other_replica.find(sid) == WebSession("U1", "")
    assert WebSessionStore(None, 600).find(sid) == "unknown"
