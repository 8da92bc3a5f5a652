"""Slack user groups as a UsergroupDirectory (usergroups.list + usergroups.users.list)."""

from __future__ import annotations

import threading
import time

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackRequestError

from retrieval.permissions import DirectoryError

MEMBERSHIP_TTL_SECONDS = 60.0


class SlackUsergroupDirectory:
    def __init__(self, client: WebClient) -> None:
        self._client = client
        self._ids: dict[str, str] = {}
        self._lock = threading.Lock()
        self._memberships: tuple[float, dict[str, frozenset[str]]] | None = None

    def group_id(self, handle: str) -> str | None:
        """The id (S…) of the user group with this handle (or id); None when there is
        none. Raises DirectoryError when Slack cannot be asked."""
        handle = handle.lstrip("@")
        with self._lock:
            if handle in self._ids:
                return self._ids[handle]
        try:
            resp = self._client.usergroups_list(include_disabled=False)
        except (SlackApiError, SlackRequestError, OSError) as exc:
            raise DirectoryError(f"usergroups.list failed: {exc}") from exc
        found: dict[str, str] = {}
        for group in resp.get("usergroups") or []:
            if group.get("handle") and group.get("id"):
                found[str(group["handle"])] = str(group["id"])
                found[str(group["id"])] = str(group["id"])
        with self._lock:
            self._ids.update(found)
            return self._ids.get(handle)

    def members(self, handle: str) -> frozenset[str]:
        group_id = self.group_id(handle)
        if group_id is None:
            return frozenset()
        try:
            resp = self._client.usergroups_users_list(usergroup=group_id)
        except (SlackApiError, SlackRequestError, OSError) as exc:
            raise DirectoryError(f"usergroups.users.list failed: {exc}") from exc
        return frozenset(str(u) for u in resp.get("users") or [])

    def groups_of(self, user_id: str) -> frozenset[str]:
        """Handles and ids of the user groups ``user_id`` is in (one usergroups.list with
        members, kept for a minute). Raises DirectoryError when Slack cannot be asked."""
        now = time.monotonic()
        with self._lock:
            cached = self._memberships
        if cached is None or cached[0] <= now:
            try:
                resp = self._client.usergroups_list(include_disabled=False, include_users=True)
            except (SlackApiError, SlackRequestError, OSError) as exc:
                raise DirectoryError(f"usergroups.list failed: {exc}") from exc
            groups: dict[str, frozenset[str]] = {}
            for group in resp.get("usergroups") or []:
                users = frozenset(str(u) for u in group.get("users") or [])
                for key in (group.get("handle"), group.get("id")):
                    if key:
                        groups[str(key)] = users
            cached = (now + MEMBERSHIP_TTL_SECONDS, groups)
            with self._lock:
                self._memberships = cached
        return frozenset(name for name, users in cached[1].items() if user_id in users)

    def forget(self) -> None:
        with self._lock:
            self._ids.clear()
            self._memberships = None
