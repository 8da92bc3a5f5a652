"""Markdown structure shared by chunking and span selection.

The section and block functions take the document's syntax (:mod:`core.markup`):
Markdown by default, or AsciiDoc and reStructuredText, which differ only in where
headings and code blocks are.

Sections start at H1-H3 headings, in either CommonMark form: ``## Mitigation`` or a
line underlined with ``===`` (H1) or ``---`` (H2). A Markdown document's outline and a
section's blocks are read from a CommonMark parser's tokens (markdown-it, with their
line maps), so code, HTML comments, quotes and list steps hold no heading of the
page's. A label written in bold on a line of its own (``**Remediation
recommendations:**``), which many runbooks use instead of headings, is a heading of the
lowest level: it splits a section into parts (:mod:`retrieval.answer.outline`), never
into sections of its own. A section body splits into blocks (paragraphs, fenced code,
lists, tables); blocks glue into units that are never cut apart: a numbered procedure
with its code, a lead-in line ending in ``:`` (often a warning) with what follows it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

from core.fences import fence_closes, fence_open
from core.heading_text import only_a_link
from core.site_markdown import as_markdown, opens_a_tab
from core.syntax import Syntax

MAX_SPLIT_HEADING = 3
# the reader of a document's outline and a section's blocks: CommonMark with tables, HTML
# blocks and comments read as such; block structure only (no inline parsing)
_PARSER = MarkdownIt("commonmark", {"html": True}).enable("table").disable(["inline", "text_join"])
# a line that opens with emphasis, a table's pipe or HTML underlined is no heading
_NOT_SETEXT = re.compile(r"^ {0,3}[*_|<]")
_LONE_CR = re.compile(r"\r(?!\n)")
LIST_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*+])\s+")
# a label in bold on a line of its own: "**Remediation recommendations:**", "**Steps**:"
_LABEL = re.compile(
    r"^ {0,3}(?P<mark>\*\*|__)(?P<title>[^*_\n]{2,80}?)\s*(?P<inside>:?)\s*(?P=mark)"
    r"\s*(?P<after>:?)\s*$"
)
MAX_LABEL_WORDS = 8
# a label is the lowest heading there is: it splits its section into parts, never into
# chunks, and reads the same in a chunk as in the whole document
LABEL_LEVEL = 6
# bold lines that call out a paragraph or list the page, not begin a section
_NOT_LABELS = frozenset(
    "note notes nb warning warnings caution important tip tips hint info danger notice "
    "attention example examples disclaimer contents toc".split()
) | {"table of contents"}
# bold without a colon names a section only when it is what runbooks call one, as a
# document exported from a wiki writes its headings ("**Resolution**", "**What it
# means**", "**Steps to fix**"); other bold on a line of its own is emphasis
_SECTION_NAME = re.compile(
    r"^(?:[\w-]+ ){0,3}(?:overview|summary|description|meaning|means|impact|severity|"
    r"symptoms?|diagnosis|investigation|troubleshooting|triage|causes?|mitigation|"
    r"remediation|resolution|fix|solution|workaround|steps|procedure|actions|rollback|"
    r"verification|escalation|contacts?|prerequisites|begin|background|context|"
    r"dashboards?|logs)$",
    re.I,
)
# ... on any line of a text ("does this section lay out steps?")
LIST_ITEM_LINE = re.compile(LIST_ITEM.pattern, re.MULTILINE)
# a task list item's box, after its list marker: "[ ] step", "[x] step"
TASK_BOX = re.compile(r"^\[(?P<done>[ xX])\][ \t]+")


def task_box(box: re.Match[str]) -> str:
    """The box a task list shows: ``☐`` open, ``☑`` done."""
    return "☐" if box["done"] == " " else "☑"


# a table: a header row, then a separator row (| --- | :---: |), then its rows
TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")
TABLE_SEPARATOR = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$")


@dataclass(frozen=True)
class Section:
    heading_path: tuple[str, ...]
    start: int
    end: int
    body_start: int  # after the heading line


@dataclass(frozen=True)
class Block:
    start: int
    end: int
    kind: str  # code | list | lead | text | table | indent


def iter_lines(text: str, start: int) -> Iterator[tuple[int, int, str]]:
    """(line start, line end without newline, line) from ``start``."""
    pos = start
    n = len(text)
    while pos < n:
        nl = text.find("\n", pos)
        end = n if nl == -1 else nl
        yield pos, end, text[pos:end]
        pos = end + 1


def marked_lines(
    text: str,
    start: int,
    opens: Callable[[str], str | None],
    closes: Callable[[str, str], bool],
) -> Iterator[tuple[int, int, str, bool]]:
    """Every line from ``start`` (see :func:`iter_lines`) and whether it belongs to a
    code or other delimited block, its opening and closing lines included; ``opens``
    and ``closes`` are the syntax's ``fence_open`` and ``fence_closes``."""
    fence: str | None = None
    for ls, le, line in iter_lines(text, start):
        if fence is not None:
            if closes(line, fence):
                fence = None
            yield ls, le, line, True
            continue
        fence = opens(line)
        yield ls, le, line, fence is not None


def _rstrip_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _headed(
    text: str, body_start: int, syntax: Syntax | None
) -> Iterator[tuple[tuple[str, ...], int, int, int, bool]]:
    """(heading path, heading start, heading line end, section end, whether a subheading
    follows) of every heading a section is split at, in order."""
    found = (syntax or MARKDOWN).headings(text, body_start)
    heads = [h for h in found if h[2] <= MAX_SPLIT_HEADING]
    stack: list[tuple[int, str]] = []
    for i, (ls, le, level, title) in enumerate(heads):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        nxt = heads[i + 1] if i + 1 < len(heads) else None
        end = _rstrip_end(text, ls, nxt[0] if nxt else len(text))
        yield tuple(t for _, t in stack), ls, le, end, nxt is not None and nxt[2] > level


def sections(text: str, body_start: int, syntax: Syntax | None = None) -> list[Section]:
    found = (syntax or MARKDOWN).headings(text, body_start)
    first = next((h[0] for h in found if h[2] <= MAX_SPLIT_HEADING), len(text))
    out: list[Section] = []
    pre_end = _rstrip_end(text, body_start, first)
    if text[body_start:pre_end].strip():
        s = body_start
        while s < pre_end and text[s].isspace():
            s += 1
        out.append(Section((), s, pre_end, s))
    for path, ls, le, end, _nested in _headed(text, body_start, syntax):
        if text[le:end].strip():
            out.append(Section(path, ls, end, min(le + 1, end)))
    return out


def empty_sections(text: str, body_start: int, syntax: Syntax | None = None) -> list[Section]:
    """The sections with nothing under their heading: no text and no subsection
    (``## Mitigation`` followed by the next ``##``, or by the end of the file). Headings
    one after another with a link among them are a page's navigation
    (``## [Fleet dashboard](./fleet.md)``), not sections left empty."""
    out: list[Section] = []
    run: list[tuple[Section, bool]] = []  # bare headings in a row: (section, has subsections)

    def flush() -> None:
        if not any(only_a_link(s.heading_path[-1]) for s, _ in run):
            out.extend(s for s, nested in run if not nested)
        run.clear()

    for path, ls, le, end, nested in _headed(text, body_start, syntax):
        if text[le:end].strip():
            flush()
        else:
            run.append((Section(path, ls, end, min(le + 1, end)), nested))
    flush()
    return out


def split_blocks(text: str, start: int, end: int, syntax: Syntax | None = None) -> list[Block]:
    """The blocks of ``text[start:end]`` in order: paragraphs, code, lists (a list item's
    indented text and code with it), tables, and lead-ins (text that ends with a colon,
    a heading line alone, or a tab's opening line), which introduce what follows them.
    Markdown's are read from the CommonMark parser's tokens; another syntax's line by
    line."""
    markup = syntax or MARKDOWN
    blocks = (
        _parsed_blocks(text, start, end)
        if markup is MARKDOWN
        else _line_blocks(text, start, end, markup)
    )
    return [
        Block(b.start, b.end, "lead")
        if b.kind == "text"
        and (
            _leads_in(text[b.start : b.end])
            or _only_a_heading(text, b, markup)
            or opens_a_tab(text[b.start : b.end])
        )
        else b
        for b in blocks
    ]


# the kind of block each of the parser's top-level tokens opens (any other is text)
_TOKEN_KINDS = {
    "fence": "code",
    "code_block": "code",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "table_open": "table",
}


def _parsed_blocks(text: str, start: int, end: int) -> list[Block]:
    piece = text[start:end]
    lines = piece.split("\n")
    starts = list(itertools.accumulate((len(line) + 1 for line in lines), initial=start))
    out: list[Block] = []
    for tok in _PARSER.parse(_LONE_CR.sub(" ", piece)):
        if tok.level != 0 or tok.map is None:
            continue
        first, last = tok.map
        b_start = starts[first]
        b_end = _rstrip_end(text, b_start, starts[last - 1] + len(lines[last - 1]))
        kind = _TOKEN_KINDS.get(tok.type, "text")
        line = lines[first]
        if kind == "text" and tok.type == "paragraph_open":
            if line.lstrip().startswith("|"):
                kind = "table"  # a table without its separator row
            elif line.startswith(("  ", "\t")):
                kind = "indent"  # text under a list step, indented less than its words
        out.append(Block(b_start, b_end, kind))
    return _with_gaps(text, start, end, out)


def _with_gaps(text: str, start: int, end: int, blocks: list[Block]) -> list[Block]:
    """``blocks`` with the text the parser makes no block of (a link's reference
    definition, ``[docs]: https://...``) as text blocks of their own, so that no line
    of the section is left out of a chunk or a quote."""
    out: list[Block] = []
    pos = start
    for b in [*blocks, Block(end, end, "text")]:
        gap = text[pos : b.start]
        if gap.strip():
            g_start = pos + len(gap) - len(gap.lstrip())
            out.append(Block(g_start, _rstrip_end(text, g_start, b.start), "text"))
        if b.end > b.start:
            out.append(b)
        pos = max(pos, b.end)
    return out


def _line_blocks(text: str, start: int, end: int, markup: Syntax) -> list[Block]:
    blocks: list[Block] = []
    cur_start: int | None = None
    cur_end = start
    cur_kind = "text"
    fence: str | None = None  # the marker of the open code block
    for ls, le, line in iter_lines(text[:end], start):
        if fence is not None:
            cur_end = le
            if markup.fence_closes(line, fence):
                fence = None
                assert cur_start is not None
                blocks.append(Block(cur_start, cur_end, "code"))
                cur_start = None
            continue
        opened = markup.fence_open(line)
        if opened is not None:
            if cur_start is not None:
                blocks.append(Block(cur_start, cur_end, cur_kind))
            cur_start, cur_end, fence = ls, le, opened
            continue
        if not line.strip():
            if cur_start is not None:
                blocks.append(Block(cur_start, cur_end, cur_kind))
                cur_start = None
            continue
        if cur_start is None:
            cur_start = ls
            if LIST_ITEM.match(line):
                cur_kind = "list"
            elif line.lstrip().startswith("|"):
                cur_kind = "table"
            elif line.startswith(("  ", "\t")):
                cur_kind = "indent"
            else:
                cur_kind = "text"
        cur_end = le
    if cur_start is not None:
        kind = "code" if fence is not None else cur_kind
        if cur_kind == "text" and _leads_in(text[cur_start:cur_end]):
            kind = "lead"
        blocks.append(Block(cur_start, cur_end, kind))
    return blocks


# a lead-in ends with a colon, perhaps inside its emphasis ("**Warning:**")
_LEAD_IN_END = re.compile(r":[*_]*\s*\Z")


def _leads_in(block: str) -> bool:
    """Does the block introduce what follows it ("Run the following:", "**Warning:**")?"""
    return bool(_LEAD_IN_END.search(block))


def _only_a_heading(text: str, block: Block, markup: Syntax) -> bool:
    """Is the block a heading line (``###### Note``, a label) and nothing else? It leads
    into what follows it, and is never cut from it."""
    found = markup.headings(text[block.start : block.end], 0)
    return len(found) == 1 and found[0][0] == 0 and found[0][1] >= block.end - block.start


def group_blocks(blocks: list[Block]) -> list[tuple[int, int]]:
    """Blocks glued into units that are never cut apart."""
    groups: list[list[Block]] = []
    for b in blocks:
        if groups:
            prev = groups[-1][-1]
            in_list = any(x.kind == "list" for x in groups[-1])
            glue = (
                prev.kind == "lead"
                or (b.kind in ("list", "indent") and in_list)
                or (b.kind == "code" and in_list)
            )
            if glue:
                groups[-1].append(b)
                continue
        groups.append([b])
    return [(g[0].start, g[-1].end) for g in groups]


def label_title(line: str) -> str | None:
    """The title of a label line (``**Remediation recommendations:**``, ``**Steps**:``,
    or without the colon when it is what runbooks call a section: ``**Resolution**``,
    ``**What it means**``); None for any other line: other bold that ends without a
    colon is emphasis ("**Do not restart the primary**"), and a bold line that calls out
    a note or a warning or says a value (``**Default severity: Medium**``) is no section
    either."""
    m = _LABEL.match(line)
    if m is None:
        return None
    title = m["title"].strip()
    if not (m["inside"] or m["after"] or _SECTION_NAME.match(title)):
        return None
    if ":" in title or len(title.split()) > MAX_LABEL_WORDS or title.lower() in _NOT_LABELS:
        return None
    return title


def headings(text: str, start: int = 0) -> list[tuple[int, int, int, str]]:
    """Every heading of the document's own outline from ``start``: (line start, line end,
    level, title), read from the CommonMark parser's tokens (their line maps), so that
    fenced and indented code, HTML blocks and comments, block quotes and list items
    hold no heading of the document's.

    A setext heading (``Mitigation`` over ``---``) starts at its text line and ends
    with its underline. Only a one-line paragraph after a blank line (or at
    ``start``) counts, so a front matter block or a rule under a paragraph is not one.
    A label in bold on a line of its own after a blank line, ending with a colon or
    naming a runbook section (:func:`label_title`), is a heading of the lowest level
    (``LABEL_LEVEL``), in a list item too.
    """
    return list(_headings(text[start:], start))


# a document's text is read for its outline several times as it is chunked and outlined
@lru_cache(maxsize=256)
def _headings(text: str, offset: int) -> tuple[tuple[int, int, int, str], ...]:
    lines = text.split("\n")
    starts = list(itertools.accumulate((len(line) + 1 for line in lines), initial=offset))

    def blank_before(line: int) -> bool:
        return line == 0 or not lines[line - 1].strip()

    out: list[tuple[int, int, int, str]] = []
    # the parser reads a lone carriage return as a line break: a space keeps the lines
    tokens = _PARSER.parse(_LONE_CR.sub(" ", text))
    for i, tok in enumerate(tokens):
        if tok.map is None:
            continue
        first, end = tok.map
        last_end = starts[end - 1] + len(lines[end - 1])
        line = lines[first].rstrip("\r")
        label = label_title(line) if blank_before(first) else None
        if tok.type == "heading_open" and tok.level == 0:
            title = tokens[i + 1].content.strip()
            if not title:  # a bare "####" names nothing
                continue
            if tok.markup[:1] not in ("=", "-"):
                out.append((starts[first], last_end, int(tok.tag[1]), title))
            elif label is None and end - first == 2 and blank_before(first):
                # a setext heading's text is plain words: not emphasis, a table's row or HTML
                if not _NOT_SETEXT.match(line):
                    out.append((starts[first], last_end, int(tok.tag[1]), title))
                continue
        if label and tok.type in ("paragraph_open", "heading_open"):
            out.append((starts[first], starts[first] + len(lines[first]), LABEL_LEVEL, label))
    return tuple(out)


def heading_extents(
    text: str, start: int = 0, syntax: Syntax | None = None
) -> list[tuple[str, int, int]]:
    """(title, start, end) of every heading's section, nested subsections included:
    a section runs to the next heading of the same or a higher level."""
    heads = (syntax or MARKDOWN).headings(text, start)
    out = []
    for i, (ls, _le, level, title) in enumerate(heads):
        end = next((h[0] for h in heads[i + 1 :] if h[2] <= level), len(text))
        out.append((title, ls, _rstrip_end(text, ls, end)))
    return out


MARKDOWN = Syntax(
    name="markdown",
    # ".md.erb": Markdown a Ruby site generator (Middleman's tech docs) runs through ERB
    suffixes=(".md", ".markdown", ".md.erb"),
    headings=headings,
    fence_open=fence_open,
    fence_closes=fence_closes,
    as_markdown=as_markdown,  # Hugo shortcodes, MkDocs and Docusaurus admonitions
)
