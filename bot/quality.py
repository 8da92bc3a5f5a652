"""Answer quality over question sets: one evaluation run, and leave-one-corpus-out.

``evaluate`` is what ``runbook-bot eval`` runs: ranking, abstention, the quoted
sections and verbatim quotes for every question. ``leave_one_out`` fits the
confidence model on every question set but one and scores the one held out:
the numbers that predict how the bot does on a team's runbooks it has never
seen. ``make quality`` runs both over every corpus in ``../shared/corpora`` and
the sample runbooks (``scripts/quality.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from bot.runtime import Runtime
from bot.settings import load_settings
from core.models import Answer, Citation, SearchFilter
from retrieval.answer_config import AnswerConfig
from retrieval.answerer import ExtractiveAnswerer
from retrieval.calibration import Sample, fit
from retrieval.confidence import ConfidenceModel
from retrieval.embeddings import FastEmbedder
from retrieval.evaluation import (
    CitedSpan,
    Metrics,
    Outcome,
    Question,
    compute,
    judge_sections,
    load_questions,
)

QUESTIONS_FILE = "eval.jsonl"


@dataclass(frozen=True)
class QuestionSet:
    name: str
    root: Path  # the folder that is ingested
    questions: Path


def discover(corpora: Path) -> list[QuestionSet]:
    """Every folder of ``corpora`` that holds an ``eval.jsonl``."""
    if not corpora.is_dir():
        return []
    return [
        QuestionSet(d.name, d, d / QUESTIONS_FILE)
        for d in sorted(corpora.iterdir())
        if (d / QUESTIONS_FILE).is_file()
    ]


def repository_sets(root: Path) -> list[QuestionSet]:
    """The question sets this repository carries: the extra corpora under
    ``tests/fixtures/corpora`` (real public runbooks with questions written for them) and
    the sample runbooks with ``tests/fixtures/sample_questions.jsonl``."""
    fixtures = root / "tests" / "fixtures"
    samples = QuestionSet("sample-runbooks", root / "runbooks", fixtures / "sample_questions.jsonl")
    return [*discover(fixtures / "corpora"), samples]


def read_source(path: str, roots: Sequence[Path]) -> str | None:
    """The original text of an ingested file, looked up under ``roots``."""
    for root in roots:
        candidate = root / path
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    return None


def quote_is_verbatim(c: Citation, roots: Sequence[Path]) -> bool:
    """Does the quoted span equal the original file's text at its offsets?"""
    text = read_source(c.path, roots)
    return text is not None and text[c.start : c.end] == c.quote


def evaluate(
    rt: Runtime,
    questions: Sequence[Question],
    roots: Sequence[Path],
    *,
    k: int = 10,
    flt: SearchFilter | None = None,
    answerer: ExtractiveAnswerer | None = None,
    out: IO[str] | None = None,
) -> list[Outcome]:
    """Answer every question as the bot would; one JSON line per question to ``out``."""
    extractive = answerer or rt.extractive
    titles = {c[0].path: c[0].title for c in rt.searcher.snapshot().chunks_by_source.values() if c}
    outcomes = []
    for q in questions:
        retrieval = extractive.retrieve(q.q, flt)
        docs = rt.searcher.search(q.q, k, flt, dense_vector=retrieval.vector)
        ranked = tuple(d.path for d in docs)
        answer: Answer
        if answerer is None and rt.llm_client is not None:
            answer = rt.answerer.answer(q.q, flt)
        else:
            answer = extractive.answer_from(retrieval, flt)
        answered = answer.state == "answer" and bool(answer.citations)
        verbatim = all(quote_is_verbatim(c, roots) for c in answer.citations) if answered else None
        cited = tuple(CitedSpan(c.path, c.section, c.start, c.end) for c in answer.citations)
        expected = {path: read_source(path, roots) for path in q.expect or ()}
        section_hit, lead_hit = judge_sections(q, cited, expected, titles)
        outcomes.append(Outcome(q, ranked, answered, verbatim, cited, section_hit, lead_hit))
        if out is not None:
            row = {
                "id": q.id,
                "ranked": list(ranked),
                "answered": answered,
                "state": answer.state,
                "reason": answer.reason,
                "cited": [[c.path, c.section, c.start, c.end] for c in cited],
                "section_hit": section_hit,
                "lead_hit": lead_hit,
            }
            out.write(json.dumps(row) + "\n")
    return outcomes


def samples(rt: Runtime, questions: Sequence[Question]) -> list[Sample]:
    """The lead document's evidence for every labelled question."""
    always = replace(rt.answer_config.model, answer_at=0.0, suggest_at=0.0)
    unconditional = with_model(rt, always)
    out = []
    for q in questions:
        if q.answerable is None:
            continue
        r = rt.extractive.retrieve(q.q)
        lead = rt.extractive.lead(r)
        if lead is None or lead.evidence is None:
            continue
        top3 = {c.doc.path for c in r.runbooks[:3]}
        # what the answer would be at any confidence: declined anyway?
        vetoed = unconditional.answer_from(r, None).state != "answer"
        out.append(
            Sample(
                evidence=lead.evidence,
                answerable=bool(q.answerable),
                trap=bool(q.trap),
                expected_in_top3=bool(q.expect and top3 & set(q.expect)),
                vetoed=vetoed,
            )
        )
    return out


@dataclass(frozen=True)
class Prepared:
    qset: QuestionSet
    runtime: Runtime
    questions: list[Question]
    samples: list[Sample]


def prepare(
    qset: QuestionSet, data_root: Path, embedder: FastEmbedder, log: Callable[[str], None]
) -> Prepared:
    """Ingest the set's folder (incrementally) into its own data dir."""
    settings = load_settings(data_dir=data_root / qset.name)
    rt = Runtime(settings, embedder=embedder)
    report = rt.ingest(qset.root)
    log(f"{qset.name}: {report.summary()}")
    questions = load_questions(qset.questions)
    return Prepared(qset, rt, questions, samples(rt, questions))


def with_model(rt: Runtime, model: ConfidenceModel) -> ExtractiveAnswerer:
    """The runtime's extractive answerer with another confidence model."""
    base = rt.extractive
    config: AnswerConfig = replace(rt.answer_config, model=model)
    return base.with_config(config)


@dataclass(frozen=True)
class HeldOut:
    name: str
    model: ConfidenceModel
    metrics: Metrics


def leave_one_out(prepared: Sequence[Prepared]) -> list[HeldOut]:
    """For each set: fit on all the others, score it."""
    out = []
    for held in prepared:
        training = {p.qset.name: p.samples for p in prepared if p is not held}
        model = fit(training)
        answerer = with_model(held.runtime, model)
        outcomes = evaluate(held.runtime, held.questions, [held.qset.root], answerer=answerer)
        out.append(HeldOut(held.qset.name, model, compute(outcomes)))
    return out


def in_sample(prepared: Sequence[Prepared]) -> tuple[ConfidenceModel, list[HeldOut]]:
    """The model fitted on every set, scored on each (the shipped calibration)."""
    model = fit({p.qset.name: p.samples for p in prepared})
    scored = []
    for p in prepared:
        answerer = with_model(p.runtime, model)
        outcomes = evaluate(p.runtime, p.questions, [p.qset.root], answerer=answerer)
        scored.append(HeldOut(p.qset.name, model, compute(outcomes)))
    return model, scored


def table(rows: Sequence[HeldOut]) -> list[str]:
    """A Markdown table of the measures the README reports."""
    head = (
        "| question set | recall@5 | MRR@10 | section_hit | lead_hit | abstention F1 "
        "| traps answered | answerable declined | quotes verbatim |"
    )
    lines = [head, "|" + " --- |" * 9]
    for r in rows:
        m = r.metrics
        verbatim = f"{m.answered_verbatim:.0%}" if m.answered_verbatim is not None else "-"
        lines.append(
            f"| {r.name} | {m.recall_at_5:.3f} | {m.mrr_at_10:.3f} | {m.section_hit:.3f} "
            f"| {m.lead_hit:.3f} | {m.abstain_f1:.3f} | {m.traps_answered}/{m.traps_total} "
            f"| {m.answerable_declined}/{m.n_answerable} | {verbatim} |"
        )
    return lines
