"""Pick the exact spans of a section that answer a question, verbatim, with offsets."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from retrieval.embeddings import Embedder, Vectors
from retrieval.evidence import TermStats, coverage
from retrieval.markdown import group_blocks, split_blocks
from retrieval.tokenize import tokenize
from retrieval.types import Chunk

SHORT_SECTION_CHARS = 900  # quote a section this short whole
MAX_CANDIDATES = 24
MAX_QUOTE_CHARS = 1800
SECOND_SPAN_RATIO = 0.9
TERM_WEIGHT = 0.5
_ONLY_HTML = re.compile(r"^\s*(<[^>]+>\s*)+$")


@dataclass(frozen=True)
class Span:
    start: int  # offsets into the original document text
    end: int
    text: str
    score: float


def section_text(chunk: Chunk) -> str:
    """The original text of the chunk's section (the indexed text ends with it)."""
    return chunk.text[len(chunk.text) - (chunk.end - chunk.start) :]


def candidate_spans(chunk: Chunk) -> list[tuple[int, int, str]]:
    section = section_text(chunk)
    body = 0
    if section.startswith("#"):
        nl = section.find("\n")
        body = len(section) if nl == -1 else nl + 1
    units = group_blocks(split_blocks(section, body, len(section)))
    out = []
    for s, e in units:
        text = section[s:e]
        if text.strip() and not _ONLY_HTML.match(text):
            out.append((chunk.start + s, chunk.start + e, text))
    return out


def select_spans(
    chunk: Chunk,
    query_vector: Vectors,
    query_terms: Sequence[str],
    stats: TermStats,
    embedder: Embedder,
) -> list[Span]:
    """The best one or two units of the section, in document order."""
    cands = candidate_spans(chunk)
    if not cands:
        section = section_text(chunk)
        return [Span(chunk.start, chunk.end, section, 0.0)]
    first, last = cands[0], cands[-1]
    if last[1] - first[0] <= SHORT_SECTION_CHARS:
        section = section_text(chunk)
        whole = section[first[0] - chunk.start : last[1] - chunk.start]
        return [Span(first[0], last[1], whole, 1.0)]
    cands = cands[:MAX_CANDIDATES]
    vecs = embedder.embed_documents([c[2] for c in cands])
    dense = vecs @ np.asarray(query_vector, dtype=np.float32)
    scored = [
        Span(s, e, t, float(d) + TERM_WEIGHT * coverage(query_terms, tokenize(t), stats))
        for (s, e, t), d in zip(cands, dense.tolist(), strict=True)
    ]
    ranked = sorted(scored, key=lambda sp: -sp.score)
    chosen = [ranked[0]]
    if len(ranked) > 1:
        second = ranked[1]
        room = len(ranked[0].text) + len(second.text) <= MAX_QUOTE_CHARS
        if room and second.score >= SECOND_SPAN_RATIO * ranked[0].score:
            chosen.append(second)
    return sorted(chosen, key=lambda sp: sp.start)
