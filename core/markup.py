"""Which markup a runbook is written in, told by its file name.

Runbooks are Markdown (``.md``, ``.markdown``, MDX's ``.mdx``), AsciiDoc (``.adoc``)
or reStructuredText (``.rst``). Each syntax says where its headings and its code
blocks are; sections, blocks, chunks and quotes are built from that the same way
for all of them (:mod:`core.markdown`), and quotes stay verbatim in the file's own
markup.
"""

from __future__ import annotations

from typing import Protocol


class Syntax(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def suffixes(self) -> tuple[str, ...]: ...

    def headings(self, text: str, start: int = 0) -> list[tuple[int, int, int, str]]:
        """Every heading after ``start``: (first line start, last line end, level, title)."""
        ...

    def fence_open(self, line: str) -> str | None:
        """The marker a line opens a code (or other delimited) block with, or None."""
        ...

    def fence_closes(self, line: str, marker: str) -> bool:
        """Does ``line`` close the block opened with ``marker``?"""
        ...

    def as_markdown(self, text: str) -> str:
        """The text as Markdown, for display only (quotes keep the file's own markup)."""
        ...


from core.asciidoc import ASCIIDOC  # noqa: E402  (the syntaxes follow the protocol)
from core.markdown import MARKDOWN  # noqa: E402
from core.restructuredtext import RESTRUCTUREDTEXT  # noqa: E402

SYNTAXES: dict[str, Syntax] = {s.name: s for s in (MARKDOWN, ASCIIDOC, RESTRUCTUREDTEXT)}
DOCUMENT_SUFFIXES: tuple[str, ...] = tuple(x for s in SYNTAXES.values() for x in s.suffixes)


def syntax_for(path: str) -> Syntax:
    """The syntax a file is written in, by its suffix; Markdown when none says."""
    lowered = path.lower()
    for syntax in SYNTAXES.values():
        if lowered.endswith(syntax.suffixes):
            return syntax
    return MARKDOWN
