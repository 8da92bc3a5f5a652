"""Extractive answers: the best section's exact spans, with citations, warnings and abstention.

No language model is involved: every quote is a slice of the original file,
``original_text[start:end] == quote``. The answerer abstains when the evidence
is weak; the thresholds live in :mod:`retrieval.answer_config`.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Protocol
from urllib.parse import quote_plus

from core.doc_ids import reference_id
from core.heading_text import plain_heading, plain_section
from core.link_references import REFERENCE_LINK, link_definitions, ref_key
from core.markup import syntax_for
from core.models import (
    MISSING_DETAIL,
    AbstainReason,
    Answer,
    AnswerWarning,
    Chunk,
    Citation,
    DocumentHits,
    Hit,
    SearchFilter,
    Suggestion,
    normalize_name,
)
from core.redact import redact
from retrieval.answer_config import AnswerConfig
from retrieval.asked_detail import Detail, asked_detail
from retrieval.asks import asks, refers_back
from retrieval.composer import (
    ScoredPart,
    anchored_heading,
    choose_parts,
    from_the_first_step,
    lead_in,
    lead_with,
    quote_parts,
    rank_parts,
    shared_depth,
)
from retrieval.confidence import Evidence, everyday_terms, gather_evidence
from retrieval.contrast import seen_fine, set_aside
from retrieval.doc_warnings import document_warnings
from retrieval.embeddings import Vectors
from retrieval.evidence import coverage, query_terms, unknown_entities
from retrieval.intent import (
    Intent,
    asks_about_past,
    asks_what_to_do,
    asks_where_to_start,
    heading_kinds,
    question_intent,
)
from retrieval.lexicon import said_plainly, spelled_words, with_long_forms, written_in
from retrieval.names import as_titled, as_written, document_names, naming_terms, query_names
from retrieval.outline import OutlineCache, Part, within
from retrieval.permissions import readable
from retrieval.pointers import named_within, pointed_to, pointed_within, runbook_links
from retrieval.query import drop_links
from retrieval.search import HybridSearcher, group_by_document
from retrieval.snapshot import Snapshot
from retrieval.spelling import Reading, corrected
from retrieval.stubs import stub
from retrieval.tokenize import tokenize
from retrieval.topics import rank_topics, topics

RUNBOOK_TYPES = ("runbook", "adr", "doc")
INCIDENT_TYPES = ("incident",)
INACTIVE_STATUSES = frozenset({"superseded", "deprecated"})
LEAD_WINDOW = 3  # ranked documents considered for the answer's lead
# an ask of a compound question that a second runbook answers: it names this many terms
# of the index, and that runbook holds this share of them (IDF-weighted)
OTHER_ASK_MIN_TERMS = 3
OTHER_ASK_COVERAGE = 0.8
LEAD_MARGIN = 0.3  # confidence by which a lower-ranked document must beat the first
UNSURE_TEXT = "Not sure these answer it: the closest runbooks."
REASON_TEXT: dict[str, str] = {
    "no-match": "No runbook covers this.",
    "low-confidence": "No runbook covers this.",
    "no-command": "No runbook shows a command for this.",
    "no-value": "No runbook gives the value or setting asked for.",
    "access-denied": "A runbook you cannot read may cover this; ask its owners for access.",
    "only-superseded-sources": "Only superseded or deprecated documents mention this.",
    "unwritten": "The runbook for this is not written yet.",
}


class Answerer(Protocol):
    def answer(self, question: str, flt: SearchFilter | None = None) -> Answer: ...


def current(chunk: Chunk) -> bool:
    """Is the chunk's document neither superseded nor deprecated?"""
    return chunk.metadata.status not in INACTIVE_STATUSES


@dataclass(frozen=True)
class Candidate:
    doc: DocumentHits
    dense: float
    coverage: float
    confidence: float
    named: bool = False  # the question names this document outright (its alert name)
    evidence: Evidence | None = None

    @property
    def chunk(self) -> Chunk:
        return self.doc.best.chunk

    @property
    def active(self) -> bool:
        return current(self.chunk)


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
    dense_scores: tuple[float, ...] = field(default=())  # runbook hits, best first
    everyday: frozenset[str] = field(default=frozenset())
    # normalized names the question gives: its alert names, a pinned link's #anchor
    names: frozenset[str] = field(default=frozenset())
    # the pinned link's #anchor as written: the heading of the runbook to lead with
    anchor: str | None = None
    read_as: tuple[tuple[str, str], ...] = ()  # typos, alert names: as typed, as read
    query: str = ""  # the question as read: names as the runbooks write them, typos corrected


def search_link(template: str | None, question: str) -> str | None:
    return template.replace("{query}", quote_plus(question)) if template else None


def chunk_url(chunk: Chunk, line: int | None = None) -> str | None:
    url = chunk.metadata.url
    return url.replace("{line}", str(line or chunk.line)) if url else None


def make_citation(
    chunk: Chunk,
    start: int,
    end: int,
    quote: str,
    line: int,
    today: date,
    section: str | None = None,
    note: str | None = None,
    header: str | None = None,
) -> Citation:
    m = chunk.metadata
    return Citation(
        source_id=chunk.source_id,
        title=chunk.title,
        section=section or plain_section(chunk.section),
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
        note=note,
        header=header,
    )


class ExtractiveAnswerer:
    def __init__(
        self,
        searcher: HybridSearcher,
        config: AnswerConfig | None = None,
        clock: Callable[[], date] = date.today,
        rewrite: Callable[[str], str] | None = None,
        dense_query: Callable[[str], Vectors] | None = None,
        vocabulary: Container[str] = frozenset(),
    ) -> None:
        self._vocabulary = vocabulary
        self._spelled = spelled_words(vocabulary)
        self._searcher = searcher
        self._config = config or AnswerConfig()
        self._clock = clock
        self._rewrite = rewrite
        self._dense_query = dense_query
        self._outline = OutlineCache()

    @property
    def config(self) -> AnswerConfig:
        return self._config

    def with_config(self, config: AnswerConfig) -> ExtractiveAnswerer:
        """The same answerer (search, rewriting, vocabulary) with other answer settings."""
        return ExtractiveAnswerer(
            self._searcher,
            config,
            clock=self._clock,
            rewrite=self._rewrite,
            dense_query=self._dense_query,
            vocabulary=self._vocabulary,
        )

    # -- retrieval -----------------------------------------------------------

    def _candidates(
        self,
        docs: Sequence[DocumentHits],
        r: Retrieval,
        names: frozenset[str] = frozenset(),
    ) -> tuple[Candidate, ...]:
        snap = r.snapshot
        return tuple(
            self._candidate(d, r, names)
            for d in docs[: self._config.candidates_considered]
            if snap.chunks_by_source.get(d.source_id)
        )

    def _candidate(self, d: DocumentHits, r: Retrieval, names: frozenset[str]) -> Candidate:
        snap = r.snapshot
        own_names = document_names(d.best.chunk)
        named = bool(names & own_names)
        dense_scores = [h.dense_score for h in d.hits if h.dense_score is not None]
        if not dense_scores:  # keyword-only hits: score them from the dense mirror
            found = (snap.dense_score(h.chunk.chunk_id, r.vector) for h in d.hits)
            dense_scores = [x for x in found if x is not None]
        dense = max(dense_scores, default=0.0)
        doc_terms = snap.doc_terms.get(d.source_id, frozenset())
        topic = self._topic(d.source_id, d.best.chunk, r)
        if topic is not None:  # a file of runbooks: the evidence of the one asked about
            heading, members = topic
            doc_terms = frozenset().union(*(p.terms for p in members))
            named = named or normalize_name(heading) in names
            own_names = own_names | {normalize_name(heading)}
        # a name the question gives whole ("cputhrottlinghigh") is the document's, though
        # only its file name spells it
        doc_terms = doc_terms | (own_names & frozenset(r.terms))
        evidence = gather_evidence(
            dense=dense,
            dense_scores=r.dense_scores or (dense,),
            terms=r.terms,
            doc_terms=doc_terms,
            stats=snap.term_stats,
            everyday=r.everyday,
            unknown=r.unknown,
            named=named,
            names=snap.document_names,
        )
        confidence = self._config.model.probability(evidence)
        return Candidate(d, dense, evidence.coverage, confidence, named, evidence)

    def read(self, query: str) -> Reading:
        """``query`` as the runbooks write it: names in their spelling, typos corrected."""
        return self._read(query, self._searcher.snapshot())

    def _read(self, query: str, snap: Snapshot) -> Reading:
        doc_freq = snap.term_stats.doc_freq
        # an alert name no runbook writes that a runbook's title spells in words
        query, titled = as_titled(
            query,
            lambda name: doc_freq.get(name, 0) > 0 or name in snap.document_names,
            lambda: snap.titles,
        )
        # a runbook's name typed in other case, as written: "kubepodcrashlooping"
        query = as_written(query, doc_freq, lambda: snap.written_names, snap.document_names)
        # typos read as the word they stand for: "conection" -> "connection"
        reading = corrected(query, doc_freq, self._vocabulary, lambda: snap.words, self._spelled)
        if not titled:
            return reading
        named = frozenset(normalize_name(title) for _name, title in titled)
        return replace(reading, read_as=titled + reading.read_as, named=named)

    def retrieve(
        self, question: str, flt: SearchFilter | None = None, vector: Vectors | None = None
    ) -> Retrieval:
        """Search runbooks and incidents for ``question``; ``vector`` skips re-embedding it."""
        query = drop_links(self._rewrite(question) if self._rewrite else question)
        generation = self._searcher.generation()
        snap = self._searcher.snapshot(generation)
        doc_freq = snap.term_stats.doc_freq
        reading = self._read(query, snap)
        query = reading.text
        if vector is None:
            embed = self._dense_query or self._searcher.embedder.embed_query
            # "bounce" is "restart" to an on-call engineer, unless the runbooks say "bounce"
            vector = embed(said_plainly(query, written_in(doc_freq)))
        names = query_names(query, doc_freq, snap.term_stats.n_docs) | reading.named
        if flt is not None and flt.anchor:
            names = names | {normalize_name(flt.anchor)}
        pinned = flt.sources if flt is not None else None
        base = (flt or SearchFilter()).model_copy(update={"sources": None})

        def search(types: tuple[str, ...]) -> tuple[list[DocumentHits], list[float]]:
            f = base.model_copy(
                update={
                    "doc_types": types
                    if base.doc_types is None
                    else tuple(t for t in base.doc_types if t in types)
                }
            )
            hits = self._searcher.search_chunks(query, f, vector, generation)
            dense = sorted((h.dense_score for h in hits if h.dense_score is not None), reverse=True)
            return self._searcher.group(query, hits, reading.named), dense

        runbooks, dense_scores = search(RUNBOOK_TYPES)
        incidents, _ = search(INCIDENT_TYPES)
        r = Retrieval(
            question=question,
            generation=generation,
            vector=vector,
            snapshot=snap,
            runbooks=(),
            incidents=(),
            terms=tuple(query_terms(with_long_forms(query, written_in(doc_freq)))),
            unknown=tuple(unknown_entities(query, doc_freq, self._vocabulary, snap.document_names)),
            dense_scores=tuple(dense_scores),
            everyday=everyday_terms(query, doc_freq, self._vocabulary),
            names=names,
            anchor=flt.anchor if flt is not None else None,
            read_as=reading.read_as,
            query=query,
        )
        if pinned is not None:
            runbooks = self._pinned(pinned, [*runbooks, *incidents], snap, vector, base.groups)
            incidents = []
            pinned_names = {n for d in runbooks for n in document_names(d.best.chunk)}
            names = names | frozenset(pinned_names)  # the document is named outright
        return replace(
            r,
            runbooks=self._candidates(runbooks, r, names),
            incidents=self._candidates(incidents, r, names),
        )

    @staticmethod
    def _pinned(
        sources: Sequence[str],
        found: Sequence[DocumentHits],
        snap: Snapshot,
        vector: Vectors,
        groups: tuple[str, ...] | None,
    ) -> list[DocumentHits]:
        """The pinned documents (``SearchFilter.sources``) the filter's groups may read, in
        the pinned order: as the search found them, or else all their chunks."""
        by_source = {d.source_id: d for d in found}
        out: list[DocumentHits] = []
        for sid in dict.fromkeys(sources):
            if sid in by_source:
                out.append(by_source[sid])
                continue
            chunks = snap.chunks_by_source.get(sid)
            if not chunks or not readable(chunks[0], groups):
                continue
            hits = sorted(
                (Hit(chunk=c, dense_score=snap.dense_score(c.chunk_id, vector)) for c in chunks),
                key=lambda h: -(h.dense_score or 0.0),
            )
            first = chunks[0]
            out.append(
                DocumentHits(
                    source_id=sid,
                    path=first.path,
                    title=first.title,
                    score=0.0,
                    hits=tuple(hits),
                )
            )
        return out

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
        sid = reference_id(target, cand.doc.source_id, any_path=True)
        for c in r.runbooks:
            if c.active and c.doc.source_id == sid:
                return c
        chunks = r.snapshot.chunks_by_source.get(sid)
        if not chunks:
            return None
        groups = flt.groups if flt is not None else None
        if not readable(chunks[0], groups):
            return None
        hits = self._searcher.search_chunks(
            r.question, SearchFilter(groups=groups), r.vector, r.generation
        )
        own = [h for h in hits if h.chunk.source_id == sid]
        if not own:
            return None
        return self._candidate(group_by_document(own)[0], r, frozenset())

    def lead(self, r: Retrieval) -> Candidate | None:
        """The document the answer comes from, if any answers."""
        # A page of links (a service index) is not an answer: the runbooks it lists are.
        answers = [c for c in r.runbooks if not r.snapshot.is_link_page(c.doc.source_id)] or list(
            r.runbooks
        )
        # The best-ranked one, unless one of the next few is far stronger evidence.
        # (Always choosing the most confident of the first few picked the right runbook
        # more often but answered more near misses: held-out abstention F1 fell by 0.05.)
        lead = answers[0] if answers else None
        for c in answers[1:LEAD_WINDOW]:
            if lead is not None and c.confidence >= lead.confidence + LEAD_MARGIN:
                lead = c
        return lead

    def answer_from(self, r: Retrieval, flt: SearchFilter | None) -> Answer:
        answer = self._compose(r, flt)
        return answer.model_copy(update={"read_as": r.read_as}) if r.read_as else answer

    def _compose(self, r: Retrieval, flt: SearchFilter | None) -> Answer:
        cfg = self._config
        model = cfg.model
        today = self._clock()
        link = search_link(cfg.search_link_template, redact(r.question))
        lead = self.lead(r)
        # a pinned document (the alert's own runbook) is the answer however the words match
        pinned = flt is not None and flt.sources is not None
        confident = [c for c in r.runbooks if pinned or c.confidence >= model.answer_at]
        if lead is not None and lead in confident:
            confident.remove(lead)
            confident.insert(0, lead)
        elif lead is not None:
            confident = []  # the lead decides: a weaker document is no better evidence
        confident_incidents = [c for c in r.incidents if c.confidence >= model.answer_at]
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
        # A question about what happened ("what caused the outage in september") is
        # answered from the incident write-up; any other from the runbook, with the
        # write-ups listed as related.
        if confident_incidents and not pinned and (chosen is None or asks_about_past(r.question)):
            chosen = confident_incidents[0]

        if chosen is None:
            return self._not_answered(r, flt, confident, warnings, link, today)

        if (
            not pinned
            and chosen.confidence + LEAD_MARGIN <= 1.0
            and self._hidden_answer(r, flt, above=chosen.confidence + LEAD_MARGIN)
        ):
            # a runbook the asker cannot read answers far better than the readable one:
            # say so rather than quote the weaker runbook as if it answered
            return self._not_answered(r, flt, [], warnings, link, today, hidden=True)
        unwritten = self._unwritten_runbook(chosen, r)
        if unwritten is not None:
            # the runbook asked about is only "TODO": say so, never quote another one
            return self._not_answered(r, flt, [], warnings, link, today, unwritten=unwritten)
        citations = self._cite(chosen, r, today, follow=flt or SearchFilter())
        citations += self._other_ask(chosen, citations, confident, r, today)
        detail = asked_detail(r.question)
        if (
            not pinned
            and detail is not None
            and not any(detail.shown_in(c.path, c.quote) for c in citations)
        ):
            # "whats the cmd to …" answered with prose alone, "how many days …" with no
            # number: the runbook covers the topic, not the detail asked for (a near
            # miss); offer the closest runbooks instead
            return self._not_answered(r, flt, [], warnings, link, today, missing=detail.missing)
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
        unwritten_section = self._unwritten_action(chosen, r)
        if unwritten_section is not None:
            warnings.append(
                AnswerWarning(
                    kind="unwritten-section",
                    message=f"This runbook's {unwritten_section} section is not written yet.",
                    source_id=chosen.chunk.source_id,
                )
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
        section = citations[0].section if citations else chosen.chunk.section
        text = f"From the {kind} *{chosen.chunk.title}*, section *{section}*:"
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

    def _other_ask(
        self,
        chosen: Candidate,
        citations: Sequence[Citation],
        confident: Sequence[Candidate],
        r: Retrieval,
        today: date,
    ) -> tuple[Citation, ...]:
        """Quotes from a second runbook for the ask of a compound question that the
        chosen runbook's quotes leave out (:mod:`asks`): one of the closest runbooks,
        confident on its own, that holds the words the quotes miss and nearly all of that
        ask's; its best part for that ask alone. None when no runbook is."""
        parts = asks(r.query or r.question)  # as read: its terms are r.terms
        if len(parts) < 2:
            return ()
        stats = r.snapshot.term_stats
        used = written_in(stats.doc_freq)
        quoted = {t for c in citations for t in tokenize(f"{c.section}\n{c.quote}")}
        best: tuple[float, Candidate, str, tuple[str, ...]] | None = None
        for ask in parts:
            wanted = set(query_terms(with_long_forms(ask, used)))
            terms = tuple(t for t in r.terms if t in wanted and stats.doc_freq.get(t, 0))
            missing = {t for t in terms if t not in quoted}
            if not missing or len(terms) < OTHER_ASK_MIN_TERMS or refers_back(ask):
                continue
            for c in confident[:LEAD_WINDOW]:
                if c.doc.source_id == chosen.doc.source_id or not c.active:
                    continue
                held = r.snapshot.doc_terms.get(c.doc.source_id, frozenset())
                share = coverage(terms, held, stats)
                answers = missing <= held and share >= OTHER_ASK_COVERAGE
                if answers and (best is None or share > best[0]):
                    best = (share, c, ask, terms)
        if best is None:
            return ()
        _share, cand, ask, terms = best
        quotes = self._cite(cand, replace(r, question=ask, query=ask, terms=terms), today)
        return tuple(q for q in quotes if q.section == quotes[0].section) if quotes else ()

    def _not_answered(
        self,
        r: Retrieval,
        flt: SearchFilter | None,
        confident: Sequence[Candidate],
        warnings: list[AnswerWarning],
        link: str | None,
        today: date,
        *,
        missing: AbstainReason | None = None,  # the detail asked for is not shown
        hidden: bool | None = None,  # known already: an unreadable runbook answers
        unwritten: Suggestion | None = None,  # the runbook asked about, not written yet
    ) -> Answer:
        """The "not sure" tier (closest runbooks, no quote) or an abstention."""
        if unwritten is not None:
            return Answer(
                state="abstain",
                text=REASON_TEXT["unwritten"],
                question=r.question,
                reason="unwritten",
                warnings=tuple(warnings),
                suggestions=(unwritten,),
                search_link=link,
                generation=r.generation,
                confidence=round(max((c.confidence for c in r.runbooks), default=0.0), 4),
                closest_owner=unwritten.owner,
                closest_service=unwritten.service,
            )
        model = self._config.model
        reason: AbstainReason
        if confident:
            reason = "only-superseded-sources"
            warnings.append(_superseded_note(confident[0], None))
        elif not r.runbooks and not r.incidents:
            reason = "no-match"
        else:
            reason = missing or "low-confidence"
        if hidden is None:
            hidden = reason != "only-superseded-sources" and self._hidden_answer(r, flt)
        if hidden:
            reason = "access-denied"
        best = max((c.confidence for c in r.runbooks), default=0.0)
        offers = reason == "low-confidence" or reason in MISSING_DETAIL  # the closest help
        unsure = offers and best >= model.suggest_at
        closest = (r.runbooks or r.incidents or (None,))[0]
        return Answer(
            state="unsure" if unsure else "abstain",
            text=(UNSURE_TEXT if reason == "low-confidence" else REASON_TEXT[reason])
            if unsure
            else REASON_TEXT[reason],
            question=r.question,
            reason=reason,
            warnings=tuple(warnings),
            related=tuple(
                self._cite(c, r, today)[0]
                for c in confident[:1]
                if reason == "only-superseded-sources"
            ),
            suggestions=self.suggest(r) if offers else (),
            search_link=link,
            generation=r.generation,
            confidence=round(best, 4),
            closest_owner=closest.chunk.metadata.owner if closest is not None else None,
            closest_service=closest.chunk.metadata.service if closest is not None else None,
        )

    def _hidden_answer(self, r: Retrieval, flt: SearchFilter | None, *, above: float = 0.0) -> bool:
        """Would a document the asker cannot read answer with confidence (at least
        ``above``)?"""
        if flt is None or flt.groups is None:
            return False
        wider = self.retrieve(r.question, flt.model_copy(update={"groups": None}), r.vector)
        lead = wider.runbooks[0] if wider.runbooks else None
        return (
            lead is not None
            and lead.active
            and (flt.sources is not None or lead.confidence >= self._config.model.answer_at)
            and lead.confidence >= above
            and not readable(lead.chunk, flt.groups)
        )

    def suggest(self, r: Retrieval) -> tuple[Suggestion, ...]:
        """The closest runbooks, each linked to its best-matching part. A file of runbooks
        offers the one the question is about, and its next ones where places are left."""
        limit = self._config.max_suggestions
        offered = [c for c in r.runbooks[:limit] if c.active]
        runbooks = [self._runbooks(c, r) for c in offered]
        picks = [(c, found[0]) for c, found in zip(offered, runbooks, strict=True) if found]
        for c, found in zip(offered, runbooks, strict=True):
            picks += [(c, more) for more in found[1:]]
        return tuple(self._suggestion(c, parts, r) for c, parts in picks[:limit])

    def _suggestion(self, c: Candidate, parts: Sequence[Part], r: Retrieval) -> Suggestion:
        """The runbook (``parts`` of the candidate's document) linked at its best part."""
        ranked = self._rank(parts, r, c)
        part = ranked[0].part if ranked else None
        chunk = part.chunk if part is not None else c.chunk
        line = part.line_of(part.body_start) if part is not None else chunk.line
        m = chunk.metadata
        return Suggestion(
            source_id=chunk.source_id,
            title=chunk.title,
            section=part.section if part is not None else plain_section(chunk.section),
            path=chunk.path,
            url=chunk_url(chunk, line),
            line=line,
            owner=m.owner,
            access=m.access,
            service=m.service,
            doc_type=m.doc_type,
        )

    def _runbooks(self, cand: Candidate, r: Retrieval) -> list[list[Part]]:
        """The candidate document's runbooks, closest first: its own parts for a single
        runbook, its runbooks' in a collection (:mod:`topics`)."""
        parts = self._parts(cand.doc.source_id, cand.chunk, r)
        ranked = self._topics(parts, r)
        return [members for _heading, members in ranked] if ranked else [parts]

    def _unwritten_runbook(self, cand: Candidate, r: Retrieval) -> Suggestion | None:
        """The runbook the answer would come from, linked, when not one of its parts is
        written ("_TODO: this playbook has not been written yet._"): in a file of
        playbooks, the one the question names; else the document's runbook."""
        parts = self._parts(cand.doc.source_id, cand.chunk, r)
        named = [
            members
            for heading, members in (topics(parts, by_name=True) or {}).items()
            if normalize_name(heading) in r.names
        ]
        runbook = named[0] if named else self._runbooks(cand, r)[0]
        if not runbook or not all(stub(p.body) for p in runbook):
            return None
        return self._suggestion(cand, runbook, r)

    def _unwritten_action(self, cand: Candidate, r: Retrieval) -> str | None:
        """The action section of the runbook when the question asks what to do and every
        part of that section is a stub ("TODO"): the engineer is told, not left to
        wonder why the answer shows no fix."""
        if question_intent(r.question) not in ("act", "procedure", "unspecified"):
            return None
        parts = self._runbooks(cand, r)[0]
        acting = [p for p in parts if "act" in heading_kinds(p.own_path)]
        if not acting or not all(stub(p.body) for p in acting):
            return None
        return plain_heading(acting[0].own_path[-1]) if acting[0].own_path else None

    def _link_definitions(self, part: Part, r: Retrieval) -> dict[str, str]:
        """The ``[label]: url`` definitions of the part's document, for its reference links."""
        parts = self._parts(part.chunk.source_id, part.chunk, r)
        return link_definitions("\n\n".join(p.body for p in parts))

    def _parts(self, source_id: str, chunk: Chunk, r: Retrieval) -> list[Part]:
        chunks = r.snapshot.chunks_by_source.get(source_id, [chunk])
        return self._outline.parts(r.generation, source_id, chunks)

    def _topics(
        self, parts: Sequence[Part], r: Retrieval, *, by_name: bool = False
    ) -> list[tuple[str, list[Part]]] | None:
        """In a file of several runbooks, its runbooks, the one asked about first."""
        return rank_topics(
            parts,
            r.terms,
            r.snapshot.term_stats,
            lambda p: r.snapshot.dense_score(p.chunk.chunk_id, r.vector) or 0.0,
            r.names,
            self._config.sections,
            by_name=by_name,
        )

    def _topic(self, source_id: str, chunk: Chunk, r: Retrieval) -> tuple[str, list[Part]] | None:
        """In a file of several runbooks, the one the question is about: its evidence is
        the answer's, not the whole file's (a file of playbooks by alert name included,
        though its quotes may come from any of them)."""
        ranked = self._topics(self._parts(source_id, chunk, r), r, by_name=True)
        return ranked[0] if ranked else None

    def _rank(
        self, parts: Sequence[Part], r: Retrieval, cand: Candidate | None = None
    ) -> list[ScoredPart]:
        """The parts of one runbook (a whole document, or one runbook of a collection:
        named by its top heading too), best first."""
        naming: frozenset[str] = frozenset()
        if cand is not None:
            paths = [p.heading_path for p in parts]
            shared = paths[0][: shared_depth(paths)] if len(paths) > 1 else ()
            names = document_names(cand.chunk) | {normalize_name(h) for h in shared}
            naming = naming_terms(r.query, names)
        return rank_parts(
            parts,
            r.terms,
            r.snapshot.term_stats,
            lambda p: r.snapshot.dense_score(p.chunk.chunk_id, r.vector) or 0.0,
            question_intent(r.question),
            self._config.sections,
            r.names,
            naming,
            set_aside(r.query),
            detail=asked_detail(r.question),
            what_to_do=asks_what_to_do(r.question),
            seen=seen_fine(r.question),
        )

    def _ranked_parts(self, cand: Candidate, r: Retrieval) -> list[ScoredPart]:
        """The parts of the candidate's runbook, best first; the section the link's #anchor
        points at first, when it names one of the runbook's headings."""
        ranked = self._rank(self._runbooks(cand, r)[0], r, cand)
        return lead_with(ranked, self._anchored(cand, r))

    def _anchored(self, cand: Candidate, r: Retrieval) -> tuple[str, ...] | None:
        """The heading of the candidate's document that the link's #anchor names."""
        if not r.anchor:
            return None
        return anchored_heading(self._parts(cand.doc.source_id, cand.chunk, r), r.anchor)

    def _cite(
        self, cand: Candidate, r: Retrieval, today: date, *, follow: SearchFilter | None = None
    ) -> tuple[Citation, ...]:
        """Quotes of the parts of the candidate's document that answer the question.
        ``follow``: the first quoted part that only points at a shared procedure (see
        :mod:`pointers`) is followed, and the procedure quoted after it, when the filter
        lets the asker read it."""
        intent = question_intent(r.question)
        ranked = self._ranked_parts(cand, r)
        parts = [s.part for s in ranked]
        out: list[Citation] = []
        detail = asked_detail(r.question)
        acting = intent in ("act", "procedure", "unspecified")
        what_to_do = asks_what_to_do(r.question)
        chosen = choose_parts(ranked, intent, self._config.sections, detail, what_to_do)
        if asks_where_to_start(r.question):
            chosen = from_the_first_step(chosen, ranked)
        whole = sorted(self._parts(cand.doc.source_id, cand.chunk, r), key=lambda p: p.start)
        for sp in chosen:
            intro = _introduced_by(sp.part, whole)  # a lead-in is never chosen itself
            if intro is not None:
                out.extend(self._quotes(intro, whole, r, today, acting))
            out.extend(self._quotes(sp.part, parts, r, today, acting))
            linked = None
            if follow is not None:
                linked = self._followed(sp.part, r, follow.groups, intent, detail, what_to_do)
            if linked is not None and any(
                c.part.under(linked[0].heading_path)
                and c.part.chunk.source_id == linked[0].chunk.source_id
                for c in chosen
            ):
                linked = None  # the section pointed at is quoted already
            if linked is not None:
                out.extend(self._quotes(*linked, r, today, acting))
                follow = None  # one procedure followed: the answer stays short
        return tuple(out)

    def _quotes(
        self, part: Part, parts: Sequence[Part], r: Retrieval, today: date, acting: bool
    ) -> list[Citation]:
        out = []
        for q in quote_parts(part, parts, r.terms, r.snapshot.term_stats, acting=acting):
            p = q.part
            line = p.line_of(q.start)
            cited = make_citation(
                p.chunk, q.start, q.end, q.text, line, today, p.section, q.note, q.header
            )
            links = self._runbook_urls(p, q.text, r)
            out.append(cited.model_copy(update={"links": links}) if links else cited)
        return out

    def _runbook_urls(self, part: Part, text: str, r: Retrieval) -> tuple[tuple[str, str], ...]:
        """The quote's links to other runbooks (by file path, site address or reference),
        each with the URL of that runbook at its indexed revision (of the section its
        #anchor names): a site address would not resolve on the code host. Only runbooks
        that whoever may read the quoting one may read too."""
        body = syntax_for(part.chunk.path).as_markdown(text)
        # the document's definitions, read only when the quote may use one
        refs = self._link_definitions(part, r) if REFERENCE_LINK.search(body) else {}
        access = set(part.chunk.metadata.access)
        out: dict[str, str] = {}
        for target, doc, anchor in runbook_links(part, body, r.snapshot.site_pages, refs):
            chunks = r.snapshot.chunks_by_source.get(doc)
            if target.startswith("#") or not chunks or target in out:
                continue
            if not access <= set(chunks[0].metadata.access):
                continue
            parts = self._parts(doc, chunks[0], r)
            heading = anchored_heading(parts, anchor) if anchor else None
            section = next((p for p in parts if p.heading_path == heading), None)
            url = chunk_url(section.chunk) if section else chunk_url(chunks[0], 1)
            if url:
                out[target] = url
        # a reference link ("[the restore][restore]") by its label, in brackets
        for m in REFERENCE_LINK.finditer(body):
            label = ref_key(m["ref"] or m["text"])
            url = out.get(refs.get(label, ""))
            if url is not None:
                out[f"[{label}]"] = url
        return tuple(out.items())

    def _followed(
        self,
        part: Part,
        r: Retrieval,
        groups: tuple[str, ...] | None,
        intent: Intent,
        detail: Detail | None,
        what_to_do: bool,
    ) -> tuple[Part, list[Part]] | None:
        """The part of the shared procedure ``part`` points at to quote (the linked
        #anchor's section, else the one the question asks for) and the procedure's
        parts: None when ``part`` is no pointer, or the procedure is not indexed,
        readable or current. A pointer to a section of its own runbook: that section,
        unless it is ``part`` itself or holds it."""
        refs = self._link_definitions(part, r)
        target = pointed_to(part, r.snapshot.site_pages, refs)
        if target is None:
            return self._followed_within(part, r, refs)
        source_id, anchor = target
        chunks = r.snapshot.chunks_by_source.get(source_id)
        if not chunks:
            return None
        if not readable(chunks[0], groups) or not current(chunks[0]):
            return None
        parts = self._parts(source_id, chunks[0], r)
        heading = anchored_heading(parts, anchor) if anchor else None
        ranked = lead_with(self._rank(parts, r), heading)
        chosen = choose_parts(ranked, intent, self._config.sections, detail, what_to_do)
        return (chosen[0].part, parts) if chosen else None

    def _followed_within(
        self, part: Part, r: Retrieval, refs: Mapping[str, str]
    ) -> tuple[Part, list[Part]] | None:
        """The section of ``part``'s own runbook that its one ``#anchor`` link names
        (``refs``: the runbook's link definitions), or that it names in words."""
        anchor = pointed_within(part, r.snapshot.site_pages, refs)
        parts = self._parts(part.chunk.source_id, part.chunk, r)
        # a pointer by #anchor, or one that names the section in words
        heading = anchored_heading(parts, anchor) if anchor else named_within(part, parts)
        if heading is None:
            return None
        if part.under(heading) or within(heading, part.heading_path):
            return None  # the part itself, or a section that holds it
        target = next((p for p in parts if p.heading_path == heading and p.holds_answer), None)
        return (target, parts) if target is not None else None


def _introduced_by(part: Part, ordered: Sequence[Part]) -> Part | None:
    """The lead-in right before ``part`` that introduces it ("If the pod is running, the
    problem might be with Prometheus. Check the following:"), when ``part`` is its first
    subsection."""
    i = next((i for i, p in enumerate(ordered) if p.start == part.start), None)
    if not i:
        return None
    before = ordered[i - 1]
    return before if lead_in(before, part) else None


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
