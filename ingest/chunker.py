"""Heading-aware chunking with offsets into the original text.

Sections start at H1-H3 headings (outside fenced code). A section that does not
fit the embedding window is split at paragraph boundaries; fenced code blocks,
tables, numbered procedures and a lead-in line ending in ``:`` stay with what
they belong to and are never cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from core.heading_text import heading_slug, only_a_template
from core.markdown import Section, group_blocks, sections, split_blocks
from core.markup import Syntax, syntax_for
from core.models import Chunk, Document

DEFAULT_MAX_TOKENS = 256
_WORD = re.compile(r"\w+|[^\w\s]")
TokenCounter = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    """A cheap upper-leaning estimate of WordPiece tokens."""
    total = 0
    for tok in _WORD.findall(text):
        total += 1 + len(tok) // 6 if tok[0].isalnum() or tok[0] == "_" else 1
    return total


def split_section(
    text: str, sec: Section, budget: int, count: TokenCounter, syntax: Syntax | None = None
) -> list[tuple[int, int]]:
    if count(text[sec.start : sec.end]) <= budget:
        return [(sec.start, sec.end)]
    units = group_blocks(split_blocks(text, sec.body_start, sec.end, syntax))
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
    return heading_slug(text) or "section"


def chunk_document(
    doc: Document,
    body_start: int,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    count: TokenCounter = estimate_tokens,
) -> list[Chunk]:
    text = doc.text
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    syntax = syntax_for(doc.path)
    for sec in sections(text, body_start, syntax):
        # a heading the site fills in with the page's title is that title
        path = tuple(doc.title if only_a_template(h) else h for h in sec.heading_path)
        heading = " > ".join(path)
        prefix = f"{doc.title}\n{heading}\n\n" if heading else f"{doc.title}\n\n"
        budget = max(32, max_tokens - count(prefix))
        base = doc.source_id + "#" + "/".join(_slug(h) for h in path)
        for start, end in split_section(text, sec, budget, count, syntax):
            n = seen.get(base, 0)
            seen[base] = n + 1
            chunks.append(
                Chunk(
                    chunk_id=base if n == 0 else f"{base}~{n}",
                    source_id=doc.source_id,
                    path=doc.path,
                    title=doc.title,
                    heading_path=path,
                    text=prefix + text[start:end],
                    start=start,
                    end=end,
                    content_hash=doc.content_hash,
                    line=text.count("\n", 0, start) + 1,
                    metadata=doc.metadata,
                )
            )
    return chunks


ANCHOR = "{anchor}"


def anchor_links(chunks: list[Chunk], anchors: Sequence[tuple[int, str]]) -> list[Chunk]:
    """Each chunk's link to its own section: ``{anchor}`` in the document's link becomes
    the anchor of the last heading at or before the chunk (``(offset, anchor)`` pairs);
    before the first heading the link is the document's."""
    out: list[Chunk] = []
    for c in chunks:
        url = c.metadata.url
        if url is None or ANCHOR not in url:
            out.append(c)
            continue
        anchor = ""
        for offset, name in anchors:
            if offset > c.start:
                break
            anchor = name
        url = url.replace(ANCHOR, anchor) if anchor else url.replace("#" + ANCHOR, "")
        out.append(c.model_copy(update={"metadata": c.metadata.model_copy(update={"url": url})}))
    return out
