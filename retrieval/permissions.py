"""Who may read what: the access map, a user's scope and a channel's audience.

A document lists the groups that may read it (``access``). The access map
(``runbooks/access.yml``) says who is in each group: Slack user groups (by handle),
explicit user ids, and channels whose *whole* audience belongs to the group.

* :meth:`PermissionResolver.scope_for_user` is what the asker may read; it filters search.
* :meth:`PermissionResolver.audience_for_channel` is what everyone in a channel may read;
  a reply posted there is answered for it (``bot.service.AnswerService.ask``).

Both fail closed: a user group that cannot be resolved grants nothing and marks the
scope incomplete.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import yaml
from pydantic import Field, ValidationError, field_validator

from core.health import ServiceHealth
from core.models import DEFAULT_ACCESS_GROUP, Chunk, Frozen, SearchFilter
from retrieval.errors import RetrievalError

log = logging.getLogger("runbook_bot.permissions")


def readable(chunk: Chunk, groups: Iterable[str] | None) -> bool:
    """May a scope of ``groups`` (None: any) read the chunk's document?"""
    return groups is None or bool(set(groups) & set(chunk.metadata.access))


class AccessMapError(RetrievalError):
    """The access map file is not valid YAML or does not follow the schema."""

    def __init__(self, path: Path, line: int | None, message: str) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")
        self.path = path
        self.line = line


class DirectoryError(RetrievalError):
    """The user-group directory (Slack) could not be asked."""


# --- the access map --------------------------------------------------------------------


class GroupRule(Frozen):
    usergroups: tuple[str, ...] = ()  # Slack user-group handles (or ids), "@" optional
    users: tuple[str, ...] = ()  # Slack user ids
    channels: tuple[str, ...] = ()  # channels whose whole audience is in the group
    # Confluence groups and users (account ids, or user names on Data Center) whose
    # page restrictions this group stands for (see ingest.sources.confluence_access)
    confluence_groups: tuple[str, ...] = ()
    confluence_users: tuple[str, ...] = ()

    @field_validator(
        "usergroups", "users", "channels", "confluence_groups", "confluence_users", mode="before"
    )
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return () if value is None else value

    @field_validator("usergroups", mode="after")
    @classmethod
    def _bare_handles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(handle.removeprefix("@") for handle in value)


class AccessMap(Frozen):
    groups: dict[str, GroupRule] = Field(default_factory=dict)

    @field_validator("groups", mode="before")
    @classmethod
    def _empty_rules(cls, value: Any) -> Any:
        if value is None:
            return {}
        if isinstance(value, Mapping):  # `everyone:` with nothing under it
            return {name: {} if rule is None else rule for name, rule in value.items()}
        return value

    @field_validator("groups", mode="after")
    @classmethod
    def _named_groups(cls, value: dict[str, GroupRule]) -> dict[str, GroupRule]:
        if any(not name.strip() for name in value):
            raise ValueError("group names must not be empty")
        return value

    @property
    def known_groups(self) -> frozenset[str]:
        return frozenset(self.groups) | {DEFAULT_ACCESS_GROUP}


def load_access_map(path: Path | None) -> AccessMap:
    """The access map in ``path``; an empty map when there is no path or no file."""
    if path is None:
        return AccessMap()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        log.warning("access map %s not found: restricted documents are readable by nobody", path)
        return AccessMap()
    except (OSError, UnicodeDecodeError) as exc:
        raise AccessMapError(path, None, f"cannot read the access map: {exc}") from exc
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise AccessMapError(path, line, f"invalid YAML: {problem}") from exc
    if root is None or data is None:
        return AccessMap()
    _reject_duplicate_keys(path, root)
    try:
        return AccessMap.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        first = errors[0]
        loc = tuple(first["loc"])
        where = ".".join(str(part) for part in loc) or "(top level)"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise AccessMapError(path, _line_of(root, loc), f"{where}: {first['msg']}{more}") from exc


def _reject_duplicate_keys(path: Path, node: yaml.Node) -> None:
    """YAML lets a later key silently replace an earlier one; a second `sre:` is an error."""
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            name = str(key.value)
            if name in seen:
                raise AccessMapError(path, key.start_mark.line + 1, f"duplicate key {name!r}")
            seen.add(name)
            _reject_duplicate_keys(path, value)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _reject_duplicate_keys(path, item)


def _line_of(node: yaml.Node, loc: Sequence[int | str]) -> int:
    """The 1-based line of the YAML node a pydantic error location points at."""
    line = node.start_mark.line + 1
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if str(key.value) == str(part):
                    line, node = key.start_mark.line + 1, value
                    break
            else:
                break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                break
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


# --- scopes ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Scope:
    """A set of access groups. ``complete=False``: some membership could not be checked,
    so the scope may lack groups the user is in (never holds ones they are not in)."""

    groups: frozenset[str]
    complete: bool = True

    @property
    def scope_id(self) -> str:
        encoded = json.dumps(sorted(self.groups), ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:16]

    def as_filter(self) -> SearchFilter:
        return SearchFilter(groups=tuple(sorted(self.groups)))


class UsergroupDirectory(Protocol):
    def members(self, handle: str) -> frozenset[str]:
        """The Slack user ids in the user group; raises DirectoryError when Slack can't say."""
        ...


class MembershipCache(Protocol):
    """User-group members kept between questions (``state.usergroups.UsergroupCache``)."""

    def get_many(self, handles: Sequence[str]) -> dict[str, frozenset[str]]: ...

    def put_many(self, memberships: Mapping[str, frozenset[str]]) -> None: ...

    def forget(self, handles: Iterable[str]) -> None: ...


class PermissionResolver:
    """Resolves scopes from an access map and a user-group directory.

    User-group memberships are kept in ``cache`` (without one the directory is asked on
    every question). After a directory failure the directory is not asked again for
    ``directory_retry_after_seconds``: scopes are incomplete meanwhile, instead of every
    question waiting for Slack to time out.
    """

    def __init__(
        self,
        access_map: AccessMap,
        directory: UsergroupDirectory | None,
        cache: MembershipCache | None = None,
        default_group: str = DEFAULT_ACCESS_GROUP,
        *,
        directory_retry_after_seconds: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.access_map = access_map
        self.default_group = default_group
        self._directory = directory
        self._cache = cache
        self._directory_health = ServiceHealth(
            log,
            "usergroup directory",
            "scopes leave out user-group grants until it answers",
            directory_retry_after_seconds,
            clock,
        )
        self._by_user: dict[str, set[str]] = {}
        self._by_usergroup: dict[str, set[str]] = {}
        self._by_channel: dict[str, set[str]] = {}
        for group, rule in access_map.groups.items():
            for user in rule.users:
                self._by_user.setdefault(user, set()).add(group)
            for handle in rule.usergroups:
                self._by_usergroup.setdefault(handle, set()).add(group)
            for channel in rule.channels:
                self._by_channel.setdefault(channel, set()).add(group)

    # --- scopes ----------------------------------------------------------------------

    def scope_for_user(self, user_id: str) -> Scope:
        groups = {self.default_group} | self._by_user.get(user_id, set())
        # only ask about user groups that could still add a group
        handles = [h for h, gs in self._by_usergroup.items() if not gs <= groups]
        memberships = self._memberships(handles)
        complete = True
        for handle in handles:
            members = memberships.get(handle)
            if members is None:
                complete = False
            elif user_id in members:
                groups |= self._by_usergroup[handle]
        return Scope(frozenset(groups), complete)

    def audience_for_channel(self, channel_id: str | None) -> Scope:
        """The groups every member of the channel is in: those listing it, plus the default.

        A channel no group lists, a DM and no channel at all get just the default group.
        """
        listed = self._by_channel.get(channel_id, set()) if channel_id else set()
        return Scope(frozenset(listed | {self.default_group}))

    def scope_for_groups(self, groups: Iterable[str]) -> Scope:
        """An explicit scope (the CLI's ``--groups``); the default group is always in it."""
        named = {g.strip() for g in groups if g.strip()}
        return Scope(frozenset(named | {self.default_group}))

    def invalidate_usergroup(self, handle_or_id: str) -> None:
        """Forget a user group's cached members (Slack's ``subteam_members_changed``).

        An id or handle the access map does not name (Slack sends the subteam *id*)
        clears every cached user group: there are few and a refill is cheap.
        """
        name = handle_or_id.removeprefix("@")
        handles = [name] if name in self._by_usergroup else list(self._by_usergroup)
        if self._cache is not None and handles:
            self._cache.forget(handles)

    # --- memberships -----------------------------------------------------------------

    def _memberships(self, handles: Sequence[str]) -> dict[str, frozenset[str]]:
        """Members of each handle that could be found; unresolvable handles are left out."""
        found = self._cache.get_many(handles) if self._cache is not None and handles else {}
        missing = [h for h in handles if h not in found]
        fresh: dict[str, frozenset[str]] = {}
        for handle in missing:
            if self._directory is None or not self._directory_health.usable():
                break
            try:
                fresh[handle] = frozenset(self._directory.members(handle))
            except DirectoryError as exc:
                self._directory_health.failed(exc)
                break
            self._directory_health.ok()
        if fresh and self._cache is not None:
            self._cache.put_many(fresh)
        return found | fresh
