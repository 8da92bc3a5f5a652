"""Notion blocks as Markdown: the text a Notion page is indexed, quoted and cited as.

Headings, paragraphs, bulleted and numbered lists (nested), to-dos, code blocks,
quotes and callouts (as block quotes), simple tables, dividers and equations.
Toggles, columns and synced blocks are unfolded in place; child pages, databases,
files and images are left out. Each heading's offset in the text is recorded with
its block id, the anchor of a link to that heading.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Block = Mapping[str, Any]

#: Bump when the rendering changes: every Notion page is then rendered anew.
RENDERING_VERSION = "1"

_HEADINGS = {"heading_1": "#", "heading_2": "##", "heading_3": "###"}
_UNFOLDED = frozenset({"column_list", "column", "synced_block"})
_CHILDREN_FOLLOW = frozenset({"toggle", *_HEADINGS})
_LISTS = frozenset({"bulleted_list_item", "numbered_list_item", "to_do"})


@dataclass(frozen=True)
class Rendered:
    text: str
    anchors: tuple[tuple[int, str], ...]  # (offset of a heading, its block id)


def compact_id(notion_id: str) -> str:
    """A Notion id without dashes, as page URLs and anchors write it."""
    return notion_id.replace("-", "").lower()


def _body(block: Block) -> Mapping[str, Any]:
    body = block.get(str(block.get("type")))
    return body if isinstance(body, Mapping) else {}


def _children(block: Block) -> Sequence[Block]:
    kids = block.get("children")
    return kids if isinstance(kids, list) else ()


def rich_text(items: Any) -> str:
    """Notion rich text as Markdown: bold, italic, strikethrough, code and links."""
    out: list[str] = []
    for item in items if isinstance(items, list) else ():
        text = str(item.get("plain_text") or "")
        if not text:
            continue
        if item.get("type") == "equation":
            out.append(f"${text}$")
            continue
        notes = item.get("annotations") or {}
        lead, core, trail = _split_space(text)
        if core:
            if notes.get("code"):
                core = f"`{core}`"
            else:
                if notes.get("bold"):
                    core = f"**{core}**"
                if notes.get("italic"):
                    core = f"*{core}*"
                if notes.get("strikethrough"):
                    core = f"~~{core}~~"
            href = item.get("href")
            if href:
                core = f"[{core}]({href})"
        out.append(lead + core + trail)
    return "".join(out)


def _split_space(text: str) -> tuple[str, str, str]:
    core = text.strip()
    if not core:
        return text, "", ""
    start = text.index(core)
    return text[:start], core, text[start + len(core) :]


def _plain(items: Any) -> str:
    if not isinstance(items, list):
        return ""
    return "".join(str(i.get("plain_text") or "") for i in items if isinstance(i, Mapping))


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line if line else line for line in text.split("\n"))


def _quoted(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.split("\n"))


def _cell(items: Any) -> str:
    return rich_text(items).replace("|", "\\|").replace("\n", " ")


def _table(block: Block) -> str:
    rows = [
        [
            rich_text(cell).replace("|", "\\|").replace("\n", " ")
            for cell in _body(r).get("cells", [])
        ]
        for r in _children(block)
        if r.get("type") == "table_row"
    ]
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * width]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


def _item(marker: str, text: str, block: Block) -> str:
    """A list item and its nested blocks, indented under it."""
    nested = join(_children(block)).text
    head = f"{marker} {text}".rstrip()
    return head + ("\n" + _indent(nested, " " * (len(marker) + 1)) if nested else "")


def render_block(block: Block, number: int = 1) -> str:
    """One block (without the blocks that follow it) as Markdown; "" for nothing."""
    kind = str(block.get("type"))
    body = _body(block)
    text = rich_text(body.get("rich_text"))
    if kind == "paragraph":
        return text
    if kind in _HEADINGS:
        return f"{_HEADINGS[kind]} {text}" if text.strip() else ""
    if kind == "bulleted_list_item":
        return _item("-", text, block)
    if kind == "numbered_list_item":
        return _item(f"{number}.", text, block)
    if kind == "to_do":
        return _item("- [x]" if body.get("checked") else "- [ ]", text, block)
    if kind == "toggle":
        return text
    if kind == "code":
        language = str(body.get("language") or "").replace("plain text", "").replace(" ", "-")
        return f"```{language}\n{_plain(body.get('rich_text'))}\n```"
    if kind in ("quote", "callout"):
        icon = body.get("icon") or {}
        emoji = str(icon.get("emoji") or "") if kind == "callout" else ""
        lead = f"{emoji} {text}".strip() if emoji else text
        nested = join(_children(block)).text
        inner = "\n\n".join(p for p in (lead, nested) if p)
        return _quoted(inner) if inner else ""
    if kind == "table":
        return _table(block)
    if kind == "divider":
        return "***"
    if kind == "equation":
        return f"$$\n{body.get('expression', '')}\n$$"
    if kind in ("bookmark", "embed", "link_preview"):
        url = str(body.get("url") or "")
        caption = rich_text(body.get("caption"))
        return f"[{caption}]({url})" if url and caption else (f"<{url}>" if url else "")
    return ""  # child pages and databases, files, images, unsupported blocks


def _unfolded(blocks: Sequence[Block]) -> Iterator[Block]:
    for block in blocks:
        kind = block.get("type")
        if kind in _UNFOLDED:
            yield from _unfolded(_children(block))
            continue
        yield block
        if kind in _CHILDREN_FOLLOW:
            yield from _unfolded(_children(block))


def join(blocks: Sequence[Block]) -> Rendered:
    """Blocks as Markdown: list items of one list on consecutive lines, other blocks
    apart by a blank line."""
    parts: list[str] = []
    anchors: list[tuple[int, str]] = []
    size = 0
    previous: str | None = None
    number = 0
    for block in _unfolded(blocks):
        kind = str(block.get("type"))
        number = number + 1 if kind == "numbered_list_item" and previous == kind else 1
        piece = render_block(block, number)
        if not piece:
            if kind == "paragraph":  # an empty paragraph ends a list, as in Notion
                previous = None
            continue
        if parts:
            same_list = kind in _LISTS and previous in _LISTS
            sep = "\n" if same_list else "\n\n"
            parts.append(sep)
            size += len(sep)
        if kind in _HEADINGS and block.get("id"):
            anchors.append((size, compact_id(str(block["id"]))))
        parts.append(piece)
        size += len(piece)
        previous = kind
    return Rendered("".join(parts), tuple(anchors))


def render_page(blocks: Sequence[Block]) -> Rendered:
    """A page's blocks as the Markdown text it is indexed as (ending in a newline)."""
    rendered = join(blocks)
    return Rendered(rendered.text + "\n" if rendered.text else "", rendered.anchors)
