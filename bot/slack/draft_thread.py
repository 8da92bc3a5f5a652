"""A Slack thread as the drafts builder reads it, limited to what the draft may hold.

Left out: deleted messages, the bot's own answers (they may quote restricted runbooks),
and in a channel shared with another organization (Slack Connect) every message of that
organization. People and user groups are named as Slack shows them; links keep their
text. What the alert says comes from its notification (:mod:`bot.slack.alert_post`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.drafts import AlertFacts, ThreadMessage
from bot.slack.alert_post import parse_alert_post
from bot.slack.messages import is_from_integration, message_text

_USER = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")
_GROUP = re.compile(r"<!subteam\^([A-Z0-9]+)(?:\|@?([^>]*))?>")
_SPECIAL = re.compile(r"<!(here|channel|everyone)(?:\|[^>]*)?>")
_CHANNEL = re.compile(r"<#[CG][A-Z0-9]+(?:\|([^>]*))?>")
_LINK = re.compile(r"<((?:https?|mailto):[^<>|]*)(?:\|([^<>]*))?>")
DELETED_SUBTYPES = frozenset({"message_deleted", "tombstone"})
MIN_QUOTED_CHARS = 24  # shorter lines (a bare `kubectl get pods`) are anybody's words


def quote_key(line: str) -> str:
    """A line as compared with runbook text: no quote marks, bullets or spacing."""
    text = line.strip().lstrip(">•*-0123456789.) ").strip("`").strip()
    return " ".join(text.split()).casefold()


def restricted_lines(texts: Iterable[str]) -> frozenset[str]:
    """The lines of restricted runbooks (as :func:`quote_key` makes them) long enough
    to be a quote."""
    return frozenset(
        key
        for text in texts
        for line in text.splitlines()
        if len(key := quote_key(line)) >= MIN_QUOTED_CHARS
    )


@dataclass(frozen=True)
class ReadThread:
    messages: tuple[ThreadMessage, ...]
    alert: AlertFacts | None
    left_out: int  # messages not copied (deleted, the bot's, another organization's)
    withheld: int = 0  # lines left out as quotes of runbooks the draft's readers may not read


@dataclass(frozen=True)
class ThreadReader:
    """How to read a thread in one channel."""

    team_id: str | None  # the workspace's own organization
    bot_user_id: str | None
    external: bool  # the channel is shared with another organization
    name_of: Callable[[str], str]  # user id -> "@name"
    permalink: Callable[[str], str | None]  # message ts -> its link
    restricted: frozenset[str] = frozenset()  # lines of runbooks the readers may not read

    def read(self, messages: Sequence[Mapping[str, Any]]) -> ReadThread:
        out: list[ThreadMessage] = []
        alert: AlertFacts | None = None
        left = withheld = 0
        for message in messages:
            if not self._keeps(message):
                left += 1
                continue
            ts = str(message.get("ts") or "")
            integration = is_from_integration(message)
            if integration and alert is None:
                alert = _alert(message)
            author = "" if integration else self.name_of(str(message.get("user") or ""))
            raw = message_text(message)
            if self.restricted:
                kept = [ln for ln in raw.split("\n") if quote_key(ln) not in self.restricted]
                withheld += raw.count("\n") + 1 - len(kept)
                raw = "\n".join(kept)
            out.append(
                ThreadMessage(
                    ts=ts,
                    author=author,
                    text=self._plain(raw),
                    link=self.permalink(ts),
                    integration=integration,
                    edited=bool(message.get("edited")),
                    mentions=() if integration else self._mentions(raw, message),
                )
            )
        return ReadThread(tuple(out), alert, left, withheld)

    def _keeps(self, message: Mapping[str, Any]) -> bool:
        if message.get("subtype") in DELETED_SUBTYPES or message.get("hidden"):
            return False
        if self.bot_user_id and message.get("user") == self.bot_user_id:
            return False  # the bot's own answers: runbook quotes, never incident facts
        if self.external and self.team_id:
            team = message.get("user_team") or message.get("team")
            if team and team != self.team_id:
                return False
            if not team and not is_from_integration(message):
                return False  # whose it is cannot be told: left out
        return True

    def _plain(self, text: str) -> str:
        text = _USER.sub(lambda m: self.name_of(m.group(1)), text)
        text = _GROUP.sub(lambda m: "@" + (m.group(2) or m.group(1)), text)
        text = _SPECIAL.sub(lambda m: "@" + m.group(1), text)
        text = _CHANNEL.sub(lambda m: "#" + (m.group(1) or "channel"), text)
        text = _LINK.sub(lambda m: m.group(2) or m.group(1), text)
        return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")

    def _mentions(self, text: str, message: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        found: list[tuple[str, str]] = []
        author = message.get("user")
        for m in _USER.finditer(text):
            if m.group(1) not in (author, self.bot_user_id):
                found.append((self.name_of(m.group(1)), "person"))
        for m in _GROUP.finditer(text):
            found.append(("@" + (m.group(2) or m.group(1)), "group"))
        return tuple(dict.fromkeys(found))


def _alert(message: Mapping[str, Any]) -> AlertFacts | None:
    post = parse_alert_post(message)
    if post is None or not post.alertname:
        return None
    summary = post.annotation_map.get("summary") or post.annotation_map.get("description")
    return AlertFacts(
        name=post.alertname,
        status=str(post.status or ""),
        text=summary or post.title,
        labels=post.labels,
    )


def thread_link(permalink: str | None, ts: str, root_ts: str) -> str | None:
    """A reply's link from the thread root's permalink (one API call for the thread)."""
    if not permalink:
        return None
    base = permalink.split("?", 1)[0]
    head, _, last = base.rpartition("/")
    if not last.startswith("p"):
        return None
    link = f"{head}/p{ts.replace('.', '')}"
    return link if ts == root_ts else f"{link}?thread_ts={root_ts}"
