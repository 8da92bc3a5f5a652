"""Which markup a runbook is written in, told by its file name.

Runbooks are Markdown (``.md``, ``.markdown``), MDX (``.mdx``: Markdown read from
after its imports), AsciiDoc (``.adoc``) or reStructuredText (``.rst``). Each
syntax says where its headings and its code blocks are; sections, blocks, chunks and
quotes are built from that the same way for all of them (:mod:`core.markdown`), and
quotes stay verbatim in the file's own markup.
"""

from __future__ import annotations

from core.asciidoc import ASCIIDOC
from core.markdown import MARKDOWN
from core.mdx import MDX
from core.restructuredtext import RESTRUCTUREDTEXT
from core.syntax import Syntax

SYNTAXES: dict[str, Syntax] = {s.name: s for s in (MARKDOWN, MDX, ASCIIDOC, RESTRUCTUREDTEXT)}
DOCUMENT_SUFFIXES: tuple[str, ...] = tuple(x for s in SYNTAXES.values() for x in s.suffixes)


def without_suffix(path: str) -> str:
    """``path`` without its runbook suffix (``.md``, ``.adoc``, …; any letter case), as a
    wiki or a documentation site names the page."""
    lowered = path.lower()
    for suffix in DOCUMENT_SUFFIXES:
        if lowered.endswith(suffix):
            return path[: -len(suffix)]
    return path


def syntax_for(path: str) -> Syntax:
    """The syntax a file is written in, by its suffix; Markdown when none says."""
    lowered = path.lower()
    for syntax in SYNTAXES.values():
        if lowered.endswith(syntax.suffixes):
            return syntax
    return MARKDOWN
