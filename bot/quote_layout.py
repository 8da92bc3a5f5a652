"""How an answer's quotes are laid out, the same in Slack, on the web and in the terminal.

Quotes are grouped by runbook, runbooks in the order the answer cites them: a runbook's
owner and age are shown once, under its quotes. A section quoted in pieces (a long
procedure over several indexed chunks) has one heading; when text of the section is
left out between two pieces, the second is marked as continuing after a gap. A
procedure cut for length says which steps are shown, above the quote; one that its
runbook's "Prerequisites" governs names that section, linked, above the quote
(:data:`BEFORE_YOU_START`, once per answer).

A long quote is trimmed the same way everywhere, never rewritten: the answer's first
quote shows about :data:`LEAD_LINES` lines, cut where a block starts (never inside code),
the rest behind "Show more"; sample output, logs and long YAML or JSON examples fold
behind "Show example" (:func:`example_blocks`), in a fenced block or an indented one
(:mod:`core.code_blocks`: the output Kubernetes' task pages indent under a step).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.code_blocks import CodeBlock, code_blocks, in_code
from core.link_references import with_links
from core.markup import syntax_for
from core.models import Citation

ADJACENT = 2  # characters between two quotes of one section that follow each other
#: the words above quoted steps that name what must be in place first: "Before you start:
#: Prerequisites", the section's heading linked (``Citation.before``)
BEFORE_YOU_START = "Before you start"


@dataclass(frozen=True)
class ShownQuote:
    citation: Citation
    heading: bool  # it begins a section: its heading is shown above it
    gap: bool = False  # it continues the section above, after text left out
    # which part of its section is shown ("Steps 1-3 of 7"), said once, above the
    # section's first piece: the piece that carries it is the last one quoted
    noted: Citation | None = None
    # the first of the pieces quoted one after another that it belongs to: the source
    # line under them names where they begin
    begun: Citation | None = None


def by_runbook(citations: Sequence[Citation]) -> list[list[ShownQuote]]:
    """The citations grouped by document, in order of first appearance."""
    groups: dict[str, list[Citation]] = {}
    for c in citations:
        groups.setdefault(c.source_id, []).append(c)
    out = []
    for group in groups.values():
        shown: list[ShownQuote] = []
        for n, c in enumerate(group):
            continued = n > 0 and group[n - 1].section == c.section
            gap = continued and not _next_to(group[n - 1], c)
            shown.append(ShownQuote(c, heading=not continued, gap=gap))
        out.append(_arranged(shown))
    return out


def _arranged(shown: list[ShownQuote]) -> list[ShownQuote]:
    """Each section's note on the quote that begins it, not between its pieces; and
    each quote's first piece of the run it is shown in."""
    out = list(shown)
    first = begun = 0
    for n, q in enumerate(shown):
        if q.heading:
            first = n
        if q.heading or q.gap:
            begun = n
        out[n] = replace(out[n], begun=shown[begun].citation)
        if q.citation.note:
            out[first] = replace(out[first], noted=q.citation)
    return out


def _next_to(before: Citation, after: Citation) -> bool:
    """Does ``after`` follow ``before`` with nothing but line breaks between them (blank
    lines where a section was split into pieces), or ADJACENT characters at most?"""
    line_breaks = after.line - (before.line + before.quote.count("\n"))
    return after.start - before.end <= max(line_breaks, ADJACENT)


def cut_note(citation: Citation) -> str | None:
    """Which steps a cut procedure shows, as a sentence: "Steps 1-3 of 7"."""
    note = citation.note
    return note[:1].upper() + note[1:] if note else None


def quote_markdown(citation: Citation, *, header: bool = False) -> str:
    """The quote as Markdown for display: an AsciiDoc or reStructuredText runbook's
    titles, code blocks and warnings in Markdown's form (the quote itself stays
    verbatim). ``header``: a quoted table row under its table's header, as shown."""
    text = citation.shown_text if header else citation.quote
    # links to other runbooks point at them at the indexed revision (a site address such
    # as "/manual/purge-cache" does not resolve on the code host)
    return with_links(syntax_for(citation.path).as_markdown(text), citation.links)


# --------------------------------------------------------------------------- long quotes

LEAD_LINES = 15  # a lead quote longer than this shows its first lines and "Show more"
FOLD_AT_LEAST = 5  # lines left out: fewer than this are shown rather than folded
EXAMPLE_LINES = 8  # a YAML or JSON block longer than this is an example, not a step
#: code blocks by their language tag: what a block of this kind shows is sample output
#: or a log (always folded), or a configuration example (folded when long)
OUTPUT_LANGUAGES = frozenset({"text", "txt", "plaintext", "plain", "log", "logs", "output"})
EXAMPLE_LANGUAGES = frozenset({"yaml", "yml", "json", "xml", "toml", "ini"})
#: the prose line just above a block that says it is an example or sample output
_SAYS_EXAMPLE = re.compile(
    r"\b(?:example|sample|output|looks like|should see|you will see|logs?|e\.g\.)\b"
    r"[^\n]*:[*_]*\s*$",
    re.I,
)
# a line that starts a block of its own, not indented: a list item, a heading, a fence,
# a quote, a table
_TOP_BLOCK = re.compile(r"^(?:\d{1,3}[.)]\s|[-*+]\s|#{1,6}\s|```|~~~|>|\|)")


def is_example(info: str, body: str, above: str = "") -> bool:
    """Is a code block (``info``: its language tag, ``above``: the prose line over it)
    sample output, a log or a long configuration example rather than a command to run?"""
    language = info.strip().lower()
    lines = body.strip("\n").count("\n") + 1
    if language in OUTPUT_LANGUAGES:
        return True
    if language in EXAMPLE_LANGUAGES and lines > EXAMPLE_LINES:
        return True
    return bool(_SAYS_EXAMPLE.search(above.strip())) and lines >= FOLD_AT_LEAST


def example_blocks(markdown: str) -> list[CodeBlock]:
    """The code blocks of ``markdown`` outside a quote, fenced or indented
    (:func:`core.code_blocks.code_blocks`), that are examples (:func:`is_example`)."""
    lines = markdown.split("\n")
    out: list[CodeBlock] = []
    after = 0  # the line after the code block above: prose over a block is below it
    for block in code_blocks(markdown):
        above = next((ln for ln in reversed(lines[after : block.start]) if ln.strip()), "")
        if is_example(block.language, block.text, above):
            out.append(block)
        after = block.end
    return out


def lead_cut(markdown: str, limit: int = LEAD_LINES) -> int | None:
    """Where a long lead quote is cut for "Show more": the offset of the first line,
    at about ``limit`` lines in, that starts a block of its own outside code (so both
    halves read as they would whole, and a command is never cut); None when the quote
    is short enough to show whole."""
    lines = markdown.rstrip("\n").split("\n")
    if len(lines) < limit + FOLD_AT_LEAST:
        return None
    examples = [(b.start, b.end) for b in example_blocks(markdown)]
    code = in_code(markdown)
    best = None
    for n in range(1, len(lines)):
        if n > limit and best is not None:
            break
        line = lines[n]
        starts = _TOP_BLOCK.match(line) or (not lines[n - 1].strip() and line.strip())
        folded = any(a <= n < b for a, b in examples)
        if starts and not code[n] and not folded and line[:1] not in (" ", "\t"):
            best = n
    if best is None or len(lines) - best < FOLD_AT_LEAST:
        return None
    return sum(len(line) + 1 for line in lines[:best])
