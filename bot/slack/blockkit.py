"""The one Block Kit toolkit: Slack's limits, escaping, and block primitives.

Every Slack message the bot sends (answers, notices, reports) is built from these
pieces, so the limits live in one place:

* at most 50 blocks and :data:`MAX_MESSAGE_CHARS` characters of block text per message
  (Slack answers ``msg_blocks_too_long`` somewhat above 12,000);
* section text and context elements at most 3000 characters, header text 150, button
  text 75, button values 2000 and URLs 3000; a top-level ``text`` of at most 3000.

Blocks are built with ``slack_sdk.models.blocks``, whose ``to_dict`` validates the
documented limits, and sent as plain dicts. Runbook text, titles, owners and questions
are untrusted: :func:`escape` neutralizes ``&``, ``<`` and ``>`` (and so ``<!channel>``
and ``<@U…>``), and every mrkdwn text object is ``verbatim`` so Slack links no plain
channel names or mentions either. Only markup built here is Slack markup: links
(:func:`link`) and, where a message means to notify someone, :func:`user_mention` and
:func:`usergroup_mention` from validated ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    SectionBlock,
)
from slack_sdk.models.blocks.basic_components import (
    ConfirmObject,
    MarkdownTextObject,
    PlainTextObject,
)

MAX_BLOCKS = 50
MAX_TEXT = 3000  # a section's text, a context element
MAX_CONTEXT_ELEMENTS = 10
MAX_BUTTON_TEXT = 75
MAX_BUTTON_VALUE = 2000
MAX_HEADER_TEXT = 150
MAX_FALLBACK_TEXT = 3000
MAX_URL = 3000
#: Slack rejects a message with ``msg_blocks_too_long`` somewhat above 12,000 characters
#: of block text; answers and reports stay at or below this.
MAX_MESSAGE_CHARS = 12_000
FENCE = "```"
#: block_id prefix of the blocks that deliberately mention someone (and nothing else)
MENTION_BLOCK = "mention"

_INLINE_FENCE = re.compile(r"`{3,}")
_SLACK_ID = re.compile(r"^[A-Z][A-Z0-9]{2,30}$")


@dataclass(frozen=True)
class Message:
    """A Slack message: ``text`` is the notification text (never empty), ``blocks`` what
    the message shows."""

    text: str
    blocks: list[dict[str, Any]]

    def kwargs(self) -> dict[str, Any]:
        """For ``chat.postMessage`` / ``chat.update`` / ``respond``."""
        return {"text": self.text, "blocks": self.blocks}


# --------------------------------------------------------------------------- text


def escape(text: str) -> str:
    """Escape the three mrkdwn control characters (``&`` first)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def one_line(text: str) -> str:
    return " ".join(text.split())


def clip(text: str, limit: int) -> str:
    """An inline snippet of unescaped text: one line, no code fences (a fence opened in a
    title or question would swallow the rest of the message), at most ``limit`` chars."""
    text = _INLINE_FENCE.sub("`", one_line(text))
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rstrip() + "…"


def bold(text: str) -> str:
    """Bold escaped text; asterisks inside would end the bold span early."""
    inner = escape(one_line(text)).replace("*", "∗")
    return f"*{inner}*" if inner else ""


def code(text: str) -> str:
    """Inline code of escaped text (a backtick inside would end it early)."""
    inner = escape(one_line(text)).replace("`", "'")
    return f"`{inner}`" if inner else ""


def safe_url(url: str | None) -> str | None:
    """A URL that can sit inside ``<…|label>``, or None when it is not a web link."""
    if not url:
        return None
    url = url.strip()
    if not url.lower().startswith(("https://", "http://")) or len(url) > MAX_URL:
        return None
    return escape(url).replace("|", "%7C").replace(" ", "%20")


def link(url: str | None, label: str) -> str:
    """``<url|label>`` with the label escaped; the escaped label alone without a URL."""
    safe = safe_url(url)
    text = escape(one_line(label)).replace("|", "¦")
    return f"<{safe}|{text}>" if safe else text


def user_mention(user_id: str) -> str:
    """``<@U…>`` for a validated user id (it notifies that user); "" otherwise."""
    return f"<@{user_id}>" if _SLACK_ID.match(user_id) and user_id[0] in "UW" else ""


def usergroup_mention(group_id: str, handle: str) -> str:
    """``<!subteam^S…|@handle>`` for a validated user-group id (it notifies the group)."""
    if not (_SLACK_ID.match(group_id) and group_id.startswith("S")):
        return escape(handle)
    label = escape(one_line(handle)).replace("|", "¦").replace(">", "")
    return f"<!subteam^{group_id}|{label}>"


def channel_link(channel_id: str, name: str) -> str:
    """``<#C…>`` (a channel link never notifies anyone); the escaped name otherwise."""
    if _SLACK_ID.match(channel_id) and channel_id[0] in "CG":
        return f"<#{channel_id}>"
    return escape(name)


def days(n: int) -> str:
    return "1 day" if n == 1 else f"{n} days"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def balance_fences(text: str) -> str:
    return text + "\n" + FENCE if text.count(FENCE) % 2 else text


def truncate(text: str, limit: int, suffix: str = "…") -> str:
    """Cut escaped mrkdwn to ``limit`` characters: at a line boundary when one is near,
    never inside an HTML entity, with an opened code fence closed and ``suffix`` appended."""
    if len(text) <= limit:
        return text
    tail = "\n" + suffix if suffix else ""
    budget = limit - len(tail) - len("\n" + FENCE)
    if budget <= 0:
        return suffix[:limit]
    cut = text[:budget]
    newline = cut.rfind("\n")
    if newline >= budget // 2:
        cut = cut[:newline]
    else:
        amp = cut.rfind("&")
        if amp != -1 and ";" not in cut[amp:]:
            cut = cut[:amp]  # do not split "&amp;", "&lt;", "&gt;"
        cut = cut.rstrip("`")
    return balance_fences(cut.rstrip()) + tail


def split_text(text: str, limit: int = MAX_TEXT) -> list[str]:
    """Escaped mrkdwn in pieces of at most ``limit`` characters, cut at line boundaries;
    a code block cut in two is closed at the end of one piece and reopened in the next."""
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    inside = False  # inside a code block at the end of ``current``
    reserve = len("\n" + FENCE)
    for line in text.split("\n"):
        for part in _hard_wrap(line, limit - 2 * reserve):
            extra = len(part) + (1 if current else 0)
            if current and size + extra + (reserve if inside else 0) > limit:
                piece = "\n".join(current)
                pieces.append(piece + "\n" + FENCE if inside else piece)
                current = [FENCE] if inside else []
                size = len(FENCE) if inside else 0
                extra = len(part) + (1 if current else 0)
            current.append(part)
            size += extra
            if part.count(FENCE) % 2:
                inside = not inside
    if current:
        pieces.append(balance_fences("\n".join(current)))
    return [p for p in pieces if p.strip() and p.strip() != f"{FENCE}\n{FENCE}"]


def _hard_wrap(line: str, width: int) -> Iterable[str]:
    """A line longer than ``width`` in pieces, never inside an HTML entity."""
    while len(line) > width:
        cut = width
        amp = line.rfind("&", max(0, cut - 6), cut)
        if amp != -1 and ";" not in line[amp:cut]:
            cut = amp
        yield line[:cut]
        line = line[cut:]
    yield line


# --------------------------------------------------------------------------- blocks


def _mrkdwn(text: str) -> MarkdownTextObject:
    return MarkdownTextObject(text=text, verbatim=True)


def _plain(text: str, limit: int) -> PlainTextObject:
    return PlainTextObject(text=clip(text, limit) or "-", emoji=True)


def section(text: str, *, block_id: str | None = None) -> dict[str, Any]:
    """A section of escaped mrkdwn (cut to 3000 characters)."""
    body = truncate(text, MAX_TEXT) or "-"
    return SectionBlock(text=_mrkdwn(body), block_id=block_id).to_dict()


def context(*elements: str, block_id: str | None = None) -> dict[str, Any]:
    """A context block of escaped mrkdwn elements (empty ones dropped, at most 10)."""
    items = [truncate(e, MAX_TEXT) for e in elements if e and e.strip()]
    items = items[:MAX_CONTEXT_ELEMENTS] or ["-"]
    return ContextBlock(elements=[_mrkdwn(e) for e in items], block_id=block_id).to_dict()


def header(text: str) -> dict[str, Any]:
    return HeaderBlock(text=_plain(text, MAX_HEADER_TEXT)).to_dict()


def divider() -> dict[str, Any]:
    return DividerBlock().to_dict()


def button(
    text: str,
    action_id: str,
    *,
    value: str | None = None,
    url: str | None = None,
    style: str | None = None,
    confirm: tuple[str, str, str] | None = None,
) -> dict[str, Any]:
    """A button; ``confirm`` (title, text, confirm label) asks before the click counts."""
    dialog = None
    if confirm is not None:
        title, text_, yes = confirm
        dialog = ConfirmObject(
            title=clip(title, 100), text=clip(text_, 300), confirm=clip(yes, 30), deny="Cancel"
        )
    return ButtonElement(
        text=_plain(text, MAX_BUTTON_TEXT),
        action_id=action_id,
        value=value[:MAX_BUTTON_VALUE] if value is not None else None,
        url=url if url is not None and len(url) <= MAX_URL else None,
        style=style,
        confirm=dialog,
    ).to_dict()


def actions(elements: Sequence[dict[str, Any]], *, block_id: str) -> dict[str, Any]:
    block = ActionsBlock(block_id=block_id, elements=[]).to_dict()
    block["elements"] = list(elements)
    return block


def block_chars(block: Mapping[str, Any]) -> int:
    """Characters of text a block sends (what Slack's per-message budget counts)."""
    total = 0
    text = block.get("text")
    if isinstance(text, Mapping):
        total += len(str(text.get("text", "")))
    for element in block.get("elements") or []:
        if not isinstance(element, Mapping):
            continue
        inner = element.get("text")
        if isinstance(inner, Mapping):
            total += len(str(inner.get("text", "")))
        elif isinstance(inner, str):
            total += len(inner)
    return total


class Blocks:
    """A list of blocks that stays inside Slack's per-message limits.

    ``reserve_blocks`` and ``reserve_chars`` keep room for what goes at the end (actions,
    a "…and N more" note), so :meth:`fits` answers for the body only.
    """

    def __init__(self, *, reserve_blocks: int = 0, reserve_chars: int = 0) -> None:
        self.blocks: list[dict[str, Any]] = []
        self.chars = 0
        self._reserve_blocks = reserve_blocks
        self._reserve_chars = reserve_chars

    def fits(self, *blocks: Mapping[str, Any]) -> bool:
        chars = sum(block_chars(b) for b in blocks)
        return (
            len(self.blocks) + len(blocks) + self._reserve_blocks <= MAX_BLOCKS
            and self.chars + chars + self._reserve_chars <= MAX_MESSAGE_CHARS
        )

    def room(self) -> int:
        """Characters left for the body."""
        return MAX_MESSAGE_CHARS - self._reserve_chars - self.chars

    def add(self, *blocks: dict[str, Any]) -> bool:
        """Add ``blocks`` if they all fit; False (and nothing added) otherwise."""
        if not self.fits(*blocks):
            return False
        self.force(*blocks)
        return True

    def force(self, *blocks: dict[str, Any]) -> None:
        """Add ``blocks`` from the reserve (the tail the reserve was kept for)."""
        for block in blocks:
            self.blocks.append(block)
            self.chars += block_chars(block)

    def release(self, blocks: int = 0, chars: int = 0) -> None:
        self._reserve_blocks = max(0, self._reserve_blocks - blocks)
        self._reserve_chars = max(0, self._reserve_chars - chars)


def fallback(*parts: str) -> str:
    """A top-level ``text`` from already escaped parts: non-empty, at most 3000 chars."""
    text = "\n".join(p for p in parts if p and p.strip()) or "Runbook answer"
    return truncate(text, MAX_FALLBACK_TEXT)
