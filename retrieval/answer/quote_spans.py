"""How much of a chosen part to quote: the exact span of the original file.

A numbered procedure is quoted as one unit with its warnings and code; when it
is too long it is cut at a step boundary and the quote says which steps it shows.
A table of an alert, an error code or a team per row is quoted by the one row the
question's words pick out, with the table's header beside it ("row 11 of 20"); a
table of three rows or more is, however short.
A section split over several indexed pieces is quoted whole up to a budget.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.link_references import definition_lines
from core.markdown import TABLE_ROW, TABLE_SEPARATOR, group_blocks, iter_lines, split_blocks
from core.markup import syntax_for
from retrieval.answer.outline import Part
from retrieval.answer.stubs import without_trailing_prompts
from retrieval.reading import TermStats, coverage, tokenize

MAX_QUOTE_CHARS = 1500  # a part this short is quoted whole
# ... unless it is a table of this many rows or more, one of which the question picks out
MIN_PICKED_ROWS = 3

_STEP = re.compile(r"^(\d+)[.)]\s", re.MULTILINE)


_ONLY_HTML = re.compile(r"^\s*(<[^>]+>\s*)+$")


@dataclass(frozen=True)
class Quote:
    part: Part
    start: int  # offsets into the original document text
    end: int
    text: str
    note: str | None = None  # "steps 1-3 of 7" when a procedure is cut, "row 4 of 20"
    # the header and separator lines of the table whose row is quoted, verbatim
    header: str | None = None


MAX_SECTION_CHARS = 2400  # a section split over several indexed pieces: quoted up to this


def pieces(part: Part, parts: Sequence[Part]) -> list[Part]:
    """The indexed pieces of the part's section, in order: a long section is split over
    several chunks, and a part is one of them (same heading path, consecutive, every
    piece after the first without a heading line). Two sections under the same heading
    (``###### Note`` twice) are two sections."""
    ordered = sorted(parts, key=lambda p: p.start)
    i = next((n for n, p in enumerate(ordered) if p.start == part.start), None)
    if i is None:
        return [part]

    def continues(n: int) -> bool:  # the n-th part goes on from the section before it
        p = ordered[n]
        return (
            p.heading_path == ordered[n - 1].heading_path == part.heading_path
            and p.body_start == p.start
        )

    lo = hi = i
    while lo > 0 and continues(lo):
        lo -= 1
    while hi + 1 < len(ordered) and continues(hi + 1):
        hi += 1
    return ordered[lo : hi + 1]


def quote_parts(
    part: Part,
    parts: Sequence[Part],
    terms: Sequence[str],
    stats: TermStats,
    *,
    acting: bool = False,
) -> list[Quote]:
    """The whole section the part belongs to, from its first piece: a warning or a
    lead-in never stands in for the steps that follow it, and a procedure is never shown
    from its middle. A section longer than MAX_SECTION_CHARS is cut after a piece, and
    the last quote says which steps are shown, or that the rest is in the runbook.

    ``acting``: the question asks what to do. When the cut leaves out the piece where
    the section's own fix begins (a label such as "How to **fix**:" in a playbook that
    has no headings below the alert), that piece is quoted after the first one instead
    of the pieces between them."""
    group = [
        p for i, p in enumerate(pieces(part, parts)) if i == 0 or not _only_link_definitions(p.body)
    ]
    if len(group) == 1:
        return [quote_part(group[0], terms, stats)]
    kept = _within_budget(group, terms, stats)
    if acting and len(kept) < len(group):
        fix = next((i for i in range(len(kept), len(group)) if _labels_action(group[i].body)), None)
        if fix is not None:
            kept = [kept[0], *_within_budget(group[fix:], terms, stats, len(kept[0].text))]
    total = sum(len(_STEP.findall(p.body)) for p in group)
    shown = sum(len(_STEP.findall(q.text)) for q in kept)
    if len(kept) < len(group):
        contiguous = all(q.part is p for q, p in zip(kept, group, strict=False))
        if contiguous and total > shown > 0:
            note = f"steps 1-{shown} of {total}"
        else:
            note = "part of this section"
        kept[-1] = replace(kept[-1], note=note)
    return kept


def _within_budget(
    group: Sequence[Part], terms: Sequence[str], stats: TermStats, used: int = 0
) -> list[Quote]:
    """The pieces quoted in order until MAX_SECTION_CHARS (at least the first)."""
    out: list[Quote] = []
    for piece in group:
        q = quote_part(piece, terms, stats)
        if out and used + len(q.text) > MAX_SECTION_CHARS:
            break
        out.append(q)
        used += len(q.text)
    return out


# a line that labels what follows as the fix: "How to **fix**:", "**Mitigation**"
_ACTION_LABEL = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?P<label>[^\n]{0,40}?\b(?:fix|mitigat\w*|remediat\w*|"
    r"resolution|resolv\w*|remed(?:y|ies)|workarounds?|recover\w*)\b[^\n]{0,30}?)[ \t]*$",
    re.I | re.M,
)


def _labels_action(text: str) -> bool:
    """Does a line of ``text`` label the fix (bold, or ending with a colon)?"""
    for m in _ACTION_LABEL.finditer(text):
        label = m["label"].strip()
        if (
            label.endswith(":")
            or label.endswith(":**")
            or (label.startswith(("**", "__")) and label.endswith(("**", "__")))
        ):
            return True
    return False


def _only_link_definitions(text: str) -> bool:
    lines = text.splitlines()
    defining = definition_lines(lines, [True] * len(lines))
    written = [i for i, line in enumerate(lines) if line.strip()]
    return bool(written) and all(i in defining for i in written)


def quote_part(part: Part, terms: Sequence[str], stats: TermStats) -> Quote:
    """The part's body verbatim, without the template's prompts left after it; a long
    one as its procedure or its best passage."""
    body = without_trailing_prompts(part.body)
    start = part.body_start
    if len(body) <= MAX_QUOTE_CHARS:
        # a table of several alerts, services or teams, one a row: the row asked about
        row = _table_row(part, body, 0, len(body), terms, stats, MIN_PICKED_ROWS)
        return row or Quote(part, start, start + len(body), body)
    units = [
        (s, e)
        for s, e in group_blocks(split_blocks(body, 0, len(body), syntax_for(part.chunk.path)))
        if body[s:e].strip() and not _ONLY_HTML.match(body[s:e])
    ]
    if not units:
        return Quote(part, start, start + len(body), body)
    steps = [i for i, (s, e) in enumerate(units) if _STEP.search(body[s:e])]
    if steps:
        return _procedure(part, body, units, steps[0])
    best = max(
        range(len(units)),
        key=lambda i: (coverage(terms, tokenize(body[units[i][0] : units[i][1]]), stats), -i),
    )
    s, e = units[best]
    if e - s > MAX_QUOTE_CHARS:
        row = _table_row(part, body, s, e, terms, stats)
        if row is not None:
            return row
    for _ns, ne in units[best + 1 :]:
        if ne - s > MAX_QUOTE_CHARS:
            break
        e = ne
    return Quote(part, start + s, start + e, body[s:e])


def _table_row(
    part: Part,
    body: str,
    s: int,
    e: int,
    terms: Sequence[str],
    stats: TermStats,
    min_rows: int = 2,
) -> Quote | None:
    """The one row of a table of at least ``min_rows`` rows (an alert per row) that the
    question's words pick out, with the table's header; None when ``body[s:e]`` is no
    table alone, or no row stands out."""
    lines = [(a, b) for a, b, _line in iter_lines(body[:e], s)]
    if (
        len(lines) < 2 + min_rows
        or not TABLE_ROW.match(body[lines[0][0] : lines[0][1]])
        or not TABLE_SEPARATOR.match(body[lines[1][0] : lines[1][1]])
    ):
        return None
    rows = [(a, b) for a, b in lines[2:] if TABLE_ROW.match(body[a:b])]
    if len(rows) < len(lines) - 2:
        return None  # text below the table: the table is not all there is to quote
    scored = sorted(
        ((coverage(terms, tokenize(body[a:b]), stats), i) for i, (a, b) in enumerate(rows)),
        key=lambda x: (-x[0], x[1]),
    )
    if not scored or scored[0][0] <= 0 or (len(scored) > 1 and scored[1][0] >= scored[0][0]):
        return None
    i = scored[0][1]
    a, b = rows[i]
    header = body[lines[0][0] : lines[1][1]]
    start = part.body_start
    return Quote(part, start + a, start + b, body[a:b], f"row {i + 1} of {len(rows)}", header)


def _procedure(part: Part, body: str, units: list[tuple[int, int]], first: int) -> Quote:
    """A numbered procedure with its lead-in, cut at a step boundary when too long."""
    begin = units[first - 1][0] if first > 0 and body[units[first - 1][1] - 1] == ":" else None
    s = units[first][0] if begin is None else begin
    proc_end = units[first][1]
    for ns, ne in units[first + 1 :]:
        if not _STEP.search(body[ns:ne]) and not body[ns:ne].startswith((" ", "\t", "```")):
            break
        proc_end = ne
    numbers = [m.start() for m in _STEP.finditer(body, s, proc_end)]
    total = len(numbers)
    if proc_end - s <= MAX_QUOTE_CHARS or total <= 1:
        return Quote(part, part.body_start + s, part.body_start + proc_end, body[s:proc_end])
    ends = [*numbers[1:], proc_end]  # where each step ends
    shown = max(1, sum(1 for e in ends if e - s <= MAX_QUOTE_CHARS))
    end = ends[shown - 1]
    while end > s and body[end - 1].isspace():
        end -= 1
    note = f"steps 1-{shown} of {total}" if shown > 1 else f"step 1 of {total}"
    return Quote(part, part.body_start + s, part.body_start + end, body[s:end], note)
