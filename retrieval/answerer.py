"""Extractive answers: the best section's exact spans, with citations, warnings and abstention.

No language model is involved: every quote is a slice of the original file,
``original_text[start:end] == quote``. The answerer abstains when the evidence
is weak; the thresholds live in :mod:`retrieval.answer_config`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import PurePosixPath
from typing import Protocol
from urllib.parse import quote_plus

from retrieval.answer_config import AnswerConfig
from retrieval.doc_warnings import document_warnings
from retrieval.embeddings import Vectors
from retrieval.evidence import coverage, query_terms, specific_coverage, unknown_entities
from retrieval.names import document_names, query_names
from retrieval.redact import redact
from retrieval.search import HybridSearcher, group_by_document
from retrieval.snapshot import Snapshot
from retrieval.spans import section_text, select_spans
from retrieval.types import (
    AbstainReason,
    Answer,
    AnswerWarning,
    Chunk,
    Citation,
    DocumentHits,
    SearchFilter,
)

RUNBOOK_TYPES = ("runbook", "adr", "doc")
INCIDENT_TYPES = ("incident",)
INACTIVE_STATUSES = frozenset({"superseded", "deprecated"})
LEAD_WINDOW = 3  # ranked documents considered for the answer's lead
LEAD_MARGIN = 0.3  # confidence by which a lower-ranked document must beat the first
ACTION_SECTIONS = re.compile(
    r"\b(mitigation|mitigate|remediation|resolution|resolve|fix|steps|procedure|runbook|"
    r"recovery|recover|rollback|roll back|workaround|what to do|response|failover)\b",
    re.IGNORECASE,
)


def is_action_section(chunk: Chunk) -> bool:
    return bool(chunk.heading_path) and bool(ACTION_SECTIONS.search(chunk.heading_path[-1]))


REASON_TEXT: dict[str, str] = {
    "no-match": "No runbook matches this question.",
    "low-confidence": "No runbook answers this with confidence.",
    "access-denied": "A runbook you cannot read may cover this; ask its owners for access.",
    "only-superseded-sources": "Only superseded or deprecated documents mention this.",
    "error": "The search failed.",
}


class Answerer(Protocol):
    def answer(self, question: str, flt: SearchFilter | None = None) -> Answer: ...


@dataclass(frozen=True)
class Candidate:
    doc: DocumentHits
    dense: float
    coverage: float
    confidence: float
    specific: float = 1.0  # share of the question's most specific terms in this document
    named: bool = False  # the question names this document outright (its alert name)

    @property
    def chunk(self) -> Chunk:
        return self.doc.best.chunk

    @property
    def active(self) -> bool:
        return self.chunk.metadata.status not in INACTIVE_STATUSES


@dataclass(frozen=True)
class Retrieval:
    question: str
    generation: int
    vector: Vectors
    snapshot: Snapshot
    runbooks: tuple[Candidate, ...]
    incidents: tuple[Candidate, ...]
    terms: tuple[str, ...] = field(default=())
    unknown: tuple[str, ...] = field(default=())


def search_link(template: str | None, question: str) -> str | None:
    return template.replace("{query}", quote_plus(question)) if template else None


def chunk_url(chunk: Chunk, line: int | None = None) -> str | None:
    url = chunk.metadata.url
    return url.replace("{line}", str(line or chunk.line)) if url else None


def make_citation(
    chunk: Chunk, start: int, end: int, quote: str, line: int, today: date
) -> Citation:
    m = chunk.metadata
    return Citation(
        source_id=chunk.source_id,
        title=chunk.title,
        section=chunk.section,
        path=chunk.path,
        url=chunk_url(chunk, line),
        revision=m.revision,
        start=start,
        end=end,
        line=line,
        quote=quote,
        owner=m.owner,
        updated=m.updated,
        age_days=(today - m.updated).days if m.updated else None,
        doc_type=m.doc_type,
        status=m.status,
        access=m.access,
        service=m.service,
        superseded_by=m.superseded_by,
    )


class ExtractiveAnswerer:
    def __init__(
        self,
        searcher: HybridSearcher,
        config: AnswerConfig | None = None,
        clock: Callable[[], date] = date.today,
        rewrite: Callable[[str], str] | None = None,
        dense_query: Callable[[str], Vectors] | None = None,
        vocabulary: frozenset[str] = frozenset(),
    ) -> None:
        self._vocabulary = vocabulary
        self._searcher = searcher
        self._config = config or AnswerConfig()
        self._clock = clock
        self._rewrite = rewrite
        self._dense_query = dense_query

    @property
    def config(self) -> AnswerConfig:
        return self._config

    # -- retrieval -----------------------------------------------------------

    def _candidates(
        self,
        docs: Sequence[DocumentHits],
        vector: Vectors,
        snap: Snapshot,
        terms: Sequence[str],
        names: frozenset[str] = frozenset(),
    ) -> tuple[Candidate, ...]:
        out = []
        for d in docs[: self._config.candidates_considered]:
            dense_scores = [h.dense_score for h in d.hits if h.dense_score is not None]
            if not dense_scores:  # keyword-only hits: score them from the dense mirror
                found = (snap.dense_score(h.chunk.chunk_id, vector) for h in d.hits)
                dense_scores = [x for x in found if x is not None]
            dense = max(dense_scores, default=0.0)
            doc_terms = snap.doc_terms.get(d.source_id, frozenset())
            cov = coverage(terms, doc_terms, snap.term_stats)
            spec = specific_coverage(terms, doc_terms, snap.term_stats)
            named = bool(names & document_names(d.best.chunk))
            confidence = self._config.confidence(dense, cov)
            out.append(Candidate(d, dense, cov, confidence, spec, named))
        return tuple(out)

    def retrieve(
        self, question: str, flt: SearchFilter | None = None, vector: Vectors | None = None
    ) -> Retrieval:
        """Search runbooks and incidents for ``question``; ``vector`` skips re-embedding it."""
        query = self._rewrite(question) if self._rewrite else question
        generation = self._searcher.generation()
        snap = self._searcher.snapshot(generation)
        if vector is None:
            embed = self._dense_query or self._searcher.embedder.embed_query
            vector = embed(query)
        terms = tuple(query_terms(query))
        names = query_names(query)
        base = flt or SearchFilter()

        def search(types: tuple[str, ...]) -> list[DocumentHits]:
            f = base.model_copy(
                update={
                    "doc_types": types
                    if base.doc_types is None
                    else tuple(t for t in base.doc_types if t in types)
                }
            )
            hits = self._searcher.search_chunks(query, f, vector, generation)
            return self._searcher.group(query, hits)

        return Retrieval(
            question=question,
            generation=generation,
            vector=vector,
            snapshot=snap,
            runbooks=self._candidates(search(RUNBOOK_TYPES), vector, snap, terms, names),
            incidents=self._candidates(search(INCIDENT_TYPES), vector, snap, terms, names),
            terms=terms,
            unknown=tuple(
                unknown_entities(
                    query, snap.term_stats.doc_freq, self._vocabulary, snap.document_names
                )
            ),
        )

    # -- answering -----------------------------------------------------------

    def answer(self, question: str, flt: SearchFilter | None = None) -> Answer:
        r = self.retrieve(question, flt)
        return self.answer_from(r, flt)

    def _successor(
        self, cand: Candidate, r: Retrieval, flt: SearchFilter | None
    ) -> Candidate | None:
        """The current document a superseded one names, when it is indexed and readable."""
        target = cand.chunk.metadata.superseded_by
        if not target:
            return None
        sid = str(PurePosixPath(target).with_suffix(""))
        for c in r.runbooks:
            if c.active and c.doc.source_id == sid:
                return c
        chunks = r.snapshot.chunks_by_source.get(sid)
        if not chunks:
            return None
        groups = flt.groups if flt is not None else None
        if groups is not None and not set(chunks[0].metadata.access) & set(groups):
            return None
        hits = self._searcher.search_chunks(
            r.question, SearchFilter(groups=groups), r.vector, r.generation
        )
        own = [h for h in hits if h.chunk.source_id == sid]
        if not own:
            return None
        doc = group_by_document(own)[0]
        cov = coverage(r.terms, r.snapshot.doc_terms.get(sid, frozenset()), r.snapshot.term_stats)
        dense = max((h.dense_score or 0.0 for h in own), default=0.0)
        return Candidate(doc, dense, cov, self._config.confidence(dense, cov))

    def answer_from(self, r: Retrieval, flt: SearchFilter | None) -> Answer:
        cfg = self._config
        today = self._clock()
        link = search_link(cfg.search_link_template, redact(r.question))
        bar = cfg.threshold(r.unknown)
        # The lead document decides on specificity: the best-ranked one, unless one of
        # the next few is far stronger evidence. When the question's telling words are
        # not in the lead, a lower-ranked document that happens to hold them is no
        # better evidence (measured: answering from it turns near-miss traps into answers).
        lead = r.runbooks[0] if r.runbooks else None
        for c in r.runbooks[1:LEAD_WINDOW]:
            if lead is not None and c.confidence >= lead.confidence + LEAD_MARGIN:
                lead = c
        confident = [c for c in r.runbooks if cfg.supports(c.confidence, c.specific, bar, c.named)]
        if lead is not None and lead in confident:
            confident.remove(lead)
            confident.insert(0, lead)
        confident_incidents = [
            c for c in r.incidents if cfg.supports(c.confidence, c.specific, bar, c.named)
        ]
        if (
            lead is not None
            and not lead.named
            and cfg.points_elsewhere(lead.confidence, lead.specific)
        ):
            confident, confident_incidents = [], []
        warnings: list[AnswerWarning] = []

        chosen: Candidate | None = None
        if confident:
            top = confident[0]
            if top.active:
                chosen = top
            else:
                chosen = next((c for c in confident if c.active), None) or self._successor(
                    top, r, flt
                )
                if chosen is not None:
                    warnings.append(_superseded_note(top, chosen))
        elif confident_incidents:
            chosen = confident_incidents[0]

        if chosen is None:
            reason: AbstainReason
            if confident:
                reason = "only-superseded-sources"
                warnings.append(_superseded_note(confident[0], None))
            elif not r.runbooks and not r.incidents:
                reason = "no-match"
            else:
                reason = "low-confidence"
            if reason != "only-superseded-sources" and flt is not None and flt.groups is not None:
                wider = self.retrieve(r.question, flt.model_copy(update={"groups": None}), r.vector)
                if any(
                    cfg.supports(c.confidence, c.specific, bar, c.named) and c.active
                    for c in wider.runbooks
                ):
                    reason = "access-denied"
            closest = (r.runbooks or r.incidents or (None,))[0]
            return Answer(
                state="abstain",
                text=REASON_TEXT[reason],
                question=r.question,
                reason=reason,
                warnings=tuple(warnings),
                related=tuple(
                    self._cite(c, r, today)[0]
                    for c in confident[:1]
                    if reason == "only-superseded-sources"
                ),
                search_link=link,
                generation=r.generation,
                confidence=round(max((c.confidence for c in r.runbooks), default=0.0), 4),
                closest_owner=closest.chunk.metadata.owner if closest is not None else None,
                closest_service=closest.chunk.metadata.service if closest is not None else None,
            )

        citations = self._cite(chosen, r, today)
        warnings = (
            document_warnings(
                chosen.chunk.metadata,
                chosen.chunk.source_id,
                chosen.chunk.title,
                today,
                cfg.stale_after_days,
            )
            + warnings
        )
        related = tuple(
            self._cite(c, r, today)[0]
            for c in confident_incidents[: cfg.max_related]
            if c.doc.source_id != chosen.doc.source_id
        )
        m = chosen.chunk.metadata
        kind = {"incident": "incident write-up", "adr": "decision record"}.get(
            m.doc_type, "runbook"
        )
        text = f"From the {kind} *{chosen.chunk.title}*, section *{chosen.chunk.section}*:"
        return Answer(
            state="answer",
            text=text,
            question=r.question,
            citations=citations,
            related=related,
            warnings=tuple(warnings),
            search_link=link,
            generation=r.generation,
            confidence=round(chosen.confidence, 4),
        )

    def _steps_chunk(self, cand: Candidate, r: Retrieval) -> Chunk | None:
        """The document's best-matching action section (Mitigation, Steps, ...), if the
        chosen section is not one: an on-call engineer needs what to do, not only what
        is happening."""
        if is_action_section(cand.chunk):
            return None
        for h in cand.doc.hits:
            if is_action_section(h.chunk):
                return h.chunk
        for c in r.snapshot.chunks_by_source.get(cand.doc.source_id, []):
            if is_action_section(c):
                return c
        return None

    def _cite(self, cand: Candidate, r: Retrieval, today: date) -> tuple[Citation, ...]:
        out = self._cite_chunk(cand.chunk, r, today)
        steps = self._steps_chunk(cand, r)
        if steps is not None:
            out += self._cite_chunk(steps, r, today)[:1]
        return out

    def _cite_chunk(self, chunk: Chunk, r: Retrieval, today: date) -> tuple[Citation, ...]:
        spans = select_spans(
            chunk, r.vector, r.terms, r.snapshot.term_stats, self._searcher.embedder
        )
        section = section_text(chunk)
        out = []
        for sp in spans:
            line = chunk.line + section.count("\n", 0, sp.start - chunk.start)
            out.append(make_citation(chunk, sp.start, sp.end, sp.text, line, today))
        return tuple(out)


def _superseded_note(old: Candidate, new: Candidate | None) -> AnswerWarning:
    m = old.chunk.metadata
    status = m.status
    by = f" by {m.superseded_by}" if m.superseded_by else ""
    if new is not None:
        msg = (
            f"'{old.chunk.title}' also matches but is {status}{by}; "
            f"this answer comes from the current '{new.chunk.title}'."
        )
    else:
        msg = f"'{old.chunk.title}' is {status}{by}; do not follow it without checking."
    kind = "deprecated" if status == "deprecated" else "superseded"
    return AnswerWarning(kind=kind, message=msg, source_id=old.chunk.source_id)
