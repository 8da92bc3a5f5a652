"""Heading-aware chunking with offsets into the original text.

Sections start at H1-H3 headings (outside fenced code). A section that does not
fit the embedding window is split at paragraph boundaries; fenced code blocks,
tables, numbered procedures and a lead-in line ending in ``:`` stay with what
they belong to and are never cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from retrieval.types import Chunk, Document

DEFAULT_MAX_TOKENS = 256
MAX_SPLIT_HEADING = 3
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*+])\s+")
_WORD = re.compile(r"\w+|[^\w\s]")

TokenCounter = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    """A cheap upper-leaning estimate of WordPiece tokens."""
    total = 0
    for tok in _WORD.findall(text):
        total += 1 + len(tok) // 6 if tok[0].isalnum() or tok[0] == "_" else 1
    return total


@dataclass(frozen=True)
class Section:
    heading_path: tuple[str, ...]
    start: int
    end: int
    body_start: int  # after the heading line


@dataclass(frozen=True)
class _Block:
    start: int
    end: int
    kind: str  # code | list | lead | text | table | indent


def _lines(text: str, start: int) -> Iterator[tuple[int, int, str]]:
    """(line start, line end without newline, line) from ``start``."""
    pos = start
    n = len(text)
    while pos < n:
        nl = text.find("\n", pos)
        end = n if nl == -1 else nl
        yield pos, end, text[pos:end]
        pos = end + 1


def _rstrip_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def sections(text: str, body_start: int) -> list[Section]:
    heads: list[tuple[int, int, int, str]] = []  # (start, after line, level, title)
    in_fence = False
    for ls, le, line in _lines(text, body_start):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        m = _HEADING.match(line)
        if m and len(m.group(1)) <= MAX_SPLIT_HEADING:
            heads.append((ls, le, len(m.group(1)), m.group(2).strip()))
    out: list[Section] = []
    first = heads[0][0] if heads else len(text)
    pre_end = _rstrip_end(text, body_start, first)
    if text[body_start:pre_end].strip():
        s = body_start
        while s < pre_end and text[s].isspace():
            s += 1
        out.append(Section((), s, pre_end, s))
    stack: list[tuple[int, str]] = []
    for i, (ls, le, level, title) in enumerate(heads):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        nxt = heads[i + 1][0] if i + 1 < len(heads) else len(text)
        end = _rstrip_end(text, ls, nxt)
        if text[le:end].strip():
            out.append(Section(tuple(t for _, t in stack), ls, end, min(le + 1, end)))
    return out


def _blocks(text: str, start: int, end: int) -> list[_Block]:
    blocks: list[_Block] = []
    cur_start: int | None = None
    cur_end = start
    cur_kind = "text"
    in_fence = False
    for ls, le, line in _lines(text[:end], start):
        if in_fence:
            cur_end = le
            if _FENCE.match(line):
                in_fence = False
                assert cur_start is not None
                blocks.append(_Block(cur_start, cur_end, "code"))
                cur_start = None
            continue
        if _FENCE.match(line):
            if cur_start is not None:
                blocks.append(_Block(cur_start, cur_end, cur_kind))
            cur_start, cur_end, in_fence = ls, le, True
            continue
        if not line.strip():
            if cur_start is not None:
                blocks.append(_Block(cur_start, cur_end, cur_kind))
                cur_start = None
            continue
        if cur_start is None:
            cur_start = ls
            if _LIST_ITEM.match(line):
                cur_kind = "list"
            elif line.lstrip().startswith("|"):
                cur_kind = "table"
            elif line.startswith(("  ", "\t")):
                cur_kind = "indent"
            else:
                cur_kind = "text"
        cur_end = le
    if cur_start is not None:
        kind = "code" if in_fence else cur_kind
        if cur_kind == "text" and text[cur_start:cur_end].rstrip().endswith(":"):
            kind = "lead"
        blocks.append(_Block(cur_start, cur_end, kind))
    return [
        _Block(b.start, b.end, "lead")
        if b.kind == "text" and text[b.start : b.end].rstrip().endswith(":")
        else b
        for b in blocks
    ]


def _groups(blocks: list[_Block]) -> list[tuple[int, int]]:
    """Blocks glued into units that are never cut apart."""
    groups: list[list[_Block]] = []
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


def split_section(
    text: str, sec: Section, budget: int, count: TokenCounter
) -> list[tuple[int, int]]:
    if count(text[sec.start : sec.end]) <= budget:
        return [(sec.start, sec.end)]
    units = _groups(_blocks(text, sec.body_start, sec.end))
    if not units:
        return [(sec.start, sec.end)]
    pieces: list[tuple[int, int]] = []
    p_start, p_end = sec.start, units[0][1]
    for u_start, u_end in units[1:]:
        if count(text[p_start:u_end]) <= budget:
            p_end = u_end
        else:
            pieces.append((p_start, p_end))
            p_start, p_end = u_start, u_end
    pieces.append((p_start, p_end))
    return pieces


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def chunk_document(
    doc: Document,
    body_start: int,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    count: TokenCounter = estimate_tokens,
) -> list[Chunk]:
    text = doc.text
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    for sec in sections(text, body_start):
        heading = " > ".join(sec.heading_path)
        prefix = f"{doc.title}\n{heading}\n\n" if heading else f"{doc.title}\n\n"
        budget = max(32, max_tokens - count(prefix))
        base = doc.source_id + "#" + "/".join(_slug(h) for h in sec.heading_path)
        for start, end in split_section(text, sec, budget, count):
            n = seen.get(base, 0)
            seen[base] = n + 1
            chunks.append(
                Chunk(
                    chunk_id=base if n == 0 else f"{base}~{n}",
                    source_id=doc.source_id,
                    path=doc.path,
                    title=doc.title,
                    heading_path=sec.heading_path,
                    text=prefix + text[start:end],
                    start=start,
                    end=end,
                    content_hash=doc.content_hash,
                    line=text.count("\n", 0, start) + 1,
                    metadata=doc.metadata,
                )
            )
    return chunks
