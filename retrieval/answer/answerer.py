"""Extractive answers: the best section's exact spans, with citations, warnings and abstention.

No language model is involved: every quote is a slice of the original file,
``original_text[start:end] == quote``. The answerer abstains when the evidence
is weak; the thresholds live in :mod:`retrieval.answer.answer_config`. What one search
found is :mod:`retrieval.answer.retrieved`; the quotes come from :mod:`retrieval.answer.quoting`,
the lower tiers from :mod:`retrieval.answer.not_answered`.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import replace
from datetime import date
from pathlib import PurePosixPath
from typing import Protocol

from core.doc_ids import reference_id
from core.models import (
    AbstainReason,
    Answer,
    AnswerWarning,
    Citation,
    DocumentHits,
    Hit,
    SearchFilter,
    Suggestion,
    normalize_name,
)
from core.redact import redact
from retrieval.answer.answer_config import AnswerConfig
from retrieval.answer.citations import lead_text, search_link
from retrieval.answer.confidence import (
    Evidence,
    everyday_terms,
    gather_evidence,
    without_labels,
)
from retrieval.answer.detail_note import unshown_detail_note
from retrieval.answer.doc_warnings import document_warnings, superseded_note
from retrieval.answer.not_answered import NotAnswered
from retrieval.answer.quoting import Quoter
from retrieval.answer.relevance import product
from retrieval.answer.retrieved import Candidate, Retrieval
from retrieval.answer.runbook_parts import RunbookParts
from retrieval.answer.unwritten import unwritten_action, unwritten_runbook
from retrieval.permissions import readable
from retrieval.reading import (
    Question,
    Reading,
    as_titled,
    as_written,
    asked_tool,
    asks_for_command,
    check_task,
    corrected,
    document_names,
    drop_links,
    inflected_words,
    query_names,
    query_terms,
    spelled_words,
    tokenize,
    unknown_entities,
    with_long_forms,
    written_in_code,
)
from retrieval.search import HybridSearcher, Snapshot, Vectors, group_by_document

RUNBOOK_TYPES = ("runbook", "adr", "doc")
INCIDENT_TYPES = ("incident",)
LEAD_MARGIN = 0.3  # confidence by which a runbook the asker cannot read must beat theirs


class Answerer(Protocol):
    def answer(self, question: str, flt: SearchFilter | None = None) -> Answer: ...


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
        self._inflected = inflected_words(vocabulary)
        self._searcher = searcher
        self._config = config or AnswerConfig()
        self._clock = clock
        self._rewrite = rewrite
        self._dense_query = dense_query
        self._parts = RunbookParts(
            self._config.section_weights(),
            openers=self._config.on("openers"),
            fillers=self._config.on("fillers"),
        )
        self._quoter = Quoter(self._parts, self._config.section_weights())
        self._not_answered = NotAnswered(self._config, self._parts, self._quoter)
        self._model = searcher.embedder.model_name

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
        considered = [
            d
            for d in docs[: self._config.candidates_considered]
            if snap.chunks_by_source.get(d.source_id)
        ]
        closest = {d.source_id: self._closest(d, r) for d in considered}
        # the closest section's vector, for the relevance weighting: one call for all
        vectors = self._searcher.vectors_of(
            [cid for _, cid in closest.values() if cid], r.generation
        )
        return tuple(
            self._candidate(d, r, names, closest[d.source_id], vectors) for d in considered
        )

    @staticmethod
    def _closest(d: DocumentHits, r: Retrieval) -> tuple[float, str]:
        """The document's best dense cosine with the question, and the chunk it is of."""
        scored = [(h.dense_score, h.chunk.chunk_id) for h in d.hits if h.dense_score is not None]
        if not scored:  # keyword-only hits: score them from the dense mirror
            found = (
                (r.snapshot.dense_score(h.chunk.chunk_id, r.vector), h.chunk.chunk_id)
                for h in d.hits
            )
            scored = [(x, cid) for x, cid in found if x is not None]
        return max(scored, default=(0.0, ""))

    def _candidate(
        self,
        d: DocumentHits,
        r: Retrieval,
        names: frozenset[str],
        closest: tuple[float, str],
        vectors: Mapping[str, Vectors],
    ) -> Candidate:
        snap = r.snapshot
        own_names = snap.names_of(d.best.chunk)
        named = bool(names & own_names)
        dense, best = closest
        vector = vectors.get(best)
        weighing = self._config.relevance
        relevance = weighing.read(
            dense,
            product(r.vector, vector)
            if vector is not None and weighing.applies_to(self._model, len(vector))
            else None,
        )
        doc_terms = snap.doc_terms.get(d.source_id, frozenset())
        topic = self._parts.topic(d.source_id, d.best.chunk, r)
        if topic is not None:  # a file of runbooks: the evidence of the one asked about
            heading, members = topic
            doc_terms = frozenset().union(*(p.terms for p in members))
            named = named or normalize_name(heading) in names
            own_names = own_names | {normalize_name(heading)}
        # a name the question gives whole ("cputhrottlinghigh") is the document's, though
        # only its file name spells it; so are the words of its file name
        # ("managedclulster" of managedclulster_condition_unknown.md)
        file_words = frozenset(tokenize(PurePosixPath(d.best.chunk.path).stem))
        asked = frozenset(r.question.terms)
        doc_terms = doc_terms | ((own_names | file_words) & asked)
        evidence = gather_evidence(
            dense=dense,
            terms=r.question.terms,
            doc_terms=doc_terms,
            stats=snap.term_stats,
            everyday=r.question.everyday,
            unknown=r.question.unknown,
            # the question's terms that name a document (only those are looked up)
            names=(asked & snap.document_names) | file_words,
            relevance=relevance,
        ).without(self._config.off)
        confidence = self._config.model.probability(evidence)
        return Candidate(d, confidence, evidence, named, vector)

    def read(self, query: str) -> Reading:
        """``query`` as the runbooks write it: names in their spelling, typos corrected."""
        return self._read(query, self._searcher.snapshot())

    def _read(self, query: str, snap: Snapshot) -> Reading:
        doc_freq = snap.term_stats.doc_freq
        on = self._config.on
        titled: tuple[tuple[str, str], ...] = ()
        if on("titled-names"):
            # an alert name no runbook writes that a runbook's title spells in words
            query, titled = as_titled(
                query,
                lambda name: doc_freq.get(name, 0) > 0 or name in snap.document_names,
                lambda: snap.titles,
            )
        if on("written-names"):
            # a runbook's name typed in other case, as written: "kubepodcrashlooping"
            query = as_written(query, doc_freq, lambda: snap.written_names, snap.document_names)
        if on("spelling"):
            # typos read as the word they stand for: "conection" -> "connection"
            reading = corrected(
                query,
                doc_freq,
                self._vocabulary,
                lambda: snap.words,
                self._spelled,
                self._inflected,
            )
        else:
            reading = Reading(text=query)
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
            vector = self._embed(query)
        names = query_names(query, doc_freq, snap.term_stats.n_docs) | reading.named
        whole = normalize_name(query)
        if whole in snap.document_names:  # the question is a runbook's title, as written
            names = names | {whole}
        if flt is not None and flt.anchor:
            names = names | {normalize_name(flt.anchor)}
        pinned = flt.sources if flt is not None else None
        base = (flt or SearchFilter()).model_copy(update={"sources": None})

        def search(types: tuple[str, ...]) -> list[DocumentHits]:
            f = base.model_copy(
                update={
                    "doc_types": types
                    if base.doc_types is None
                    else tuple(t for t in base.doc_types if t in types)
                }
            )
            hits = self._searcher.search_chunks(query, f, vector, generation)
            return self._searcher.group(query, hits, reading.named)

        runbooks = search(RUNBOOK_TYPES)
        # an index without incident write-ups has none to search for
        written_up = any(t in snap.doc_types for t in INCIDENT_TYPES)
        incidents = search(INCIDENT_TYPES) if written_up else []
        asked = Question(
            text=question,
            query=query,
            terms=tuple(query_terms(self._long_forms(query, snap))),
            # shorthand the runbooks write in full ("crashlooping": CrashLoopBackOff)
            # names nothing unknown
            unknown=tuple(
                unknown_entities(
                    self._long_forms(without_labels(query), snap),
                    doc_freq,
                    self._vocabulary,
                    snap.document_names,
                )
            ),
            everyday=everyday_terms(query, doc_freq, self._vocabulary)
            if self._config.on("everyday-words")
            else frozenset(),
            names=names,
            anchor=flt.anchor if flt is not None else None,
            read_as=reading.read_as,
            not_tools=self._not_tools(question, snap),
        )
        r = Retrieval(
            question=asked,
            generation=generation,
            vector=vector,
            snapshot=snap,
            runbooks=(),
            incidents=(),
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

    def _not_tools(self, question: str, snap: Snapshot) -> frozenset[str]:
        """The word the question puts before "command" when it names no tool here: an
        ordinary word ("migration", "first") that no runbook's code writes. A tool's name
        the code never writes either ("amtool") stays a tool: no runbook shows its
        command."""
        tool = asked_tool(question) if asks_for_command(question) else None
        if tool is None or tool not in self._vocabulary:
            return frozenset()
        return frozenset() if written_in_code(tool, snap.code) else frozenset({tool})

    def _long_forms(self, text: str, snap: Snapshot) -> str:
        """``text`` with the runbooks' long forms of its shorthand, unless switched off."""
        if not self._config.on("long-forms"):
            return text
        return with_long_forms(text, snap.uses)

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
            r.question.text, SearchFilter(groups=groups), r.vector, r.generation
        )
        own = [h for h in hits if h.chunk.source_id == sid]
        if not own:
            return None
        found = self._candidates(group_by_document(own)[:1], r, frozenset())
        return found[0] if found else None

    @staticmethod
    def _superseded_by(chosen: Candidate, r: Retrieval) -> Candidate | None:
        """A superseded document, more confident than ``chosen``, that names ``chosen`` as
        its successor: the answer quotes the current runbook and says the older one the
        question matched better is superseded."""
        for c in r.runbooks:
            target = c.chunk.metadata.superseded_by
            if c.active or not target or c.confidence <= chosen.confidence:
                continue
            if reference_id(target, c.doc.source_id, any_path=True) == chosen.doc.source_id:
                return c
        return None

    def lead(self, r: Retrieval) -> Candidate | None:
        """The document the answer comes from, if any answers: the one the question names
        outright (its file name, title or alert), else the best-ranked one."""
        # A page of links (a service index) is not an answer: the runbooks it lists are.
        answers = [c for c in r.runbooks if not r.snapshot.is_link_page(c.doc.source_id)] or list(
            r.runbooks
        )
        # The best-ranked one. (Letting the second lead when it is far more confident,
        # by 0.1, moved 18 questions right and 11 wrong over twenty-six sets, noise, and
        # no question of a sealed pair: docs/quality.md.)
        lead = answers[0] if answers else None
        named = next((c for c in answers if c.named), None)
        if lead is not None and not lead.named and named is not None:
            # the runbook the question names outright, not one that links to it by name
            return named
        return lead

    def answer_from(self, r: Retrieval, flt: SearchFilter | None) -> Answer:
        answer = self._compose(r, flt)
        return (
            answer.model_copy(update={"read_as": r.question.read_as})
            if r.question.read_as
            else answer
        )

    def _compose(self, r: Retrieval, flt: SearchFilter | None) -> Answer:
        cfg = self._config
        model = cfg.model
        today = self._clock()
        link = search_link(cfg.search_link_template, redact(r.question.text))
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
                older = self._superseded_by(chosen, r)
                if older is not None:
                    warnings.append(superseded_note(older.chunk, chosen.chunk))
            else:
                chosen = next((c for c in confident if c.active), None) or self._successor(
                    top, r, flt
                )
                if chosen is not None:
                    warnings.append(superseded_note(top.chunk, chosen.chunk))
        # A question about what happened ("what caused the outage in september") is
        # answered from the incident write-up; any other from the runbook, with the
        # write-ups listed as related.
        if confident_incidents and not pinned and (chosen is None or r.question.about_past):
            chosen = confident_incidents[0]

        if chosen is None:
            return self._declined(r, flt, confident, warnings, link, today)

        if (
            not pinned
            and chosen.confidence + LEAD_MARGIN <= 1.0
            and self._hidden_answer(r, flt, above=chosen.confidence + LEAD_MARGIN)
        ):
            # a runbook the asker cannot read answers far better than the readable one:
            # say so rather than quote the weaker runbook as if it answered
            return self._not_answered.answer(r, [], warnings, link, today, lambda: True)
        unwritten = unwritten_runbook(self._parts, chosen, r)
        if unwritten is not None:
            # the runbook asked about is only "TODO": say so, never quote another one
            return self._not_answered.unwritten(r, chosen, unwritten, warnings, link)
        citations = self._quoter.cite(chosen, r, today, follow=flt or SearchFilter())
        checked, missing = self._checked(chosen, r, citations)
        confidence = model.probability(checked)
        if not pinned and confidence < model.answer_at:
            # the quotes leave the question's detail or task undone ("whats the cmd to …"
            # answered with prose alone, "how do i cancel the stuck run" from a runbook
            # that never speaks of cancelling): weighed with the rest of the evidence, it
            # falls below the bar; offer the closest runbooks, saying what is missing
            return self._declined(r, flt, [], warnings, link, today, missing, confidence)
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
        unwritten_section = unwritten_action(self._parts, chosen, r)
        if unwritten_section is not None:
            warnings.append(
                AnswerWarning(
                    kind="unwritten-section",
                    message=f"This runbook's {unwritten_section} section is not written yet.",
                    source_id=chosen.chunk.source_id,
                )
            )
        # answered on the rest of the evidence, the command or value asked for unquoted
        note = unshown_detail_note(missing)
        if note is not None:
            warnings.append(note)
        related = tuple(
            self._quoter.cite(c, r, today)[0]
            for c in confident_incidents[: cfg.max_related]
            if c.doc.source_id != chosen.doc.source_id
        )
        section = citations[0].section if citations else chosen.chunk.section
        text = lead_text(chosen.chunk, section)
        sure = pinned or confidence >= model.sure_at
        quoted = frozenset(c.source_id for c in citations)
        return Answer(
            state="answer",
            text=text,
            question=r.question.text,
            citations=citations,
            related=related,
            warnings=tuple(warnings),
            search_link=link,
            generation=r.generation,
            confidence=round(confidence, 4),
            sure=sure,
            suggestions=() if sure else self._not_answered.alternatives(r, quoted),
        )

    def _checked(
        self, chosen: Candidate, r: Retrieval, citations: Sequence[Citation]
    ) -> tuple[Evidence, AbstainReason | None]:
        """The chosen document's evidence with the answer's checks read from its quotes
        (the detail asked for shown, the task asked for spoken of, steps given), and the
        reason to give if they take it below the bar: the first check it fails."""
        detail = r.question.detail
        quotes = [c.quote for c in citations]
        placed = [f"{c.title}\n{c.section}\n{c.quote}" for c in citations]
        task = check_task(r.question.text, quotes, placed)
        unshown = detail is not None and not any(
            detail.shown_in(c.path, c.quote) for c in citations
        )
        checked = replace(
            chosen.evidence,
            detail_missing=float(unshown),
            task_missing=float(task.task_missing),
            steps_missing=float(task.steps_missing),
        ).without(self._config.off)
        reason: AbstainReason | None = None
        if checked.detail_missing and detail is not None:
            reason = detail.missing
        elif checked.task_missing or checked.steps_missing:
            reason = "no-steps"
        return checked, reason

    def _embed(self, text: str) -> Vectors:
        """``text`` embedded as a query: by the injected query encoder, else the index's."""
        embed = self._dense_query or self._searcher.embedder.embed_query
        return embed(text)

    def judge(self, r: Retrieval) -> Evidence | None:
        """The evidence the answer to ``r`` is decided on: its lead document's, with the
        checks its quotes pass or fail (for fitting the confidence model)."""
        lead = self.lead(r)
        if lead is None:
            return None
        citations = self._quoter.cite(lead, r, self._clock())
        return self._checked(lead, r, citations)[0]

    def _declined(
        self,
        r: Retrieval,
        flt: SearchFilter | None,
        confident: Sequence[Candidate],
        warnings: list[AnswerWarning],
        link: str | None,
        today: date,
        missing: AbstainReason | None = None,
        checked: float | None = None,
    ) -> Answer:
        """Not answered: "not sure", or why not (a runbook the asker cannot read may
        answer; only superseded documents do; the detail asked for is not shown).
        ``checked``: the lead's confidence after its quotes' checks, when they declined it."""

        def hidden() -> bool:
            return self._hidden_answer(r, flt)

        return self._not_answered.answer(
            r, confident, warnings, link, today, hidden, missing=missing, checked=checked
        )

    def _hidden_answer(self, r: Retrieval, flt: SearchFilter | None, *, above: float = 0.0) -> bool:
        """Would a document the asker cannot read answer with confidence (at least
        ``above``)?"""
        if flt is None or flt.groups is None:
            return False
        if all(set(flt.groups) & set(access) for access in r.snapshot.access_lists):
            return False  # the asker may read every document: none is hidden
        wider = self.retrieve(r.question.text, flt.model_copy(update={"groups": None}), r.vector)
        lead = wider.runbooks[0] if wider.runbooks else None
        return (
            lead is not None
            and lead.active
            and (flt.sources is not None or lead.confidence >= self._config.model.answer_at)
            and lead.confidence >= above
            and not readable(lead.chunk, flt.groups)
        )

    def suggest(self, r: Retrieval) -> tuple[Suggestion, ...]:
        """The closest runbooks, each linked to its best-matching part."""
        return self._not_answered.suggest(r)
