"""User-group members cached in Redis for every replica, in the process while it is down."""

from __future__ import annotations

import logging

import pytest
import redis

from retrieval.permissions import PermissionResolver, Scope
from state.client import redis_client
from state.usergroups import UsergroupCache
from tests.conftest import RedisServer
from tests.retrieval.test_permissions import SRE_MAP, Directory


@pytest.fixture()
def client(redis_server: RedisServer) -> redis.Redis:
    return redis_client(redis_server.url)


def test_memberships_are_cached_in_redis_for_all_replicas(client: redis.Redis) -> None:
    directory = Directory({"sre-oncall": {"U1"}, "dba-team": set()})
    resolver = PermissionResolver(SRE_MAP, directory, UsergroupCache(client, ttl_seconds=600))
    resolver.scope_for_user("U1")
    resolver.scope_for_user("U2")
    assert sorted(directory.calls) == ["dba-team", "sre-oncall"]
    assert client.get("rbb:ug:sre-oncall") == b'["U1"]'
    assert 0 < client.ttl("rbb:ug:sre-oncall") <= 600
    replica = PermissionResolver(SRE_MAP, Directory({}, failing={"*"}), UsergroupCache(client))
    assert replica.scope_for_user("U1") == Scope(frozenset({"everyone", "sre"}))


def test_invalidate_usergroup(client: redis.Redis) -> None:
    directory = Directory({"sre-oncall": {"U1"}, "dba-team": {"U1"}})
    resolver = PermissionResolver(SRE_MAP, directory, UsergroupCache(client))
    assert resolver.scope_for_user("U1").groups == {"everyone", "sre", "dba"}
    directory.members_by_handle["sre-oncall"] = set()
    directory.members_by_handle["dba-team"] = set()
    assert resolver.scope_for_user("U1").groups == {"everyone", "sre", "dba"}  # cached
    resolver.invalidate_usergroup("@sre-oncall")
    assert resolver.scope_for_user("U1").groups == {"everyone", "dba"}
    # Slack's subteam_members_changed carries the subteam id: everything is refreshed
    resolver.invalidate_usergroup("S0123ABCD")
    assert resolver.scope_for_user("U1").groups == {"everyone"}


def test_cache_in_process_while_redis_is_down(
    client: redis.Redis, redis_server: RedisServer
) -> None:
    directory = Directory({"sre-oncall": {"U1"}, "dba-team": set()})
    resolver = PermissionResolver(
        SRE_MAP, directory, UsergroupCache(client, retry_after_seconds=0.0)
    )
    redis_server.stop()
    assert resolver.scope_for_user("U1").groups == {"everyone", "sre"}
    assert resolver.scope_for_user("U1").groups == {"everyone", "sre"}
    assert sorted(directory.calls) == ["dba-team", "sre-oncall"]  # once each
    directory.members_by_handle["sre-oncall"] = set()
    resolver.invalidate_usergroup("sre-oncall")
    assert resolver.scope_for_user("U1").groups == {"everyone"}
    redis_server.start()
    assert resolver.scope_for_user("U1").groups == {"everyone"}


def test_a_forgotten_usergroup_is_forgotten_by_every_replica(client: redis.Redis) -> None:
    a, b = UsergroupCache(client, namespace="t"), UsergroupCache(client, namespace="t")
    a.put_many({"sre-oncall": frozenset({"U1"})})
    assert b.get_many(["sre-oncall", "dba-team"]) == {"sre-oncall": frozenset({"U1"})}
    b.forget(["sre-oncall"])
    assert a.get_many(["sre-oncall"]) == {}  # a's own copy is not read while Redis answers
    assert client.keys("t:*") == []


def test_unreadable_entries_are_misses(client: redis.Redis) -> None:
    cache = UsergroupCache(client)
    client.set(cache.key("a"), "not json")
    client.set(cache.key("b"), '{"U1": true}')
    client.set(cache.key("c"), '["U1", 2]')
    assert cache.get_many(["a", "b", "c"]) == {}


def test_down_redis_is_warned_about_once(
    client: redis.Redis, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="runbook_bot.permissions")
    cache = UsergroupCache(client, retry_after_seconds=0.0)
    redis_server.stop()
    cache.put_many({"sre-oncall": frozenset({"U1"})})
    assert cache.get_many(["sre-oncall"]) == {"sre-oncall": frozenset({"U1"})}
    cache.forget(["sre-oncall"])
    assert cache.get_many(["sre-oncall"]) == {}
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and warnings[0].startswith("usergroup cache unavailable")
    redis_server.start()
    assert cache.get_many(["sre-oncall"]) == {}
    assert [r.getMessage() for r in caplog.records].count("usergroup cache resumed") == 1
