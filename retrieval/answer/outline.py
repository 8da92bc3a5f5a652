"""A document's finest sections ("parts"), rebuilt from its indexed chunks.

Chunks split documents at H1-H3; runbooks often nest the answer deeper
(``#### Defrag``, ``##### Step 1``). A part is the text under one heading of any
level up to the next heading, with its full heading path, so that the answer can
quote exactly the subsection that answers, with offsets into the original file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from core.heading_text import SECTION_SEPARATOR, plain_heading, without_title_label
from core.markdown import MAX_SPLIT_HEADING
from core.markdown_facts import MarkdownFacts, markdown_facts
from core.markup import syntax_for
from core.models import Chunk, normalize_name
from retrieval.answer.stubs import stub
from retrieval.reading import tokenize
from retrieval.search import Snapshot, filler_key, mostly_links, section_text


def within(path: tuple[str, ...], heading: tuple[str, ...]) -> bool:
    """Is the section at ``path`` the one at ``heading`` or nested in it?"""
    return path[: len(heading)] == heading


@dataclass(frozen=True)
class Part:
    chunk: Chunk  # the indexed chunk the part lies in
    heading_path: tuple[str, ...]  # the full path, deeper headings included
    start: int  # offsets into the original document text (heading line included)
    body_start: int  # after the heading line (== start when the part has none)
    end: int
    text: str  # original text [start:end]

    @property
    def body(self) -> str:
        return self.text[self.body_start - self.start :]

    @property
    def heading(self) -> str:
        return self.heading_path[-1] if self.heading_path else ""

    def under(self, heading: tuple[str, ...]) -> bool:
        """Is the part the section at ``heading`` or nested in it?"""
        return within(self.heading_path, heading)

    @cached_property
    def terms(self) -> frozenset[str]:
        """Tokens of the part's heading path and body."""
        return frozenset(tokenize(" ".join(self.heading_path) + "\n" + self.body))

    @cached_property
    def own_terms(self) -> frozenset[str]:
        """Tokens of the part's own headings and body: not of a title every part shares."""
        return frozenset(tokenize(" ".join(self.own_path) + "\n" + self.body))

    @cached_property
    def holds_answer(self) -> bool:
        """Not a list of links (a generated "Troubleshooting Pointers" index points at
        answers instead of holding one) and not a stub ("TODO"): worked out once per
        part and index generation, not on every question."""
        return not mostly_links(self.body) and not stub(self.body)

    @cached_property
    def filler_key(self) -> str:
        """Its text as the index's template fillers are compared
        (:func:`retrieval.search.filler_key`): once per part and index generation."""
        return filler_key(self.body)

    @cached_property
    def facts(self) -> MarkdownFacts:
        """What its own text lays out (lists, code, only a quoted note), read from the
        parser's tokens of the text as Markdown shows it, whatever the file's syntax:
        once per part and index generation."""
        return markdown_facts(syntax_for(self.chunk.path).as_markdown(self.body))

    @property
    def shows_steps(self) -> bool:
        """Does its own text lay out something to do: a list or code, not only prose or
        a warning?"""
        return self.facts.lays_out_steps

    @cached_property
    def heading_terms(self) -> frozenset[str]:
        return frozenset(tokenize(self.heading))

    @cached_property
    def own_heading_terms(self) -> frozenset[str]:
        """Tokens of the headings of its own path, below the document's title (none for
        the title's part): a subsection holds its section's heading words as well as its
        own ("Mitigation > Red Hat Managed Lokistack > Binding the ServiceAccount"), so
        the section's introduction does not outrank the subsection a question is about
        merely by being the part headed by them."""
        return frozenset(tokenize(" ".join(self.own_path)))

    @cached_property
    def own_path(self) -> tuple[str, ...]:
        """The heading path below a top heading that merely repeats the title."""
        path = self.heading_path
        if path and _repeats_title(path[0], self.chunk.title):
            return path[1:]
        return path

    @cached_property
    def section(self) -> str:
        """The heading path without a top heading that merely repeats the title, each
        heading without its Markdown decoration (``**Primary SLO**`` -> ``Primary SLO``)."""
        path = tuple(plain_heading(h) or h for h in self.heading_path)
        if len(path) > 1 and _repeats_title(path[0], self.chunk.title):
            path = path[1:]
        return SECTION_SEPARATOR.join(path) if path else self.chunk.title

    def line_of(self, offset: int) -> int:
        """1-based line of an offset inside the part, in the original text."""
        return self.chunk.line + section_text(self.chunk).count("\n", 0, offset - self.chunk.start)


def chunk_parts(chunk: Chunk, carried: Sequence[tuple[int, str]] = ()) -> list[Part]:
    """The parts inside one chunk, in document order.

    ``carried`` is the stack of deeper headings (level, title) open at the end of
    the previous piece of the same section, for a chunk that continues it.
    """
    parts, _ = _chunk_parts(chunk, carried)
    return parts


def _chunk_parts(
    chunk: Chunk, carried: Sequence[tuple[int, str]]
) -> tuple[list[Part], list[tuple[int, str]]]:
    sec = section_text(chunk)
    heads = syntax_for(chunk.path).headings(sec, 0)
    base = chunk.heading_path
    # the chunk's own heading line (H1-H3) is the first heading when it starts with one
    own = None
    if heads and heads[0][0] == 0 and base and heads[0][2] <= MAX_SPLIT_HEADING:
        own = heads[0]
    inner = heads[1:] if own is not None else heads
    stack = [] if own is not None else list(carried)
    out: list[Part] = []
    first_end = inner[0][0] if inner else len(sec)
    first_body = own[1] + 1 if own is not None else 0
    path = base + tuple(t for _, t in stack)
    out.append(_part(chunk, path, 0, min(first_body, first_end), first_end, sec))
    for i, (ls, le, level, title) in enumerate(inner):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        end = inner[i + 1][0] if i + 1 < len(inner) else len(sec)
        path = base + tuple(t for _, t in stack)
        out.append(_part(chunk, path, ls, min(le + 1, end), end, sec))
    return [p for p in out if p.body.strip()], stack


def _part(chunk: Chunk, path: tuple[str, ...], s: int, b: int, e: int, sec: str) -> Part:
    while e > b and sec[e - 1].isspace():
        e -= 1
    while b < e and sec[b].isspace():
        b += 1
    return Part(chunk, path, chunk.start + s, chunk.start + b, chunk.start + e, sec[s:e])


def document_parts(chunks: Sequence[Chunk]) -> list[Part]:
    """Every part of a document, in document order."""
    out: list[Part] = []
    stack: list[tuple[int, str]] = []
    previous: tuple[str, ...] | None = None
    for c in sorted(chunks, key=lambda c: c.start):
        carried = stack if c.heading_path == previous else []
        parts, stack = _chunk_parts(c, carried)
        out.extend(parts)
        previous = c.heading_path
    return out


def outline(snapshot: Snapshot, source_id: str, chunk: Chunk | None = None) -> list[Part]:
    """The parts of the live document ``source_id``, worked out once per index generation
    (kept by its snapshot); of ``chunk`` alone when the document is not live. Shared by
    every caller: never to be changed in place."""
    chunks = snapshot.chunks_by_source.get(source_id)
    if not chunks:
        return document_parts([chunk]) if chunk is not None else []
    return snapshot.per_document("outline", source_id, lambda: document_parts(chunks))


def _repeats_title(heading: str, title: str) -> bool:
    """Is the top heading the document's title again (``Title: X`` over title ``X``)?"""
    return normalize_name(without_title_label(heading)) == normalize_name(title)
