"""What a piece of Markdown lays out, read from a real parser's token stream.

:func:`markdown_facts` parses the text once with markdown-it (CommonMark, no raw HTML)
and says whether it holds a list, a numbered list, code (a fence, an indented block, or
a shell prompt line ``$ cmd`` written as text), only quoted text (a warning or a note),
and whether its prose ends pointing ahead ("... can be used:"). Answers read these facts
of a section once per index generation, not per question.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

_PARSER = MarkdownIt("commonmark", {"html": False})
_PROMPT = "$ "


@dataclass(frozen=True)
class MarkdownFacts:
    has_list: bool = False  # a bullet or numbered list
    has_numbered: bool = False  # a numbered list: steps in order
    has_code: bool = False  # a code block, fenced or indented, or a "$ cmd" line
    only_quoted: bool = False  # nothing but block quotes: a warning or a note
    ends_pointing_ahead: bool = False  # its last paragraph ends with a colon

    @property
    def lays_out_steps(self) -> bool:
        """A list or code: something to do, not only prose."""
        return self.has_list or self.has_code


@lru_cache(maxsize=8192)
def markdown_facts(markdown: str) -> MarkdownFacts:
    """The facts of ``markdown`` (see the module's docstring)."""
    tokens = _PARSER.parse(markdown)
    has_list = has_numbered = has_code = False
    quoted = unquoted = False
    last_paragraph = ""
    depth = 0
    for t in tokens:
        if t.type == "blockquote_open":
            depth += 1
        elif t.type == "blockquote_close":
            depth -= 1
        elif t.type in ("bullet_list_open", "ordered_list_open"):
            has_list = True
            has_numbered = has_numbered or t.type == "ordered_list_open"
        elif t.type in ("fence", "code_block"):
            has_code = True
        elif t.type == "inline":
            lines = t.content.splitlines()
            has_code = has_code or any(line.lstrip().startswith(_PROMPT) for line in lines)
            if t.level == 1 and depth == 0:  # a paragraph of its own, not in a list
                last_paragraph = t.content
        if t.block and t.level == 0 and t.type not in ("paragraph_open", "paragraph_close"):
            last_paragraph = ""  # something comes after the paragraph: it led into that
        if t.block and t.nesting >= 0 and not t.type.startswith("blockquote"):
            quoted = quoted or depth > 0
            unquoted = unquoted or depth == 0
    return MarkdownFacts(
        has_list=has_list,
        has_numbered=has_numbered,
        has_code=has_code,
        only_quoted=quoted and not unquoted,
        ends_pointing_ahead=last_paragraph.rstrip().endswith(":"),
    )
