"""Who may read a Confluence page in the bot: its view restrictions, and its ancestors',
through the access map.

Confluence lets a page be read by whoever passes the view restrictions of the page and
of every restricted ancestor (each level: any of its users or groups). The access map
names, per access group, the Confluence groups and users it stands for
(``confluence_groups``, ``confluence_users``). A restricted level is passed by the
access groups mapped from any of its users or groups; the page is readable by the
access groups that pass every restricted level. A page with no restricted level is
not restricted (the source's default group reads it); a restricted page that no access
group passes is readable by nobody.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from retrieval.permissions import AccessMap


@dataclass(frozen=True)
class Restriction:
    """The view restriction of one page: the users and groups it lets read it."""

    page: str  # the restricted page's id
    users: frozenset[str] = frozenset()  # account ids, user names and user keys
    groups: frozenset[str] = frozenset()  # group names and ids

    @property
    def names(self) -> str:
        """The restriction's principals, for a message."""
        parts = [f"group {g}" for g in sorted(self.groups)] + [
            f"user {u}" for u in sorted(self.users)
        ]
        return ", ".join(parts) or "nobody"


def _results(node: Any) -> list[Mapping[str, Any]]:
    if isinstance(node, Mapping):
        found = node.get("results")
        return [r for r in found or [] if isinstance(r, Mapping)]
    return []


def restriction_of(content: Mapping[str, Any]) -> Restriction | None:
    """The view restriction a page's content (expanded with
    ``restrictions.read.restrictions.user,restrictions.read.restrictions.group``)
    carries; None when it has none."""
    read = ((content.get("restrictions") or {}).get("read") or {}).get("restrictions") or {}
    users: set[str] = set()
    for user in _results(read.get("user")):
        users |= {str(user[k]) for k in ("accountId", "username", "userKey") if user.get(k)}
    groups: set[str] = set()
    for group in _results(read.get("group")):
        groups |= {str(group[k]) for k in ("name", "id") if group.get(k)}
    if not users and not groups:
        return None
    return Restriction(str(content.get("id") or ""), frozenset(users), frozenset(groups))


@dataclass(frozen=True)
class PageAccess:
    """A page's access groups in the bot (None: not restricted, the default applies)."""

    groups: tuple[str, ...] | None
    restrictions: tuple[Restriction, ...] = ()

    @property
    def restricted(self) -> bool:
        return bool(self.restrictions)

    @property
    def readable_by_nobody(self) -> bool:
        return self.restricted and not self.groups


class RestrictionMap:
    """The access map's Confluence side: which access groups stand for a group or user."""

    def __init__(self, access_map: AccessMap | None = None) -> None:
        self._groups: dict[str, set[str]] = {}
        self._users: dict[str, set[str]] = {}
        for name, rule in (access_map.groups if access_map else {}).items():
            for group in rule.confluence_groups:
                self._groups.setdefault(group.lower(), set()).add(name.lower())
            for user in rule.confluence_users:
                self._users.setdefault(user, set()).add(name.lower())

    def passing(self, restriction: Restriction) -> set[str]:
        """The access groups mapped from any user or group ``restriction`` lets in."""
        out: set[str] = set()
        for group in restriction.groups:
            out |= self._groups.get(group.lower(), set())
        for user in restriction.users:
            out |= self._users.get(user, set())
        return out

    def access(self, restrictions: Iterable[Restriction]) -> PageAccess:
        """The access groups passing every one of ``restrictions`` (the page's and its
        ancestors')."""
        levels: Sequence[Restriction] = tuple(restrictions)
        if not levels:
            return PageAccess(None)
        groups: set[str] | None = None
        for level in levels:
            passing = self.passing(level)
            groups = passing if groups is None else groups & passing
        return PageAccess(tuple(sorted(groups or ())), tuple(levels))
