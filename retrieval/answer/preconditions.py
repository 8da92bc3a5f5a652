"""What must be in place before a runbook's steps: its "Prerequisites", "Before you begin",
"Requirements" or "Preparation" section, named and linked above the quoted steps it
governs, so that nobody runs step 1 without the access or the tools it needs.

Display only: which parts an answer quotes, and in what order, is decided before this
runs; it reads the document's parts as outlined once per index generation
(:func:`retrieval.answer.outline.outline`) and adds nothing else to a question's cost.

The rule, over a document's parts in document order:

* a precondition section is one whose own heading is of the "prepare" kind
  (:func:`retrieval.reading.heading_kinds`); a subsection of it is part of it;
* it governs a quoted part that lays out steps (a list or code) when it comes before that
  part and its parent's heading path is a prefix of the part's: it is a sibling of the
  steps' section or of one of its ancestors, so "Restore from backup > Prerequisites"
  governs "Restore from backup > Steps" but not another procedure's steps in the file;
* of several, the nearest governs (the last before the steps, which is the deepest);
* none for a quoted part that is itself in a precondition section, nor when the answer
  quotes the precondition section, nor in a thread that has shown it already;
* it is named once per answer, above the first quote it governs (the first piece of
  that quote's section, when the section is quoted in pieces).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.heading_text import SECTION_SEPARATOR, plain_heading, plain_section
from core.models import Answer, Citation, Precondition, section_name
from retrieval.answer.citations import chunk_url
from retrieval.answer.outline import Part, within
from retrieval.reading import heading_kinds

Path = tuple[str, ...]


def precondition_path(part: Part) -> Path | None:
    """The heading path of the precondition section ``part`` lies in (its outermost own
    heading of the "prepare" kind), or None."""
    base = len(part.heading_path) - len(part.own_path)
    for i, heading in enumerate(part.own_path):
        if "prepare" in heading_kinds((heading,)):
            return part.heading_path[: base + i + 1]
    return None


def governing(parts: Sequence[Part], part: Part) -> tuple[Path, Part] | None:
    """The precondition section that governs ``part`` (one of ``parts``, a document's
    parts in document order): its heading path and its first part (its own text, or its
    first subsection when it has none); None when no such section governs it."""
    if not part.facts.lays_out_steps or precondition_path(part) is not None:
        return None
    found: tuple[Path, Part] | None = None
    for p in parts:
        if p.start >= part.start:
            break
        path = precondition_path(p)
        if path is None or (found is not None and found[0] == path):
            continue  # not a precondition, or a further piece of the one found
        if within(part.heading_path, path[:-1]):
            found = (path, p)
    return found


def precondition(path: Path, first: Part) -> Precondition:
    """The precondition section at ``path`` whose first part is ``first``, linked at its
    heading's line (a section with no text of its own: its first subsection's) at the
    indexed revision, as every section link is (:func:`~retrieval.answer.citations.chunk_url`)."""
    line = first.line_of(first.start)
    return Precondition(
        heading=plain_heading(path[-1]) or path[-1],
        section=plain_section(section_name(path, first.chunk.title)),
        url=chunk_url(first.chunk, line),
        line=line,
    )


def with_preconditions(
    answer: Answer, parts_of: Callable[[str], Sequence[Part]], shown: Sequence[str] = ()
) -> Answer:
    """``answer`` with each quote of steps that a precondition section governs carrying
    it (:attr:`Citation.before`), once per answer; ``parts_of`` gives a live document's
    parts in document order, ``shown`` the sections a thread has shown already."""
    if answer.state != "answer" or not answer.citations:
        return answer
    outlined: dict[str, Sequence[Part]] = {}
    for c in answer.citations:
        if c.source_id not in outlined:
            parts = parts_of(c.source_id)
            # offsets into another revision than the one quoted say nothing of its parts
            current = bool(parts) and parts[0].chunk.metadata.revision == c.revision
            outlined[c.source_id] = parts if current else ()
    quoted = [(c, _part_at(outlined[c.source_id], c)) for c in answer.citations]
    named: set[tuple[str, Path]] = set()
    out = list(answer.citations)
    for c, part in quoted:
        found = governing(outlined[c.source_id], part) if part is not None else None
        if found is not None:
            path, first = found
            key = (c.source_id, path)
            cited = any(
                q is not None and q.under(path) for d, q in quoted if d.source_id == c.source_id
            )
            if key not in named and not cited and not _was_shown(path, first, shown):
                named.add(key)
                # above the section's first piece: a section quoted in pieces (its steps
                # in a later indexed chunk than its opening words) is read from the top
                at = next(
                    i
                    for i, d in enumerate(out)
                    if (d.source_id, d.section) == (c.source_id, c.section)
                )
                out[at] = out[at].model_copy(update={"before": precondition(path, first)})
    return answer.model_copy(update={"citations": tuple(out)})


def _part_at(parts: Sequence[Part], citation: Citation) -> Part | None:
    """The part the citation quotes (its span starts in it)."""
    return next((p for p in parts if p.start <= citation.start < p.end), None)


def _was_shown(path: Path, first: Part, shown: Sequence[str]) -> bool:
    """Has a thread shown the precondition section, whole or a subsection of it?"""
    name = plain_section(section_name(path, first.chunk.title))
    return any(s == name or s.startswith(name + SECTION_SEPARATOR) for s in shown)
