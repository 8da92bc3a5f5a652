"""Who to ask about a runbook, as Slack knows them.

An owner written in a runbook (``@checkout-oncall``, ``@acme/checkout-team``, a user-group
or user id) becomes a :class:`Contact` with the Slack id when the workspace has a user
group of that handle, so the message can name it (a mention only where it does not
ping) and "Escalate to owner" can notify it. A runbook without an owner gets a fallback:
its service's channel when one exists (``RUNBOOK_SERVICE_CHANNEL_TEMPLATE``), otherwise
the configured ``RUNBOOK_FALLBACK_CONTACT``.

It is also the workspace's :class:`bot.oncall.Names`: the human step's lookups
(:mod:`bot.oncall`) name channels, user groups and PagerDuty's people through it (a
person by their email, when the bot may look emails up).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackRequestError

from bot.oncall import Contact, ContactSource
from bot.slack.channels import Channels
from bot.slack.directory import SlackUsergroupDirectory
from retrieval.permissions import DirectoryError

log = logging.getLogger("runbook_bot.slack")

_SUBTEAM = re.compile(r"^<!subteam\^(S[A-Z0-9]+)(?:\|([^>]*))?>$")
_USER = re.compile(r"^<@([UW][A-Z0-9]+)(?:\|([^>]*))?>$")
_CHANNEL = re.compile(r"^<#(C[A-Z0-9]+)(?:\|([^>]*))?>$")
_RAW_ID = re.compile(r"^[SUWC][A-Z0-9]{6,}$")
CONTACT_TTL_SECONDS = 600.0  # a new or renamed user group is picked up this soon


class Contacts:
    def __init__(
        self,
        directory: SlackUsergroupDirectory,
        channels: Channels,
        *,
        service_channel_template: str | None = None,
        fallback: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        client: WebClient | None = None,
    ) -> None:
        self._client = client
        self._directory = directory
        self._channels = channels
        self._template = service_channel_template or None
        self._fallback = (fallback or "").strip() or None
        self._clock = clock
        self._lock = threading.Lock()
        self._known: dict[tuple[str, str], tuple[float, Contact]] = {}

    def for_document(self, owner: str | None, service: str | None) -> Contact | None:
        """The owner, or for an ownerless document its fallback contact (None: nobody)."""
        if owner and owner.strip():
            return self.resolve(owner.strip().split()[0], "owner")
        if service and self._template:
            name = self._template.replace("{service}", service).lstrip("#").lower()
            channel_id = self._channels.id_for_name(name)
            if channel_id is not None:
                return Contact(
                    kind="channel", label=f"#{name}", id=channel_id, source="service-channel"
                )
        if self._fallback:
            return self.resolve(self._fallback, "fallback")
        return None

    def channel(self, name: str, source: ContactSource) -> Contact | None:
        """The channel ``name`` when the workspace has it (:class:`bot.oncall.Names`)."""
        name = name.lstrip("#").lower()
        channel_id = self._channels.id_for_name(name)
        if channel_id is None:
            return None
        return Contact(kind="channel", label=f"#{name}", id=channel_id, source=source)

    def person(self, name: str, email: str | None, url: str | None) -> Contact:
        """A PagerDuty user, with their Slack id when their email finds them (cached)."""
        user_id = self._user_by_email(email) if email else None
        return Contact(kind="user", label=name, id=user_id, source="pagerduty", url=url)

    def _user_by_email(self, email: str) -> str | None:
        key = (email.lower(), "email")
        now = self._clock()
        with self._lock:
            entry = self._known.get(key)
        if entry is not None and entry[0] > now:
            return entry[1].id
        user_id: str | None = None
        if self._client is not None:
            try:
                resp = self._client.users_lookupByEmail(email=email)
                user_id = str((resp.get("user") or {}).get("id") or "") or None
            except (SlackApiError, SlackRequestError, OSError) as exc:
                log.info("users.lookupByEmail found nobody for an on-call person: %s", exc)
        with self._lock:
            found = Contact(kind="user", label=email, id=user_id, source="pagerduty")
            self._known[key] = (now + CONTACT_TTL_SECONDS, found)
        return user_id

    def resolve(self, text: str, source: ContactSource = "owner") -> Contact:
        """``text`` as a contact, with its Slack id when the workspace knows it (cached,
        so an owner that is no Slack user group costs one lookup per few minutes)."""
        key = (text, source)
        now = self._clock()
        with self._lock:
            entry = self._known.get(key)
        if entry is not None and entry[0] > now:
            return entry[1]
        contact = self._resolve(text, source)
        with self._lock:
            self._known[key] = (now + CONTACT_TTL_SECONDS, contact)
        return contact

    def _resolve(self, text: str, source: ContactSource) -> Contact:
        for pattern, kind in ((_SUBTEAM, "usergroup"), (_USER, "user"), (_CHANNEL, "channel")):
            m = pattern.match(text)
            if m is not None:
                label = m[2] or ("#" if kind == "channel" else "@") + m[1]
                return Contact(kind=kind, label=label, id=m[1], source=source)
        if _RAW_ID.match(text):
            kind = {"S": "usergroup", "C": "channel"}.get(text[0], "user")
            return Contact(kind=kind, label=text, id=text, source=source)
        if text.startswith("#"):
            channel_id = self._channels.id_for_name(text)
            return Contact(
                kind="channel" if channel_id else "text", label=text, id=channel_id, source=source
            )
        handle = text.lstrip("@")
        for candidate in dict.fromkeys([handle, handle.rsplit("/", 1)[-1]]):
            try:
                group_id = self._directory.group_id(candidate)
            except DirectoryError as exc:
                log.warning("cannot look up the user group %s: %s", candidate, exc)
                break
            if group_id is not None:
                return Contact(kind="usergroup", label=f"@{candidate}", id=group_id, source=source)
        return Contact(kind="text", label=text, source=source)
