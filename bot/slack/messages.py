"""Reading Slack messages: the question in a mention, and all the text of a message
(text, attachments, blocks), e.g. an alert posted by an integration."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from retrieval.reading import query_terms

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


# Slack's markup in what a person types: <https://x|label>, <@U123>, <#C123|name>,
# <!here>, <!subteam^S123|@team>; &amp; &lt; &gt; for & < >; emoji as :name:.
_SLACK_REFERENCE = re.compile(r"<([^<>|]*)(?:\|([^<>]*))?>")
_EMOJI = re.compile(r"(?<!\S):[a-z0-9_+'-]+:(?!\S)")


def _reference_text(m: re.Match[str]) -> str:
    target, label = m.group(1), m.group(2)
    if target.startswith("!subteam"):
        return label or ""  # @sre-oncall
    if target.startswith(("@", "!")):
        return " "  # a person, @here, @channel: who, not what
    if target.startswith("#"):
        return f"#{label}" if label else " "
    return label or target  # a link: what the person sees


def plain_question(text: str) -> str:
    """What a person typed, as they saw it: links as their text, channels and groups by
    name, people and emoji left out, ``&lt;`` as ``<``. The search reads words, not
    Slack's markup (``<https://grafana…|dashboard>`` is "dashboard")."""
    text = _SLACK_REFERENCE.sub(_reference_text, text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return " ".join(_EMOJI.sub(" ", text).split())


def question_of(event: dict[str, Any], bot_user_id: str | None) -> str:
    """What a message event asks: its text without the bot's mention, as the person
    saw it, cut to :data:`MAX_QUESTION_CHARS`."""
    text = strip_mention(str(event.get("text") or ""), bot_user_id)
    return plain_question(text)[:MAX_QUESTION_CHARS]


def is_help(text: str) -> bool:
    return text.strip().lower() in HELP_WORDS


def asks_nothing(text: str) -> bool:
    """Asked without any context: a request for help, or no word that could name a
    system, a symptom or a step ("help me", "can you help", "what now?"). Usage is a better
    answer than the runbooks that happen to be closest to nothing. (In a thread the
    same words are a follow-up and mean something.)"""
    return not text.strip() or is_help(text) or not query_terms(text)


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
