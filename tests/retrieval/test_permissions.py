from __future__ import annotations

import itertools
import logging
from collections.abc import Mapping
from pathlib import Path

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.models import DEFAULT_ACCESS_GROUP, Citation, SearchFilter
from retrieval.cache import CacheKey, RedisAnswerCache, redis_client
from retrieval.permissions import (
    AccessMap,
    AccessMapError,
    DirectoryError,
    GroupRule,
    PermissionResolver,
    Scope,
    load_access_map,
    split_for_audience,
)
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


def citation(source_id: str, access: tuple[str, ...]) -> Citation:
    return Citation(
        source_id=source_id,
        title=source_id,
        section="s",
        path=source_id,
        url=None,
        revision="r1",
        start=0,
        end=1,
        line=1,
        quote="q",
        owner=None,
        updated=None,
        age_days=None,
        access=access,
    )


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
    resolver = PermissionResolver(SRE_MAP, directory, client)
    assert resolver.scope_for_user("U9") == Scope(frozenset({"everyone"}))
    assert resolver.scope_for_user("U1") == Scope(frozenset({"everyone", "sre"}))
    assert resolver.scope_for_user("U0SRE0001") == Scope(frozenset({"everyone", "sre", "dba"}))
    assert resolver.scope_for_user("U2").groups == {"everyone", "dba"}


def test_memberships_are_cached_in_redis_for_all_replicas(client: redis.Redis) -> None:
    directory = Directory({"sre-oncall": {"U1"}, "dba-team": set()})
    resolver = PermissionResolver(SRE_MAP, directory, client, ttl_seconds=600)
    resolver.scope_for_user("U1")
    resolver.scope_for_user("U2")
    assert sorted(directory.calls) == ["dba-team", "sre-oncall"]
    assert client.get("rbb:ug:sre-oncall") == b'["U1"]'
    assert 0 < client.ttl("rbb:ug:sre-oncall") <= 600
    replica = PermissionResolver(SRE_MAP, Directory({}, failing={"*"}), client)
    assert replica.scope_for_user("U1") == Scope(frozenset({"everyone", "sre"}))


def test_directory_failure_fails_closed(
    client: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    directory = Directory({"sre-oncall": {"U0SRE0001", "U1"}}, failing={"*"})
    resolver = PermissionResolver(SRE_MAP, directory, client)
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


def test_invalidate_usergroup(client: redis.Redis) -> None:
    directory = Directory({"sre-oncall": {"U1"}, "dba-team": {"U1"}})
    resolver = PermissionResolver(SRE_MAP, directory, client)
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
    resolver = PermissionResolver(SRE_MAP, directory, client, retry_after_seconds=0.0)
    redis_server.stop()
    assert resolver.scope_for_user("U1").groups == {"everyone", "sre"}
    assert resolver.scope_for_user("U1").groups == {"everyone", "sre"}
    assert sorted(directory.calls) == ["dba-team", "sre-oncall"]  # once each
    directory.members_by_handle["sre-oncall"] = set()
    resolver.invalidate_usergroup("sre-oncall")
    assert resolver.scope_for_user("U1").groups == {"everyone"}
    redis_server.start()
    assert resolver.scope_for_user("U1").groups == {"everyone"}


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


def test_split_for_audience(redis_server: RedisServer) -> None:
    public = citation("public.md", ("everyone",))
    sre = citation("sre.md", ("sre",))
    both = citation("both.md", ("sre", "dba"))
    nobody = citation("nobody.md", ())
    cites = [sre, public, both, nobody]
    visible, private = split_for_audience(cites, Scope(frozenset({"everyone"})))
    assert (visible, private) == ([public], [sre, both, nobody])
    visible, private = split_for_audience(cites, Scope(frozenset({"everyone", "dba"})))
    assert (visible, private) == ([public, both], [sre, nobody])


# --- the property: nothing reaches a channel that someone in it may not read ------------

GROUP_POOL = ("everyone", "sre", "dba", "security", "payments")
USER_POOL = tuple(f"U{i}" for i in range(6))
USERGROUP_POOL = ("ug-a", "ug-b", "ug-c", "ug-d")
CHANNEL_POOL = ("C1", "C2", "C3", "C4")
ACCESS_POOL = (*GROUP_POOL, "unlisted")  # documents may name groups the map does not


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
CITATIONS = st.lists(
    st.lists(st.sampled_from(ACCESS_POOL), max_size=3, unique=True).map(tuple), max_size=8
).map(lambda accesses: [citation(f"doc{i}.md", a) for i, a in enumerate(accesses)])


def true_groups(amap: AccessMap, members: Mapping[str, set[str]], user: str) -> set[str]:
    """What the user is really in, computed from the map directly (no resolver)."""
    groups = {DEFAULT_ACCESS_GROUP}
    for name, rule in amap.groups.items():
        if user in rule.users or any(user in members[h] for h in rule.usergroups):
            groups.add(name)
    return groups


@settings(
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(amap=ACCESS_MAPS, members=MEMBERS, failing=FAILING, cites=CITATIONS)
def test_property_channel_replies_only_cite_what_the_whole_audience_may_read(
    client: redis.Redis,
    amap: AccessMap,
    members: dict[str, set[str]],
    failing: set[str],
    cites: list[Citation],
) -> None:
    client.flushdb()
    resolver = PermissionResolver(
        amap, Directory(members, failing), client, directory_retry_after_seconds=0.0
    )
    answers = RedisAnswerCache(client, ttl_seconds=60)
    scopes = {u: resolver.scope_for_user(u) for u in USER_POOL}
    truth = {u: true_groups(amap, members, u) for u in USER_POOL}

    for user, scope in scopes.items():
        # fail closed: never a group the user is not in; exact when complete
        assert scope.groups <= truth[user]
        if scope.complete:
            assert scope.groups == truth[user]

    for user, channel in itertools.product(USER_POOL, (*CHANNEL_POOL, "C-unlisted", None)):
        audience = resolver.audience_for_channel(channel)
        listing = {g for g, rule in amap.groups.items() if channel in rule.channels}
        assert audience.groups == listing | {DEFAULT_ACCESS_GROUP}
        # who may be in the channel: everyone the map puts in all of the audience's groups
        possible_members = [u for u in USER_POOL if audience.groups <= truth[u]]
        # what the search returns for this user: only what they may read
        readable = [c for c in cites if scopes[user].groups.intersection(c.access)]
        for candidates in (readable, cites):
            visible, private = split_for_audience(candidates, audience)
            shown = {id(c) for c in visible}
            # a partition of the candidates, each part in the original order
            assert [id(c) for c in visible + private] == [
                id(c) for c in candidates if id(c) in shown
            ] + [id(c) for c in candidates if id(c) not in shown]
            for c in visible:
                assert audience.groups.intersection(c.access)
                for member in possible_members:
                    assert truth[member].intersection(c.access), (c.access, member)
            for c in candidates:
                if not audience.groups.intersection(c.access):
                    assert id(c) not in shown  # readable only outside the audience

    # answer cache keys never collide across different scopes (and agree for equal ones)
    all_scopes = [*scopes.values()] + [
        resolver.audience_for_channel(c) for c in (*CHANNEL_POOL, None)
    ]
    keys = []
    for scope in all_scopes:
        key = CacheKey("how do I restart checkout?", scope.scope_id, 7, "extractive")
        keys.append((scope.groups, scope.scope_id, key.digest(), answers.redis_key(key)))
    for a, b in itertools.combinations(keys, 2):
        same = a[0] == b[0]  # same groups
        assert (a[1] == b[1]) is same  # scope id
        assert (a[2] == b[2]) is same  # cache key digest
        assert (a[3] == b[3]) is same  # Redis key
