"""Reading Slack messages: the question in a mention, and all the text of a message
(text, attachments, blocks), e.g. an alert posted by an integration."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

MAX_QUESTION_CHARS = 2_000
MAX_MESSAGE_CHARS = 8_000
HELP_WORDS = frozenset({"help", "-h", "--help", "?", "usage"})
_LEADING_MENTION = re.compile(r"^\s*<@[UW][A-Z0-9]+(?:\|[^>]*)?>")


def strip_mention(text: str, bot_user_id: str | None) -> str:
    """The question without the bot's ``<@UBOT>`` mention(s)."""
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>", " ", text)
    else:
        text = _LEADING_MENTION.sub(" ", text)
    return " ".join(text.split())


def question_of(event: dict[str, Any], bot_user_id: str | None) -> str:
    """What a message event asks: its text without the bot's mention, cut to
    :data:`MAX_QUESTION_CHARS`."""
    return strip_mention(str(event.get("text") or ""), bot_user_id)[:MAX_QUESTION_CHARS]


def is_help(text: str) -> bool:
    return text.strip().lower() in HELP_WORDS


def message_text(message: Mapping[str, Any]) -> str:
    """All readable text of a Slack message: text, attachments and section blocks."""
    parts: list[str] = []
    if message.get("text"):
        parts.append(str(message["text"]))
    for att in message.get("attachments") or []:
        if not isinstance(att, Mapping):
            continue
        found = [str(att[key]) for key in ("pretext", "title", "text") if att.get(key)]
        for field in att.get("fields") or []:
            if isinstance(field, Mapping) and field.get("title"):
                found.append(f"{field.get('title')}: {field.get('value', '')}")
        if not found and att.get("fallback"):
            found.append(str(att["fallback"]))
        parts.extend(found)
    for block in message.get("blocks") or []:
        if not isinstance(block, Mapping) or block.get("type") not in ("section", "header"):
            continue
        text = block.get("text")
        if isinstance(text, Mapping) and text.get("text"):
            candidate = str(text["text"])
            if candidate not in parts:
                parts.append(candidate)
        for field in block.get("fields") or []:
            if isinstance(field, Mapping) and field.get("text"):
                parts.append(str(field["text"]))
    return "\n".join(parts)[:MAX_MESSAGE_CHARS]


def is_from_integration(message: Mapping[str, Any]) -> bool:
    """Posted by an app or integration (an alert), not typed by a person."""
    return bool(message.get("bot_id")) or message.get("subtype") == "bot_message"
