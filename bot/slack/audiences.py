"""Who may read an answer in Slack: the asker's scope and a channel's audience, with
channels shared outside the company (Slack Connect) held to shareable runbooks.

* A channel whose ``conversations.info`` says ``is_ext_shared`` (or a pending share), or
  where a member of another organization asked, is **external**: everything answered
  there (in public, and privately, since the asker may be one of the outside members)
  comes only from documents of the external access group (``access: [everyone,
  external]``, ``RUNBOOK_EXTERNAL_ACCESS_GROUP``). A channel whose details Slack would not
  give counts as external for public replies (fail closed).
* Everywhere else the external group is part of everyone's scope and every channel's
  audience: a runbook that may be shown outside the company may be shown inside it.
  Without an external group (set empty) nothing is answered in shared channels.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.slack.channels import Channels, is_direct_message
from retrieval.permissions import PermissionResolver, Scope


class Audiences:
    def __init__(
        self,
        resolver: Callable[[], PermissionResolver],
        channels: Channels,
        external_group: str,
    ) -> None:
        self._resolver = resolver
        self._channels = channels
        self._external = external_group.strip()

    @property
    def external_group(self) -> str:
        return self._external

    def is_external(self, channel_id: str | None, *, public: bool = True) -> bool:
        """Is the channel shared outside the company? ``public``: for a reply everyone
        there reads, where a channel Slack says nothing about counts as shared."""
        if not channel_id or is_direct_message(channel_id):
            return False
        info = self._channels.info(channel_id)
        return info.external or (public and not info.known)

    def outside(self, complete: bool = True) -> Scope:
        """What anyone outside the company may read (nothing without an external group)."""
        return Scope(frozenset({self._external} if self._external else ()), complete)

    def audience(self, channel_id: str | None, *, external_user: bool = False) -> Scope | None:
        """What everyone in the channel may read; None in a direct message or without a
        channel (only the asker reads the answer)."""
        if not channel_id or is_direct_message(channel_id):
            return None
        if external_user or self.is_external(channel_id):
            return self.outside()
        scope = self._resolver().audience_for_channel(channel_id)
        return self._with_external(scope)

    def asker(
        self, user_id: str, channel_id: str | None = None, *, external_user: bool = False
    ) -> Scope:
        """What the asker may read here: their own scope, or in a channel shared outside
        the company (or when they are from outside it) only the shareable runbooks."""
        if external_user:
            return self.outside()
        scope = self._resolver().scope_for_user(user_id)
        if self.is_external(channel_id, public=False):
            return self.outside(scope.complete)
        return self._with_external(scope)

    def _with_external(self, scope: Scope) -> Scope:
        if not self._external:
            return scope
        return Scope(scope.groups | {self._external}, scope.complete)
