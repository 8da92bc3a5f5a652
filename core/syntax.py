"""One markup syntax: what sets it apart for reading runbooks (see :mod:`core.markup`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: (first line start, last line end, level, title) of every heading after ``start``
Headings = Callable[[str, int], list[tuple[int, int, int, str]]]


def after_front_matter(text: str, start: int) -> int:
    """The text begins where the front matter ends (every syntax but MDX)."""
    return start


@dataclass(frozen=True)
class Syntax:
    name: str
    suffixes: tuple[str, ...]
    headings: Headings
    # the marker a line opens a code (or other delimited) block with, or None
    fence_open: Callable[[str], str | None]
    # does the line close the block opened with the marker?
    fence_closes: Callable[[str, str], bool]
    # the text as Markdown, for display only (quotes keep the file's own markup)
    as_markdown: Callable[[str], str]
    # where a document's text begins, given where its front matter ends (MDX: after
    # the import and export statements that follow)
    body_start: Callable[[str, int], int] = after_front_matter
