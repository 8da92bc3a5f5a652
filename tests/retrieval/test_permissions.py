from __future__ import annotations

import itertools
import logging
from collections.abc import Mapping
from pathlib import Path

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.models import DEFAULT_ACCESS_GROUP, SearchFilter
from retrieval.permissions import (
    AccessMap,
    AccessMapError,
    DirectoryError,
    GroupRule,
    PermissionResolver,
    Scope,
    load_access_map,
)
from state.client import redis_client
from state.usergroups import UsergroupCache
from tests.conftest import SAMPLE_RUNBOOKS, RedisServer

SRE_MAP = AccessMap(
    groups={
        "sre": GroupRule(usergroups=("sre-oncall",), users=("U0SRE0001",), channels=("C0SRE",)),
        "dba": GroupRule(usergroups=("dba-team",), channels=("C0SRE", "C0DBA")),
        "everyone": GroupRule(),
    }
)


class Directory:
    """A user-group directory in memory: counts lookups, fails for chosen handles."""

    def __init__(self, members: Mapping[str, set[str]], failing: set[str] | None = None) -> None:
        self.members_by_handle = {h: set(ids) for h, ids in members.items()}
        self.failing = set(failing or ())
        self.calls: list[str] = []

    def members(self, handle: str) -> frozenset[str]:
        self.calls.append(handle)
        if handle in self.failing or "*" in self.failing:
            raise DirectoryError(f"slack is down ({handle})")
        return frozenset(self.members_by_handle.get(handle, set()))


@pytest.fixture()
def client(redis_server: RedisServer) -> redis.Redis:
    return redis_client(redis_server.url)


# --- the access map --------------------------------------------------------------------


def test_loads_the_sample_access_map(redis_server: RedisServer) -> None:
    amap = load_access_map(SAMPLE_RUNBOOKS / "access.yml")
    assert amap.groups["sre"] == GroupRule(
        usergroups=("sre-oncall",), users=("U0SRE0001",), channels=("C0SREPRIV1",)
    )
    assert amap.groups["everyone"] == GroupRule()
    assert amap.groups["external"] == GroupRule()  # runbooks shareable outside the company
    assert amap.known_groups == {"sre", "external", DEFAULT_ACCESS_GROUP}


def test_missing_access_map_is_empty(tmp_path: Path, redis_server: RedisServer) -> None:
    assert load_access_map(None) == AccessMap()
    assert load_access_map(tmp_path / "nope.yml").groups == {}
    (tmp_path / "empty.yml").write_text("# nothing yet\n")
    assert load_access_map(tmp_path / "empty.yml").known_groups == {DEFAULT_ACCESS_GROUP}


def test_handles_lose_their_at_and_empty_rules_are_allowed(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    path = tmp_path / "access.yml"
    path.write_text("groups:\n  sre:\n    usergroups: ['@sre-oncall']\n    users:\n  everyone:\n")
    amap = load_access_map(path)
    assert amap.groups["sre"].usergroups == ("sre-oncall",)
    assert amap.groups["everyone"] == GroupRule()


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("groups:\n  sre:\n    usergroups: [a, b\n", 4, "invalid YAML"),
        ("groups:\n  sre:\n    userz: [U1]\n", 3, "groups.sre.userz"),
        ("groups:\n  sre:\n    users:\n      - U1\n      - 42\n", 5, "groups.sre.users.1"),
        ("groups:\n  sre:\n    channels: C0SRE\n", 3, "groups.sre.channels"),
        ("groups:\n  sre: {}\n  dba: {}\n  sre: {}\n", 4, "duplicate key 'sre'"),
        ("- just\n- a list\n", 1, "top level"),
    ],
)
def test_invalid_access_map_names_file_and_line(
    tmp_path: Path, redis_server: RedisServer, text: str, line: int, fragment: str
) -> None:
    path = tmp_path / "access.yml"
    path.write_text(text)
    with pytest.raises(AccessMapError) as err:
        load_access_map(path)
    assert err.value.path == path and err.value.line == line
    assert str(err.value).startswith(f"{path}:{line}: ")
    assert fragment in str(err.value)


# --- scopes ----------------------------------------------------------------------------


def test_scope_id_and_filter(redis_server: RedisServer) -> None:
    a = Scope(frozenset({"sre", "everyone"}))
    assert a.scope_id == Scope(frozenset({"everyone", "sre"}), complete=False).scope_id
    assert a.scope_id != Scope(frozenset({"everyone"})).scope_id
    assert len(a.scope_id) == 16
    assert a.as_filter() == SearchFilter(groups=("everyone", "sre"))


def test_scope_for_user_combines_default_explicit_and_usergroups(client: redis.Redis) -> None:
    directory = Directory({"sre-oncall": {"U1"}, "dba-team": {"U2", "U0SRE0001"}})
    resolver = PermissionResolver(SRE_MAP, directory, UsergroupCache(client))
    assert resolver.scope_for_user("U9") == Scope(frozenset({"everyone"}))
    assert resolver.scope_for_user("U1") == Scope(frozenset({"everyone", "sre"}))
    assert resolver.scope_for_user("U0SRE0001") == Scope(frozenset({"everyone", "sre", "dba"}))
    assert resolver.scope_for_user("U2").groups == {"everyone", "dba"}


def test_directory_failure_fails_closed(
    client: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    directory = Directory({"sre-oncall": {"U0SRE0001", "U1"}}, failing={"*"})
    resolver = PermissionResolver(SRE_MAP, directory, UsergroupCache(client))
    # U1 is in sre-oncall, but Slack cannot confirm it: no sre
    assert resolver.scope_for_user("U1") == Scope(frozenset({"everyone"}), complete=False)
    # explicit users keep their explicit groups
    assert resolver.scope_for_user("U0SRE0001") == Scope(
        frozenset({"everyone", "sre"}), complete=False
    )
    assert client.exists("rbb:ug:sre-oncall") == 0  # failures are not cached
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and warnings[0].name == "runbook_bot.permissions"


def test_no_directory_means_incomplete_when_usergroups_matter(redis_server: RedisServer) -> None:
    resolver = PermissionResolver(SRE_MAP, None)
    assert resolver.scope_for_user("U1") == Scope(frozenset({"everyone"}), complete=False)
    plain = AccessMap(groups={"sre": GroupRule(users=("U1",))})
    assert PermissionResolver(plain, None).scope_for_user("U1") == Scope(
        frozenset({"everyone", "sre"})
    )


def test_directory_is_retried_after_the_interval(redis_server: RedisServer) -> None:
    now = [0.0]
    directory = Directory({"sre-oncall": {"U1"}}, failing={"*"})
    amap = AccessMap(groups={"sre": GroupRule(usergroups=("sre-oncall",))})
    resolver = PermissionResolver(
        amap, directory, directory_retry_after_seconds=10.0, clock=lambda: now[0]
    )
    assert not resolver.scope_for_user("U1").complete
    assert not resolver.scope_for_user("U1").complete
    assert directory.calls == ["sre-oncall"]  # not asked again within the interval
    directory.failing.clear()
    now[0] = 10.0
    assert resolver.scope_for_user("U1") == Scope(frozenset({"everyone", "sre"}))


def test_audience_for_channel(redis_server: RedisServer) -> None:
    resolver = PermissionResolver(SRE_MAP, None)
    assert resolver.audience_for_channel("C0SRE") == Scope(frozenset({"everyone", "sre", "dba"}))
    assert resolver.audience_for_channel("C0DBA").groups == {"everyone", "dba"}
    assert resolver.audience_for_channel("C0GENERAL").groups == {"everyone"}
    assert resolver.audience_for_channel("D0DIRECT").groups == {"everyone"}
    assert resolver.audience_for_channel(None).groups == {"everyone"}


def test_scope_for_groups_always_has_the_default(redis_server: RedisServer) -> None:
    resolver = PermissionResolver(SRE_MAP, None, default_group="all-staff")
    assert resolver.scope_for_groups(["sre", " ", "dba "]).groups == {"all-staff", "sre", "dba"}
    assert resolver.scope_for_groups([]).groups == {"all-staff"}
    assert resolver.audience_for_channel(None).groups == {"all-staff"}


# --- the property: scopes fail closed ---------------------------------------------------
# (what a channel is shown is checked on AnswerService.ask, tests/bot/test_service_audience.py)

GROUP_POOL = ("everyone", "sre", "dba", "security", "payments")
USER_POOL = tuple(f"U{i}" for i in range(6))
USERGROUP_POOL = ("ug-a", "ug-b", "ug-c", "ug-d")
CHANNEL_POOL = ("C1", "C2", "C3", "C4")

RULES = st.builds(
    GroupRule,
    usergroups=st.lists(st.sampled_from(USERGROUP_POOL), max_size=3).map(tuple),
    users=st.lists(st.sampled_from(USER_POOL), max_size=3).map(tuple),
    channels=st.lists(st.sampled_from(CHANNEL_POOL), max_size=3).map(tuple),
)
ACCESS_MAPS = st.dictionaries(st.sampled_from(GROUP_POOL), RULES).map(
    lambda groups: AccessMap(groups=groups)
)
MEMBERS = st.fixed_dictionaries({h: st.sets(st.sampled_from(USER_POOL)) for h in USERGROUP_POOL})
FAILING = st.sets(st.sampled_from(USERGROUP_POOL), max_size=2)


def true_groups(amap: AccessMap, members: Mapping[str, set[str]], user: str) -> set[str]:
    """What the user is really in, computed from the map directly (no resolver)."""
    groups = {DEFAULT_ACCESS_GROUP}
    for name, rule in amap.groups.items():
        if user in rule.users or any(user in members[h] for h in rule.usergroups):
            groups.add(name)
    return groups


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(amap=ACCESS_MAPS, members=MEMBERS, failing=FAILING)
def test_property_scopes_never_hold_a_group_the_user_is_not_in(
    client: redis.Redis,
    amap: AccessMap,
    members: dict[str, set[str]],
    failing: set[str],
) -> None:
    client.flushdb()
    resolver = PermissionResolver(
        amap,
        Directory(members, failing),
        UsergroupCache(client),
        directory_retry_after_seconds=0.0,
    )
    scopes = {u: resolver.scope_for_user(u) for u in USER_POOL}
    for user, scope in scopes.items():
        truth = true_groups(amap, members, user)
        assert scope.groups <= truth  # fail closed
        if scope.complete:
            assert scope.groups == truth
    for channel in (*CHANNEL_POOL, "C-unlisted", None):
        listing = {g for g, rule in amap.groups.items() if channel in rule.channels}
        assert resolver.audience_for_channel(channel).groups == listing | {DEFAULT_ACCESS_GROUP}
    # scope ids (part of every answer cache key) agree exactly when the groups do
    all_scopes = [*scopes.values()] + [
        resolver.audience_for_channel(c) for c in (*CHANNEL_POOL, None)
    ]
    for a, b in itertools.combinations(all_scopes, 2):
        assert (a.scope_id == b.scope_id) is (a.groups == b.groups)
