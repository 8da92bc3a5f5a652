"""AsciiDoc runbooks: section titles and delimited blocks.

A section title is a line of ``=`` signs (or ``#``, which Asciidoctor also reads)
and a space: ``= Document title``, ``== Section``, ``=== Subsection``; the level is
the number of signs, so a document title is a level-1 heading as ``# x`` is in
Markdown. A trailing run of the same signs (``== Section ==``) is not part of the
title. Delimited blocks (``----`` listings, ``....`` literals, ``////`` comments,
``++++`` passthroughs, ``====`` examples, ``****`` sidebars, ``____`` quotes and
``|===`` tables) open and close on the same line and hold no section titles;
a ```` ``` ```` fence works as in Markdown.
"""

from __future__ import annotations

import re

from core.markdown import LABEL_LEVEL, iter_lines, marked_lines
from core.markdown import fence_closes as markdown_fence_closes
from core.markdown import fence_open as markdown_fence_open
from core.syntax import Syntax

_TITLE = re.compile(r"^(={1,6}|#{1,6})[ \t]+(\S.*?)(?:[ \t]+\1)?[ \t]*$")
_DELIMITER = re.compile(r"^(-{4,}|\.{4,}|/{4,}|\+{4,}|={4,}|\*{4,}|_{4,}|\|={3,})[ \t]*$")


def fence_open(line: str) -> str | None:
    """The delimiter a line opens a block with, or None."""
    m = _DELIMITER.match(line)
    if m is not None:
        return m.group(1)
    return markdown_fence_open(line)


def fence_closes(line: str, marker: str) -> bool:
    """Does ``line`` close the block opened with ``marker``? The same line closes it."""
    if marker.startswith(("`", "~")):
        return markdown_fence_closes(line, marker)
    return line.rstrip() == marker


# a block title on a line of its own: ".Prerequisites", ".Procedure", ".Verification" (not
# ". step", a list item, nor "....", a literal block's delimiter)
_BLOCK_TITLE = re.compile(r"^\.(?=[A-Za-z0-9])([^.\n][^\n]{0,79})$")


def headings(text: str, start: int = 0) -> list[tuple[int, int, int, str]]:
    """Every section title outside delimited blocks: (line start, line end, level, title).

    A block title after a blank line (``.Procedure`` over its steps, as modular docs
    write a procedure's parts) is a heading of the lowest level, as a bold label is in
    Markdown: it splits its section into parts, never into sections of its own."""
    out: list[tuple[int, int, int, str]] = []
    blank_before = True
    for ls, le, line, in_block in marked_lines(text, start, fence_open, fence_closes):
        if in_block:
            blank_before = False
            continue
        if m := _TITLE.match(line):
            out.append((ls, le, len(m.group(1)), m.group(2).strip()))
        elif blank_before and (b := _BLOCK_TITLE.match(line.rstrip())):
            out.append((ls, le, LABEL_LEVEL, b.group(1).strip()))
        blank_before = not line.strip()
    return out


_BLOCK_ATTRIBUTES = re.compile(r"^\[[^\]]*\]\s*$")  # [source,bash], [NOTE], [discrete]
_ATTRIBUTE_ENTRY = re.compile(r"^:!?[A-Za-z0-9_][\w-]*!?:(\s.*)?$")  # :owner: @team, :toc:
_ADMONITION = re.compile(r"^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):\s+(.*)$")
_ORDERED = re.compile(r"^(\.+)\s+(.*)$")  # ". Step", ".. Nested step"
_CODE_DELIMITERS = ("----", "....", "++++")
# inline references: https://host/x[text], link:path[text], xref:file.adoc#id[text],
# <<id,text>> and <<file.adoc#id,text>>
_URL_MACRO = re.compile(
    r"(?<![\w/])(?:link:([^\s\[\]]+)|((?:https?|ftp)://[^\s\[\]]+))\[([^\]\n]*)\]"
)
_XREF_MACRO = re.compile(r"(?<![\w/])xref:([^\s\[\]]+)\[([^\]\n]*)\]")
_XREF_SHORT = re.compile(r"<<([^,<>\n]+?)(?:,\s*([^<>\n]+?))?\s*>>")


def _xref_target(target: str) -> str:
    """``file.adoc#id`` as it is; a bare ``id`` is an anchor of the same page."""
    return target if "#" in target or "." in target else f"#{target}"


def _links(text: str) -> str:
    """Inline references as Markdown links, outside `code` spans."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):  # even pieces lie outside backticks
        piece = _URL_MACRO.sub(
            lambda m: f"[{m.group(3) or m.group(1) or m.group(2)}]({m.group(1) or m.group(2)})",
            parts[i],
        )
        piece = _XREF_MACRO.sub(
            lambda m: f"[{m.group(2) or m.group(1)}]({_xref_target(m.group(1))})", piece
        )
        parts[i] = _XREF_SHORT.sub(
            lambda m: f"[{m.group(2) or m.group(1)}]({_xref_target(m.group(1))})", piece
        )
    return "`".join(parts)


def as_markdown(text: str) -> str:
    """AsciiDoc as Markdown, for display only: titles as ``#`` headings, listing and
    literal blocks as code fences, ``. step`` lists numbered, ``WARNING: x`` as a
    warning line, links and cross references (``link:x[text]``, ``xref:f.adoc#id[text]``,
    ``<<id,text>>``) as Markdown links; comments, block attributes and attribute entries
    (``:owner: x``, a definition the page never shows) are left out."""
    out: list[str] = []
    fence: str | None = None
    numbers: dict[int, int] = {}
    # a block attached to the list item above by a ``+`` line: indented under the item,
    # and the list goes on after it ("2." follows "1." and its code block)
    attached = ""
    for _ls, _le, line in iter_lines(text, 0):
        if fence is not None:
            if fence_closes(line, fence):
                if not fence.startswith("/"):
                    out.append(attached + "```")
                fence = None
                attached = ""
            elif not fence.startswith("/"):
                out.append(attached + line if line.strip() else line)
            continue
        if line.strip() == "+" and numbers:
            attached = "   " * max(numbers)
            continue
        opened = fence_open(line)
        if opened is not None and (opened.startswith(_CODE_DELIMITERS) or opened[0] in "`~/"):
            fence = opened
            if opened.startswith(("`", "~")):
                out.append(attached + line)
            elif not opened.startswith("/"):
                out.append(attached + "```")
            continue
        if opened is not None:
            continue  # an example, sidebar or quote block shows its content as it is
        if _BLOCK_ATTRIBUTES.match(line) or _ATTRIBUTE_ENTRY.match(line) or line.startswith("//"):
            continue
        line = _links(line)
        if (m := _TITLE.match(line)) is not None:
            out.append("#" * len(m.group(1)) + " " + m.group(2))
        elif (m := _BLOCK_TITLE.match(line.rstrip())) is not None:
            out.append(f"**{m.group(1).strip()}**")
        elif (m := _ADMONITION.match(line)) is not None:
            out.append(attached + f"> **{m.group(1)}:** {m.group(2)}")
        elif (m := _ORDERED.match(line)) is not None:
            depth = len(m.group(1))
            numbers = {d: n for d, n in numbers.items() if d <= depth}
            numbers[depth] = numbers.get(depth, 0) + 1
            out.append("   " * (depth - 1) + f"{numbers[depth]}. {m.group(2)}")
            attached = ""
            continue
        elif attached and line.strip():
            out.append(attached + line)  # a paragraph attached to the item
            continue
        else:
            out.append(line)
        if line.strip():
            numbers = {}
            attached = ""
    return "\n".join(out)


ASCIIDOC = Syntax(
    name="asciidoc",
    suffixes=(".adoc", ".asciidoc"),
    headings=headings,
    fence_open=fence_open,
    fence_closes=fence_closes,
    as_markdown=as_markdown,
)
