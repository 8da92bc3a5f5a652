"""Runbooks and sections that exist only as a placeholder ("TODO: not written yet"):
the answer says so rather than quote another runbook or leave a fix out silently."""

from __future__ import annotations

from collections.abc import Sequence

from core.heading_text import plain_heading
from core.models import EmptySection, normalize_name
from retrieval.answer.composer import shared_depth
from retrieval.answer.outline import Part
from retrieval.answer.retrieved import Candidate, Retrieval
from retrieval.answer.runbook_parts import RunbookParts
from retrieval.answer.stubs import stub
from retrieval.reading import heading_kinds


def unwritten_runbook(parts: RunbookParts, cand: Candidate, r: Retrieval) -> list[Part] | None:
    """The parts of the runbook the answer would come from, when not one of them is
    written ("_TODO: this playbook has not been written yet._"): in a file of
    playbooks, the one the question names; else the document's runbook."""
    named = [
        members
        for heading, members in (
            parts.collection(cand.doc.source_id, cand.chunk, r, by_name=True) or {}
        ).items()
        if normalize_name(heading) in r.question.names
    ]
    runbook = named[0] if named else parts.runbooks(cand, r)[0]
    if not runbook or not all(stub(p.body) for p in runbook):
        return None
    return runbook


def unwritten_action(parts: RunbookParts, cand: Candidate, r: Retrieval) -> str | None:
    """The action section of the runbook when the question asks what to do and every
    part of that section is a stub ("TODO"), or it is a heading with nothing under it:
    the engineer is told, not left to wonder why the answer shows no fix."""
    if r.question.intent not in ("act", "procedure", "unspecified"):
        return None
    runbook = parts.runbooks(cand, r)[0]
    acting = [p for p in runbook if "act" in heading_kinds(p.own_path)]
    if not acting:
        return _empty_action(runbook, cand.chunk.metadata.empty_sections)
    if not all(stub(p.body) for p in acting):
        return None
    return plain_heading(acting[0].own_path[-1]) if acting[0].own_path else None


def _empty_action(runbook: Sequence[Part], empty: Sequence[EmptySection]) -> str | None:
    """The runbook's action heading that has nothing under it (no chunk holds it), when
    the document has one: in a file of several runbooks, under this runbook's heading."""
    if not runbook:
        return None
    paths = [p.heading_path for p in runbook]
    # the headings every part sits under, short of the parts' own
    base = paths[0][: max(0, min(shared_depth(paths), *(len(p) - 1 for p in paths)))]
    for path in (e.heading_path for e in empty):
        own = path[len(base) :]
        if path[: len(base)] == base and own and "act" in heading_kinds(own):
            return plain_heading(path[-1]) or path[-1]
    return None
