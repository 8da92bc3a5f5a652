"""MDX runbooks (Docusaurus and similar sites): Markdown that may open with imports.

An ``.mdx`` file is Markdown plus JSX. What sets it apart at the top is a block of
ES module statements after the front matter (``import Tabs from '@theme/Tabs';``,
``export const meta = {...};``): code for the site's build, not text for an
on-call engineer. The body starts after that block; offsets still point into the
original file, so quotes stay verbatim. JSX elements in the body (``<Tabs>``) are
kept as they are, like HTML in Markdown.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.markdown import MARKDOWN, iter_lines
from core.site_markdown import as_markdown as site_as_markdown

_STATEMENT = re.compile(r"^(import|export)\b")
# a statement ends on a line ending in ";", or naming its module ('from "x"', 'import "x"')
_ENDS = re.compile(r"""(;\s*$|\bfrom\s+(['"])[^'"]*\2\s*$|^import\s+(['"])[^'"]*\3\s*$)""")


def body_start(text: str, start: int) -> int:
    """Where the body of an MDX file begins: after the import and export statements
    (and the blank lines among them) that follow ``start``; ``start`` when none do."""
    end = start  # after the last statement line seen
    open_statement = False
    for _ls, le, line in iter_lines(text, start):
        if open_statement or _STATEMENT.match(line):
            open_statement = not _ENDS.search(line)
            end = min(le + 1, len(text))
        elif line.strip():
            break
    if end == start:
        return start
    while end < len(text) and text[end] == "\n":
        end += 1
    return end


def as_markdown(text: str) -> str:
    """An MDX page as Markdown: site markup and its components' tag lines."""
    return site_as_markdown(text, jsx=True)


MDX = replace(
    MARKDOWN, name="mdx", suffixes=(".mdx",), body_start=body_start, as_markdown=as_markdown
)
