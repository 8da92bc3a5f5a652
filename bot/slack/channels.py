"""Channels: what Slack says about one (cached, and read again when Slack says it
changed), incident channels, and finding a channel by name (a service's channel, the
fallback contact)."""

from __future__ import annotations

import fnmatch
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackRequestError

log = logging.getLogger("runbook_bot.slack")

CHANNEL_TTL_SECONDS = 600.0
FAILURE_TTL_SECONDS = 60.0
MAX_LIST_PAGES = 20  # conversations.list pages read when looking a channel up by name
NON_CHANNEL_NAMES = frozenset({"directmessage", "privategroup", "mpdm"})


@dataclass(frozen=True)
class ChannelInfo:
    """What conversations.info says about a channel (what the bot needs of it)."""

    id: str
    name: str | None = None
    is_private: bool = False
    is_im: bool = False
    is_ext_shared: bool = False
    is_pending_ext_shared: bool = False
    known: bool = True  # False: conversations.info could not be read

    @property
    def external(self) -> bool:
        """Shared with another organization (Slack Connect), or about to be."""
        return self.is_ext_shared or self.is_pending_ext_shared


def is_direct_message(channel_id: str | None) -> bool:
    return bool(channel_id) and str(channel_id).startswith("D")


def matches_channel(name: str | None, patterns: Sequence[str]) -> bool:
    """Does the channel name match one of the glob ``patterns`` (``#`` and case aside)?"""
    if not name:
        return False
    lowered = name.lower().lstrip("#")
    return any(fnmatch.fnmatchcase(lowered, p.lower().strip().lstrip("#")) for p in patterns)


def is_incident_channel(name: str | None, patterns: Sequence[str]) -> bool:
    return matches_channel(name, patterns)


class Channels:
    """Channel facts by id (conversations.info) and ids by name (conversations.list),
    cached; failures are cached briefly too, so a Slack outage causes no retry storm."""

    def __init__(self, client: WebClient, ttl_seconds: float = CHANNEL_TTL_SECONDS) -> None:
        self._client = client
        self._ttl = ttl_seconds
        self._lock = threading.Lock()
        self._info: dict[str, tuple[float, ChannelInfo]] = {}
        self._names: dict[str, str] = {}  # names Slack sent with requests
        self._by_name: tuple[float, dict[str, str]] | None = None

    def remember(self, channel_id: str, name: str | None) -> None:
        """A name Slack sent with a request (a slash command's channel_name)."""
        if name and name not in NON_CHANNEL_NAMES:
            with self._lock:
                self._names[channel_id] = name

    def refresh(self, channel_id: str, *, shared: bool | None = None) -> ChannelInfo:
        """Slack said the channel changed: its details are read again now. ``shared``:
        what the event says of its being shared outside the company; while the details
        say otherwise (they may lag behind the event) they are read again within a
        minute, and a channel the event says is shared counts as shared meanwhile."""
        with self._lock:
            self._info.pop(channel_id, None)
        info = self.info(channel_id)
        if shared is None or info.external == shared:
            return info
        if shared:
            info = replace(info, is_ext_shared=True)
        with self._lock:
            self._info[channel_id] = (time.monotonic() + FAILURE_TTL_SECONDS, info)
        return info

    def renamed(self, channel_id: str, name: str | None) -> None:
        """Slack said the channel has a new name: the old one is forgotten (details,
        the name a request sent, the channels by name)."""
        with self._lock:
            self._info.pop(channel_id, None)
            self._names.pop(channel_id, None)
            self._by_name = None
        self.remember(channel_id, name)

    def info(self, channel_id: str) -> ChannelInfo:
        now = time.monotonic()
        with self._lock:
            entry = self._info.get(channel_id)
            remembered = self._names.get(channel_id)
        if entry is not None and entry[0] > now:
            return entry[1]
        info = ChannelInfo(channel_id, remembered, is_im=is_direct_message(channel_id), known=False)
        ttl = FAILURE_TTL_SECONDS
        try:
            channel = self._client.conversations_info(channel=channel_id).get("channel") or {}
            info = ChannelInfo(
                channel_id,
                str(channel.get("name") or "") or None,
                bool(channel.get("is_private")),
                bool(channel.get("is_im")),
                bool(channel.get("is_ext_shared")),
                bool(channel.get("is_pending_ext_shared")),
            )
            ttl = self._ttl
        except (SlackApiError, SlackRequestError, OSError) as exc:
            log.warning("conversations.info %s failed: %s", channel_id, exc)
        with self._lock:
            self._info[channel_id] = (now + ttl, info)
        return info

    def name(self, channel_id: str) -> str | None:
        with self._lock:
            remembered = self._names.get(channel_id)
        return remembered or self.info(channel_id).name

    def id_for_name(self, name: str) -> str | None:
        """The id of the public channel called ``name`` (``#`` optional), or None."""
        wanted = name.strip().lstrip("#").lower()
        now = time.monotonic()
        with self._lock:
            cached = self._by_name
        if cached is None or cached[0] <= now:
            names, ok = self._list_channels()
            cached = (now + (self._ttl if ok else FAILURE_TTL_SECONDS), names)
            with self._lock:
                self._by_name = cached
        return cached[1].get(wanted)

    def _list_channels(self) -> tuple[dict[str, str], bool]:
        names: dict[str, str] = {}
        cursor = None
        try:
            for _ in range(MAX_LIST_PAGES):
                resp = self._client.conversations_list(
                    types="public_channel", exclude_archived=True, limit=1000, cursor=cursor
                )
                for channel in resp.get("channels") or []:
                    if channel.get("name") and channel.get("id"):
                        names[str(channel["name"]).lower()] = str(channel["id"])
                cursor = (resp.get("response_metadata") or {}).get("next_cursor")
                if not cursor:
                    break
        except (SlackApiError, SlackRequestError, OSError) as exc:
            log.warning("conversations.list failed: %s", exc)
            return names, False
        return names, True
