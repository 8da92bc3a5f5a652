"""Slack Block Kit limits as a reusable test assertion.

``assert_valid_blocks(message)`` accepts a ``bot.slack.blockkit.Message`` or anything with ``text``
and ``blocks`` attributes, or a plain ``{"text": ..., "blocks": [...]}`` dict (e.g. a
recorded ``chat.postMessage`` call), and fails with every violation it found.

The limits are Slack's documented ones, plus a conservative total of block text per message
(Slack answers ``msg_blocks_too_long`` at around 13,000 characters) and a check that no
untrusted text smuggled in a special mention (``<!channel>``, ``<@U…>`` …): the bot's own
user and user-group mentions are allowed only in blocks whose ``block_id`` starts with
"mention", and nothing may ever notify a whole channel.

``markdown_leaks(message)`` lists raw Markdown a reader would see (``**x**``, ``[t](u)``,
``#### Heading``, ``> **WARNING:**``, code fences with a language tag, ``- item``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

MAX_BLOCKS = 50
MAX_TEXT = 3000  # a text object, section text, context element
MAX_FALLBACK_TEXT = 3000  # runbook-bot's own limit on the top-level text
MAX_FIELDS = 10
MAX_FIELD_TEXT = 2000
MAX_CONTEXT_ELEMENTS = 10
MAX_ACTIONS_ELEMENTS = 25
MAX_HEADER_TEXT = 150
MAX_BUTTON_TEXT = 75
MAX_BUTTON_VALUE = 2000
MAX_URL = 3000
MAX_ID = 255  # block_id, action_id
MAX_MESSAGE_CHARS = 12_000

KNOWN_BLOCKS = {"section", "context", "actions", "header", "divider", "image", "rich_text"}
SPECIAL_MENTION = re.compile(r"<(?:!(?:channel|here|everyone|subteam\^)|@[UW])", re.I)
BROADCAST = re.compile(r"<!(?:channel|here|everyone)\b", re.I)
#: the bot's own mentions, built from validated ids, only in blocks marked for them
OWN_MENTION = re.compile(r"<(?:@[UW][A-Z0-9]{2,30}|!subteam\^S[A-Z0-9]{2,30}(?:\|[^<>|]*)?)>")
MENTION_BLOCK = "mention"
FENCE = "```"


def _parts(message: Any) -> tuple[Any, Any]:
    if isinstance(message, Mapping):
        return message.get("text"), message.get("blocks")
    return getattr(message, "text", None), getattr(message, "blocks", None)


def _text_objects(block: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(where, text object) for every text object in a block."""
    if isinstance(block.get("text"), Mapping):
        yield "text", block["text"]
    for i, field in enumerate(block.get("fields") or []):
        yield f"fields[{i}]", field
    for i, element in enumerate(block.get("elements") or []):
        if not isinstance(element, Mapping):
            continue
        if element.get("type") in ("mrkdwn", "plain_text"):
            yield f"elements[{i}]", element
        elif isinstance(element.get("text"), Mapping):
            yield f"elements[{i}].text", element["text"]
    accessory = block.get("accessory")
    if isinstance(accessory, Mapping) and isinstance(accessory.get("text"), Mapping):
        yield "accessory.text", accessory["text"]


def block_violations(message: Any, *, allow_mentions: bool = False) -> list[str]:
    """Every Slack limit the message breaks, as readable strings (empty when valid)."""
    text, blocks = _parts(message)
    problems: list[str] = []
    if not isinstance(text, str) or not text.strip():
        problems.append("top-level text must be a non-empty string")
    elif len(text) > MAX_FALLBACK_TEXT:
        problems.append(f"top-level text has {len(text)} > {MAX_FALLBACK_TEXT} chars")
    if not isinstance(blocks, list):
        return [*problems, "blocks must be a list"]
    if len(blocks) > MAX_BLOCKS:
        problems.append(f"{len(blocks)} blocks > {MAX_BLOCKS}")

    block_ids: set[str] = set()
    total_chars = 0
    for n, block in enumerate(blocks):
        where = f"blocks[{n}]"
        if not isinstance(block, Mapping):
            problems.append(f"{where} is not an object")
            continue
        kind = block.get("type")
        if kind not in KNOWN_BLOCKS:
            problems.append(f"{where} has unknown type {kind!r}")
        block_id = block.get("block_id")
        if block_id is not None:
            if not isinstance(block_id, str) or not 0 < len(block_id) <= MAX_ID:
                problems.append(f"{where}.block_id must be 1..{MAX_ID} chars")
            elif block_id in block_ids:
                problems.append(f"{where}.block_id {block_id!r} is not unique")
            else:
                block_ids.add(block_id)

        for part, obj in _text_objects(block):
            value = obj.get("text")
            label = f"{where}.{part}"
            if obj.get("type") not in ("mrkdwn", "plain_text"):
                problems.append(f"{label} has text type {obj.get('type')!r}")
            if not isinstance(value, str) or not value:
                problems.append(f"{label} text must be a non-empty string")
                continue
            total_chars += len(value)
            if len(value) > MAX_TEXT:
                problems.append(f"{label} has {len(value)} > {MAX_TEXT} chars")
            if obj.get("type") == "mrkdwn":
                if value.count(FENCE) % 2:
                    problems.append(f"{label} has an unbalanced ``` code fence")
                if BROADCAST.search(value):
                    problems.append(f"{label} notifies a whole channel: {value[:80]!r}")
                own = str(block_id or "").startswith(MENTION_BLOCK)
                rest = OWN_MENTION.sub("", value) if own else value
                if not allow_mentions and SPECIAL_MENTION.search(rest):
                    problems.append(f"{label} contains a special mention: {value[:80]!r}")

        if kind == "section":
            fields = block.get("fields") or []
            if "text" not in block and not fields:
                problems.append(f"{where} section needs text or fields")
            if len(fields) > MAX_FIELDS:
                problems.append(f"{where} has {len(fields)} > {MAX_FIELDS} fields")
            for i, field in enumerate(fields):
                if len(str(field.get("text", ""))) > MAX_FIELD_TEXT:
                    problems.append(f"{where}.fields[{i}] > {MAX_FIELD_TEXT} chars")
        elif kind == "context":
            elements = block.get("elements") or []
            if not 0 < len(elements) <= MAX_CONTEXT_ELEMENTS:
                problems.append(f"{where} context has {len(elements)} elements (1..10)")
        elif kind == "header":
            header = block.get("text") or {}
            if header.get("type") != "plain_text":
                problems.append(f"{where} header text must be plain_text")
            if len(str(header.get("text", ""))) > MAX_HEADER_TEXT:
                problems.append(f"{where} header text > {MAX_HEADER_TEXT} chars")
        elif kind == "actions":
            problems.extend(_action_violations(where, block.get("elements") or []))

    if total_chars > MAX_MESSAGE_CHARS:
        problems.append(f"{total_chars} chars of block text > {MAX_MESSAGE_CHARS}")
    return problems


def _action_violations(where: str, elements: list[Any]) -> list[str]:
    problems: list[str] = []
    if not 0 < len(elements) <= MAX_ACTIONS_ELEMENTS:
        problems.append(f"{where} actions has {len(elements)} elements (1..25)")
    action_ids: set[str] = set()
    for i, element in enumerate(elements):
        label = f"{where}.elements[{i}]"
        action_id = element.get("action_id")
        if action_id is not None:
            if not isinstance(action_id, str) or not 0 < len(action_id) <= MAX_ID:
                problems.append(f"{label}.action_id must be 1..{MAX_ID} chars")
            elif action_id in action_ids:
                problems.append(f"{label}.action_id {action_id!r} repeats in the block")
            else:
                action_ids.add(action_id)
        if element.get("type") != "button":
            continue
        text = element.get("text") or {}
        if text.get("type") != "plain_text":
            problems.append(f"{label} button text must be plain_text")
        if len(str(text.get("text", ""))) > MAX_BUTTON_TEXT:
            problems.append(f"{label} button text > {MAX_BUTTON_TEXT} chars")
        if len(str(element.get("value", ""))) > MAX_BUTTON_VALUE:
            problems.append(f"{label} button value > {MAX_BUTTON_VALUE} chars")
        if len(str(element.get("url", ""))) > MAX_URL:
            problems.append(f"{label} button url > {MAX_URL} chars")
        if element.get("style") not in (None, "primary", "danger"):
            problems.append(f"{label} button style {element.get('style')!r}")
    return problems


def assert_valid_blocks(message: Any, *, allow_mentions: bool = False) -> None:
    """Fail with every Slack limit ``message`` breaks."""
    problems = block_violations(message, allow_mentions=allow_mentions)
    assert not problems, "invalid Slack message:\n  " + "\n  ".join(problems)


_CODE_BLOCK = re.compile(r"```.*?```", re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LINK_MARKUP = re.compile(r"<[^<>]*>")
_RAW_MARKDOWN = (
    ("bold **x**", re.compile(r"(?<!\*)\*{2,3}[^\s*]")),  # a run of 3+ before a space is literal
    ("bold __x__", re.compile(r"(?<!\w)__\S.*?__(?!\w)")),
    ("link [t](u)", re.compile(r"\]\(")),
    ("heading", re.compile(r"^\s*#{1,6}\s", re.M)),
    ("quoted warning", re.compile(r"^\s*(>|&gt;)\s*(\*\*|\[!)", re.M)),
    ("list dash", re.compile(r"^\s*[-+]\s+\S", re.M)),
    ("task box", re.compile(r"^\s*(?:[•◦]|\d+\.)\s+\[[ xX]\]\s", re.M)),
    ("html comment", re.compile(r"&lt;!--")),
    ("table row", re.compile(r"^\s*\|.*\|\s*$", re.M)),
    (
        "site shortcode",
        re.compile(
            r"\{\{(&lt;|%)-?\s*/?\s*(?:(?:rel)?ref|highlight|notice|alert|hint|callout|admonition)\b"
        ),
    ),
    ("admonition", re.compile(r"^\s*(!!!|\?\?\?\+?|:{3,})\s*[A-Za-z]", re.M)),
    ("wiki link", re.compile(r"\[\[(?!\s)[^\[\]\n]+(?<!\s)\]\]")),
    ("raw html", re.compile(r"&lt;/?(?:details|summary|a|img|p|div|center)\b", re.I)),
)
_FENCE_TAG = re.compile(r"```[a-z]+\n")


def markdown_leaks(message: Any) -> list[str]:
    """Raw Markdown the reader would see in a message's mrkdwn (outside code)."""
    _, blocks = _parts(message)
    found: list[str] = []
    for n, block in enumerate(blocks or []):
        for part, obj in _text_objects(block):
            if obj.get("type") != "mrkdwn":
                continue
            value = str(obj.get("text") or "")
            if _FENCE_TAG.search(value):
                found.append(f"blocks[{n}].{part}: code fence with a language tag")
            prose = _LINK_MARKUP.sub("L", _CODE_SPAN.sub("C", _CODE_BLOCK.sub("", value)))
            for name, pattern in _RAW_MARKDOWN:
                m = pattern.search(prose)
                if m is not None:
                    near = prose[max(0, m.start() - 20) : m.end() + 20]
                    found.append(f"blocks[{n}].{part}: {name}: {near!r}")
    return found
