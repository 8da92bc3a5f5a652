"""Markdown's code blocks as CommonMark reads them: fenced and indented, with their text
and their lines.

:func:`code_blocks` parses the text with markdown-it (CommonMark, no raw HTML) and gives
its code blocks in order, from the parser's ``fence`` and ``code_block`` tokens:

* fenced code (```` ``` ```` or ``~~~``, at the margin or in a list item), its language
  tag as ``info``;
* indented code: four spaces past the margin, or past a list item's text, after a blank
  line (the wrapped lines of a paragraph or list item are no code, however indented).
  A fence indented that far is read as the fenced code it was meant to be.

A block's ``text`` is its code byte for byte, less the indent that places it (a list
item's, the fence's own, the four spaces that make indented code); ``start`` and
``end`` are its lines (0-based, ``end`` excluded), its fences included. Code inside a
block quote is left out unless asked for: its lines carry the quote's ``>``, and a reader
that shows the quote reads the code with it.

Every reader of a quote's code goes through here: Slack's mrkdwn, the first command an
answer and an alert card show, and the examples folded behind "Show example" in Slack
and on the web pages.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import lru_cache

from markdown_it import MarkdownIt

from core.fences import fence_open

_PARSER = MarkdownIt("commonmark", {"html": False})
# a lone carriage return ends a line for CommonMark, not for str.split("\n"): it is held
# as this private-use character while parsing, so that line numbers agree
_LONE_CR = re.compile(r"\r(?!\n)")
_CR_MARK = "\ue003"


@dataclass(frozen=True)
class CodeBlock:
    start: int  # its first line (a fenced block's opening fence), 0-based
    end: int  # the line after its last (after the closing fence)
    text: str  # its code, without the indent that places it; no final line break
    info: str = ""  # a fenced block's language tag and whatever follows it
    fenced: bool = False
    quoted: bool = False  # inside a block quote
    # the column of the text it is placed in (a list item's), where a line that stands
    # for it goes: a fence's own indent, four spaces less than indented code's
    indent: int = 0

    @property
    def language(self) -> str:
        """Its language tag (the info string's first word), "" when it has none."""
        return self.info.split(maxsplit=1)[0] if self.info else ""


def code_blocks(markdown: str, *, quoted: bool = False) -> tuple[CodeBlock, ...]:
    """The code blocks of ``markdown`` in order, those inside a block quote too when
    ``quoted``. Lines are counted as ``markdown.split("\\n")`` counts them."""
    found = _code_blocks(markdown)
    return found if quoted else tuple(b for b in found if not b.quoted)


def in_code(markdown: str) -> list[bool]:
    """Per line of ``markdown.split("\\n")``: is it a line of a code block (a fence
    included), quoted or not?"""
    out = [False] * (markdown.count("\n") + 1)
    for block in code_blocks(markdown, quoted=True):
        out[block.start : block.end] = [True] * len(out[block.start : block.end])
    return out


@lru_cache(maxsize=1024)
def _code_blocks(markdown: str) -> tuple[CodeBlock, ...]:
    if "\r" not in markdown:
        return tuple(_read(markdown, 0, quoted=False))
    return tuple(
        replace(b, text=b.text.replace(_CR_MARK, "\r"))
        for b in _read(_LONE_CR.sub(_CR_MARK, markdown), 0, quoted=False)
    )


def _read(
    markdown: str, offset: int, *, quoted: bool, indent: int | None = None
) -> Iterator[CodeBlock]:
    """The code blocks of ``markdown``, its lines numbered from ``offset``; all of them
    inside a quote when ``quoted``, all placed at column ``indent`` when it is given."""
    lines = markdown.split("\n")
    depth = 0  # of block quotes
    for t in _PARSER.parse(markdown):
        if t.type == "blockquote_open":
            depth += 1
        elif t.type == "blockquote_close":
            depth -= 1
        elif t.type in ("fence", "code_block") and t.map is not None:
            inside = quoted or depth > 0
            start, end = t.map[0] + offset, t.map[1] + offset
            first = lines[t.map[0]].expandtabs(4)
            lead = len(first) - len(first.lstrip(" "))
            text = t.content.removesuffix("\n")
            if t.type == "fence":
                place = lead if indent is None else indent
                yield CodeBlock(start, end, text, t.info.strip(), True, inside, place)
            elif fence_open(text.split("\n", 1)[0]) is not None:
                # a fence indented past a list item's text: the fenced code it was meant as
                yield from _read(text, start, quoted=inside, indent=max(lead - 4, 0))
            else:
                yield CodeBlock(start, end, text, quoted=inside, indent=max(lead - 4, 0))
