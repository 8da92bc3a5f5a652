"""A document that collects several runbooks, and which of them a question is about.

Some teams keep every alert's runbook in one file: ``## KubeProxyDown`` with its own
``### Meaning``, ``### Diagnosis`` and ``### Mitigation``, then ``## KubeletDown``
with the same layout, a hundred times over. Search finds the file; the question is
about one of its runbooks. Choosing a part by what was asked alone would pick the
best-matching Mitigation of any alert in the file, so in such a document the topic
(the top-level section) is chosen first, by the question's evidence, and the part
inside it second.

A document is a collection when at least ``MIN_TOPICS`` of its top-level sections
each hold subsections of at least ``MIN_KINDS`` different kinds (meaning, diagnosis,
action, escalation): the repeated layout of a runbook. A single runbook's top-level
sections are those kinds themselves, so it never qualifies. The runbooks may also sit
below headings that only group them (``## Ceph`` over ``### CephOSDDown`` over
``#### Mitigation``): a level of headings none of which is a kind of section is looked
through, so the sections of one runbook ("Mitigation > Option A") never are.

It is one too when at least ``MIN_NAMED`` headings of one level are alert names
(``CortexIngesterRestarts``, ``etcd_no_leader``: one word written as a name), whatever
their subsections: a playbook per alert under ``## Alerts``, its steps in bold labels
rather than headings. Every heading of that level is then a runbook of the collection
(``Resizing Persistent Volumes`` beside the alerts), and what lies above that level, an
introduction, belongs to none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from core.heading_text import plain_heading
from core.models import normalize_name
from retrieval.answer.outline import Part
from retrieval.answer.part_ranking import SectionWeights
from retrieval.reading import TermStats, coverage, heading_kinds, tokenize, written_as_name

MIN_TOPICS = 3
MIN_KINDS = 2
MIN_NAMED = 5  # alert names at one heading level: a file of playbooks
MAX_GROUPING_LEVELS = 2  # levels of headings that only group runbooks ("## Ceph")


def topics(parts: Sequence[Part], *, by_name: bool = False) -> dict[str, list[Part]] | None:
    """The runbooks a collection holds, by top-level heading; None for one runbook.

    The top level is below the document's one top heading when every part lies under
    it (``# Alert runbooks`` over ``## KubeProxyDown``), else the top headings
    themselves (a file of ``# KubeProxyDown`` runbooks, the first of which is also
    the document's title). ``by_name``: a file of playbooks by alert name counts too
    (its evidence is measured per playbook; its quotes may come from any of them)."""
    paths = [p.heading_path for p in parts if p.heading_path]
    named = _named_level(paths) if by_name else None
    if named is not None:
        return _by_level(parts, named)
    depth = 1 if paths and all(h[0] == paths[0][0] for h in paths) else 0
    # the runbooks may sit a level or two below headings that only group them ("## Ceph"
    # over "### CephOSDDown" over "#### Mitigation"), never below a section of a runbook
    for level in range(depth, depth + 1 + MAX_GROUPING_LEVELS):
        members = _laid_out(parts, level)
        if members is not None:
            return members
        if not _only_groups(paths, level):
            return None
    return None


def _laid_out(parts: Sequence[Part], level: int) -> dict[str, list[Part]] | None:
    """The parts under each heading of ``level`` when at least ``MIN_TOPICS`` of those
    headings hold subsections of ``MIN_KINDS`` kinds: the layout of a runbook, repeated."""
    members: dict[str, list[Part]] = {}
    kinds: dict[str, set[str]] = {}
    for p in parts:
        path = p.heading_path
        if len(path) <= level:
            continue
        top = path[level]
        members.setdefault(top, []).append(p)
        kinds.setdefault(top, set()).update(heading_kinds(path[level + 1 :]) - {"symptoms"})
    laid_out = sum(1 for found in kinds.values() if len(found) >= MIN_KINDS)
    return members if laid_out >= MIN_TOPICS else None


def _only_groups(paths: Sequence[tuple[str, ...]], level: int) -> bool:
    """Are the headings of ``level`` over deeper ones only names of groups ("Ceph",
    "Database alerts"), none a kind of section ("Mitigation > Option A")?"""
    over = {path[level] for path in paths if len(path) > level + 1}
    return bool(over) and not any(heading_kinds((h,)) for h in over)


def _named_level(paths: Sequence[tuple[str, ...]]) -> int | None:
    """The heading level at which at least ``MIN_NAMED`` headings are alert names."""
    seen: dict[int, set[str]] = {}
    for path in paths:
        for level, heading in enumerate(path):
            word = plain_heading(heading).strip().strip('"')
            if " " not in word and written_as_name(word):
                seen.setdefault(level, set()).add(word)
    found = [level for level, words in seen.items() if len(words) >= MIN_NAMED]
    return min(found) if found else None


def _by_level(parts: Sequence[Part], level: int) -> dict[str, list[Part]]:
    """The parts under each heading of ``level``, by that heading."""
    members: dict[str, list[Part]] = {}
    for p in parts:
        if len(p.heading_path) > level:
            members.setdefault(p.heading_path[level], []).append(p)
    return members


def rank_topics(
    parts: Sequence[Part],
    terms: Sequence[str],
    stats: TermStats,
    dense_of: Callable[[Part], float],
    names: frozenset[str],
    weights: SectionWeights,
    *,
    by_name: bool = False,
) -> list[tuple[str, list[Part]]] | None:
    """In a collection, its runbooks as (heading, parts), the one the question is about
    first: the one the question names, or else the one holding the part with the best
    evidence (the question's words in it and in its heading, its dense score) plus its
    own heading's words. None for a single runbook."""
    return rank_groups(topics(parts, by_name=by_name), terms, stats, dense_of, names, weights)


def rank_groups(
    groups: Mapping[str, list[Part]] | None,
    terms: Sequence[str],
    stats: TermStats,
    dense_of: Callable[[Part], float],
    names: frozenset[str],
    weights: SectionWeights,
) -> list[tuple[str, list[Part]]] | None:
    """:func:`rank_topics` for the runbooks :func:`topics` found in a document (None: a
    single runbook), worked out once per document and index generation."""
    if groups is None:
        return None

    def part(p: Part, topic: str) -> float:
        """A part's own evidence, whatever was asked: which runbook before which part.
        (A runbook's words taken together favour the longest one.)"""
        below = p.heading_terms if p.heading != topic else frozenset()
        return (
            weights.lexical * coverage(terms, p.terms, stats)
            + weights.heading * coverage(terms, below, stats)
            + weights.dense * dense_of(p)
        )

    def evidence(item: tuple[str, list[Part]]) -> tuple[bool, float]:
        heading, members = item
        own = weights.heading * coverage(terms, tokenize(heading), stats)
        best = max(part(p, heading) for p in members)
        return normalize_name(heading) in names, best + own

    return sorted(groups.items(), key=evidence, reverse=True)


def topic_of(parts: Sequence[Part], section: str | None) -> list[Part]:
    """In a collection, the parts of the runbook that ``section`` (a citation's heading
    path, ``QueueConsumerLag > Mitigation``) lies in; otherwise every part."""
    groups = topics(parts) if section else None
    if groups is None or section is None:
        return list(parts)
    for members in groups.values():
        if any(section == p.section or section.startswith(p.section + " > ") for p in members):
            return members
    return list(parts)
