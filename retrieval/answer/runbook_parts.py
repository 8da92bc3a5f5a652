"""A retrieved document's parts (its sections, outlined once per index generation), its
runbooks when one file holds several, and its parts ranked for the question."""

from __future__ import annotations

from collections.abc import Sequence

from core.heading_text import without_title_label
from core.link_references import link_definitions
from core.models import Chunk, normalize_name
from retrieval.answer.composer import shared_depth
from retrieval.answer.outline import Part, outline
from retrieval.answer.part_ranking import (
    ScoredPart,
    SectionWeights,
    anchored_heading,
    lead_with,
    rank_parts,
)
from retrieval.answer.retrieved import Candidate, Retrieval
from retrieval.answer.topics import rank_groups, topics
from retrieval.reading import (
    document_names,
    naming_terms,
    only_names,
    tokenize,
)


class RunbookParts:
    def __init__(
        self, sections: SectionWeights, *, openers: bool = True, fillers: bool = True
    ) -> None:
        self._sections = sections
        self._openers = openers  # the index's template openers restate, as Symptoms do
        self._fillers = fillers  # the template's words left in many runbooks say nothing

    def parts(self, source_id: str, chunk: Chunk, r: Retrieval) -> list[Part]:
        """The document's parts, in the document's order (once per index generation)."""
        return outline(r.snapshot, source_id, chunk)

    def link_definitions(self, part: Part, r: Retrieval) -> dict[str, str]:
        """The ``[label]: url`` definitions of the part's document, for its reference links."""
        parts = self.parts(part.chunk.source_id, part.chunk, r)
        return link_definitions("\n\n".join(p.body for p in parts))

    def collection(
        self, source_id: str, chunk: Chunk, r: Retrieval, *, by_name: bool = False
    ) -> dict[str, list[Part]] | None:
        """In a file of several runbooks, its runbooks by heading (:func:`topics`; None for
        one runbook), worked out once per document and index generation."""
        kind = "runbooks by name" if by_name else "runbooks"
        if not r.snapshot.chunks_by_source.get(source_id):
            return topics(self.parts(source_id, chunk, r), by_name=by_name)
        return r.snapshot.per_document(
            kind, source_id, lambda: topics(self.parts(source_id, chunk, r), by_name=by_name)
        )

    def topics(
        self, source_id: str, chunk: Chunk, r: Retrieval, *, by_name: bool = False
    ) -> list[tuple[str, list[Part]]] | None:
        """In a file of several runbooks, its runbooks, the one asked about first."""
        return rank_groups(
            self.collection(source_id, chunk, r, by_name=by_name),
            r.question.terms,
            r.snapshot.term_stats,
            lambda p: r.snapshot.dense_score(p.chunk.chunk_id, r.vector) or 0.0,
            r.question.names,
            self._sections,
        )

    def topic(self, source_id: str, chunk: Chunk, r: Retrieval) -> tuple[str, list[Part]] | None:
        """In a file of several runbooks, the one the question is about: its evidence is
        the answer's, not the whole file's (a file of playbooks by alert name included,
        though its quotes may come from any of them)."""
        ranked = self.topics(source_id, chunk, r, by_name=True)
        return ranked[0] if ranked else None

    def runbooks(self, cand: Candidate, r: Retrieval) -> list[list[Part]]:
        """The candidate document's runbooks, closest first: its own parts for a single
        runbook, its runbooks' in a collection (:mod:`topics`)."""
        ranked = self.topics(cand.doc.source_id, cand.chunk, r)
        if ranked:
            return [members for _heading, members in ranked]
        return [self.parts(cand.doc.source_id, cand.chunk, r)]

    def rank(
        self, parts: Sequence[Part], r: Retrieval, cand: Candidate | None = None
    ) -> list[ScoredPart]:
        """The parts of one runbook (a whole document, or one runbook of a collection:
        named by its top heading too), best first."""
        naming, titled = _naming(parts, r, cand)
        asking = r.question.asking_words
        return rank_parts(
            parts,
            [t for t in r.question.terms if t not in asking],
            r.snapshot.term_stats,
            lambda p: r.snapshot.dense_score(p.chunk.chunk_id, r.vector) or 0.0,
            r.question.intent,
            self._sections,
            r.question.names,
            naming,
            detail=r.question.detail,
            what_to_do=r.question.what_to_do,
            bare=_bare(r, naming, titled),
            titled=titled,
            openers=r.snapshot.openers if self._openers else frozenset(),
            fillers=r.snapshot.fillers if self._fillers else frozenset(),
        )

    def bare(self, cand: Candidate, r: Retrieval) -> bool:
        """Does the question name the candidate's runbook and ask nothing else of it?"""
        return _bare(r, *_naming(self.runbooks(cand, r)[0], r, cand))

    def ranked(self, cand: Candidate, r: Retrieval) -> list[ScoredPart]:
        """The parts of the candidate's runbook, best first; the section the link's #anchor
        points at first, when it names one of the runbook's headings."""
        ranked = self.rank(self.runbooks(cand, r)[0], r, cand)
        return lead_with(ranked, self._anchored(cand, r))

    def _anchored(self, cand: Candidate, r: Retrieval) -> tuple[str, ...] | None:
        """The heading of the candidate's document that the link's #anchor names."""
        if not r.question.anchor:
            return None
        return anchored_heading(self.parts(cand.doc.source_id, cand.chunk, r), r.question.anchor)


def _naming(
    parts: Sequence[Part], r: Retrieval, cand: Candidate | None
) -> tuple[frozenset[str], frozenset[str]]:
    """(the words of the runbook's name the question gives, the words of its title)."""
    if cand is None:
        return frozenset(), frozenset()
    paths = [p.heading_path for p in parts]
    shared = paths[0][: shared_depth(paths)] if len(paths) > 1 else ()
    # one runbook of a collection is named by its top heading ("Alert: X") too, by the
    # alerts its front matter says it answers, and by the codes it is tagged with
    # (``tags: [CHK-5023]``: an error code, not a topic word such as ``postgres``)
    names = (
        document_names(cand.chunk)
        | {normalize_name(without_title_label(h)) for h in shared}
        | {normalize_name(a) for a in cand.chunk.metadata.alerts}
        | {normalize_name(t) for t in cand.chunk.metadata.tags if any(c.isdigit() for c in t)}
    )
    titled = frozenset(tokenize(" ".join((cand.chunk.title, *shared))))
    return naming_terms(r.question.query, names), titled


def _bare(r: Retrieval, naming: frozenset[str], titled: frozenset[str]) -> bool:
    """A bare alert: nothing but its name, that it fires, where; or the runbook's name
    said in words ("kafka broker down, what do i do"), which asks nothing else of it."""
    return only_names(r.question.query, r.question.names, naming | titled)
