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
import math
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from bot.runtime import Runtime
from bot.settings import load_settings
from core.models import Answer, Citation, SearchFilter
from ingest.sync import IngestReport
from retrieval.answer import (
    AnswerConfig,
    CitedSpan,
    ConfidenceModel,
    ExtractiveAnswerer,
    Metrics,
    Outcome,
    Pair,
    Question,
    Relevance,
    RelevanceFit,
    RunbookSections,
    Sample,
    SectionWeights,
    compute,
    fit,
    judge_sections,
    load_questions,
    product,
    signal,
)
from retrieval.reading import AskContext
from retrieval.search import FastEmbedder

QUESTIONS_FILE = "eval.jsonl"
# a question set's own description and its copied licence, next to its runbooks: never
# indexed as one
SET_FILES = ("MANIFEST.md", "LICENSE.md")
# the sets no hand-written rule was written from (bot/quality_sets.toml): they judge the rules
UNSEEN_BY_RULES = frozenset(
    tomllib.loads((Path(__file__).parent / "quality_sets.toml").read_text(encoding="utf-8"))[
        "unseen_by_rules"
    ]
)


class LineSink(Protocol):
    """Where :func:`evaluate` writes its JSON lines: a text file, or :class:`Labelled`."""

    def write(self, text: str, /) -> int: ...


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
    """The original text of an ingested file, looked up under ``roots``, decoded as
    ingest decodes it: line endings as written (a file with CRLF endings keeps them, so
    the quotes' offsets are the file's own)."""
    for root in roots:
        candidate = root / path
        if candidate.is_file():
            return candidate.read_bytes().decode("utf-8")
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
    out: LineSink | None = None,
) -> list[Outcome]:
    """Answer every question as the bot would (what leads decided as on every surface:
    :mod:`retrieval.reading.leading`); one JSON line per question to ``out``."""
    extractive = answerer or rt.extractive
    sections = RunbookSections(rt.searcher.snapshot)
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
        answer = sections.lead(answer, q.q, AskContext())
        answered = answer.state == "answer" and bool(answer.citations)
        verbatim = all(quote_is_verbatim(c, roots) for c in answer.citations) if answered else None
        cited = tuple(CitedSpan(c.path, c.section, c.start, c.end) for c in answer.citations)
        expected = {path: read_source(path, roots) for path in q.expect or ()}
        section_hit, lead_hit = judge_sections(q, cited, expected, titles)
        named = tuple(s.path for s in answer.suggestions) if answered else ()
        outcomes.append(
            Outcome(q, ranked, answered, verbatim, cited, section_hit, lead_hit, answer.sure, named)
        )
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
                "confidence": answer.confidence,
                "sure": answer.sure,
                "suggested": [s.path for s in answer.suggestions],
                "text": answer.text,
            }
            out.write(json.dumps(row) + "\n")
    return outcomes


def samples(
    rt: Runtime, questions: Sequence[Question], off: frozenset[str] = frozenset()
) -> list[Sample]:
    """The evidence the answer is decided on, for every labelled question: its lead
    document's, with the checks its quotes pass (signals ``off`` switched off)."""
    always = replace(rt.answer_config.model, answer_at=0.0, suggest_at=0.0)
    unconditional = with_model(rt, always, off)
    extractive = with_model(rt, rt.answer_config.model, off)
    out = []
    for q in questions:
        if q.answerable is None:
            continue
        r = extractive.retrieve(q.q)
        evidence = extractive.judge(r)
        if evidence is None:
            continue
        top3 = {c.doc.path for c in r.runbooks[:3]}
        # what the answer would be at any confidence: declined anyway?
        vetoed = unconditional.answer_from(r, None).state != "answer"
        lead = extractive.lead(r)
        out.append(
            Sample(
                evidence=evidence,
                answerable=bool(q.answerable),
                trap=bool(q.trap),
                expected_in_top3=bool(q.expect and top3 & set(q.expect)),
                vetoed=vetoed,
                product=(
                    product(r.vector, lead.vector)
                    if lead is not None and lead.vector is not None
                    else None
                ),
            )
        )
    return out


def relevance_fit(sets: Mapping[str, Sequence[Sample]], model: str) -> RelevanceFit:
    """The relevance weighting, ready to fit on any of ``sets`` (by name)."""
    return RelevanceFit(
        {
            name: [
                Pair(s.product, s.evidence.dense, s.answerable)
                for s in samples
                if s.product is not None
            ]
            for name, samples in sets.items()
        },
        model,
    )


def rescored(
    samples: Sequence[Sample], relevance: Relevance, off: frozenset[str] = frozenset()
) -> list[Sample]:
    """``samples`` with their relevance read by ``relevance`` (as the answerer would)."""
    if "relevance" in off:
        return list(samples)
    return [
        replace(
            s,
            evidence=replace(s.evidence, relevance=relevance.read(s.evidence.dense, s.product)),
        )
        for s in samples
    ]


def refit(
    sets: Mapping[str, Sequence[Sample]],
    model_name: str,
    off: frozenset[str] = frozenset(),
    left_out: str | None = None,
) -> tuple[ConfidenceModel, Relevance]:
    """The relevance weighting and the confidence model fitted on every set of ``sets`` but
    ``left_out``. Each set's relevance is read by the weighting fitted without it, as a
    team's runbooks are read by one fitted on others', so the model learns how far to
    trust it on a corpus it has not seen."""
    weighting = relevance_fit(sets, model_name)
    out = () if left_out is None else (left_out,)
    training = {
        name: rescored(samples, weighting.without({name, *out}), off)
        for name, samples in sets.items()
        if name not in out
    }
    return fit(training), weighting.without(out)


@dataclass(frozen=True)
class Prepared:
    qset: QuestionSet
    runtime: Runtime
    questions: list[Question]
    samples: list[Sample]


def ingest_set(rt: Runtime, root: Path) -> IngestReport:
    """Sync a question set's folder into ``rt``'s index, leaving out the files that
    describe the set (its provenance, its questions) rather than runbooks of the corpus."""
    return rt.ingest(root, rt.ingest_options(excludes=SET_FILES))


def prepare(
    qset: QuestionSet, data_root: Path, embedder: FastEmbedder, log: Callable[[str], None]
) -> Prepared:
    """Ingest the set's folder (incrementally) into its own data dir."""
    settings = load_settings(data_dir=data_root / qset.name)
    rt = Runtime(settings, embedder=embedder)
    report = ingest_set(rt, qset.root)
    log(f"{qset.name}: {report.summary()}")
    questions = load_questions(qset.questions)
    return Prepared(qset, rt, questions, samples(rt, questions))


def with_model(
    rt: Runtime,
    model: ConfidenceModel,
    off: frozenset[str] = frozenset(),
    relevance: Relevance | None = None,
) -> ExtractiveAnswerer:
    """The runtime's extractive answerer with another confidence model (and relevance
    weighting, and the signals ``off`` switched off)."""
    base = rt.extractive
    config: AnswerConfig = replace(
        rt.answer_config,
        model=model,
        off=off,
        relevance=relevance or rt.answer_config.relevance,
    )
    return base.with_config(config)


class Labelled:
    """A sink for :func:`evaluate`'s JSON lines that puts the run and the question set in
    front of each row's fields."""

    def __init__(self, out: LineSink, run: str, qset: str) -> None:
        self.out, self.run, self.qset = out, run, qset

    def write(self, line: str) -> int:
        row = {"run": self.run, "set": self.qset, **json.loads(line)}
        return self.out.write(json.dumps(row) + "\n")


def points(o: Outcome) -> int:
    """What one question gets right (0 to 3): answered when a runbook answers it or
    declined when none does, the right section quoted, the right section leading."""
    decided = o.question.answerable is not None and o.answered == o.question.answerable
    return int(decided) + int(bool(o.section_hit)) + int(bool(o.lead_hit))


@dataclass(frozen=True)
class HeldOut:
    name: str
    model: ConfidenceModel
    metrics: Metrics
    points: Mapping[str, int] = field(default_factory=dict)  # question id -> points()


def held_out(name: str, model: ConfidenceModel, outcomes: Sequence[Outcome]) -> HeldOut:
    """A set's scores under ``model``: its measures and each question's points."""
    return HeldOut(name, model, compute(outcomes), {o.question.id: points(o) for o in outcomes})


def leave_one_out(
    prepared: Sequence[Prepared],
    off: frozenset[str] = frozenset(),
    fitted: Mapping[str, Sequence[Sample]] | None = None,
    rows: LineSink | None = None,
) -> list[HeldOut]:
    """For each set: fit on all the others, score it. ``off``: signals switched off, with
    ``fitted`` the samples gathered so (by set name); else each set's own. ``rows``: one
    JSON line per question (:func:`evaluate`), each a ``held out`` row of its set."""
    out = []
    sets = {
        p.qset.name: (fitted[p.qset.name] if fitted is not None else p.samples) for p in prepared
    }
    embedding = prepared[0].runtime.embedder.model_name if prepared else ""
    for held in prepared:
        model, relevance = refit(sets, embedding, off, left_out=held.qset.name)
        answerer = with_model(held.runtime, model, off, relevance)
        sink = Labelled(rows, "held out", held.qset.name) if rows is not None else None
        outcomes = evaluate(
            held.runtime, held.questions, [held.qset.root], answerer=answerer, out=sink
        )
        out.append(held_out(held.qset.name, model, outcomes))
    return out


def fitted_on_all(prepared: Sequence[Prepared]) -> tuple[ConfidenceModel, Relevance]:
    """The confidence model and relevance weighting fitted on every set (what ships)."""
    embedding = prepared[0].runtime.embedder.model_name if prepared else ""
    return refit({p.qset.name: p.samples for p in prepared}, embedding)


def in_sample(
    prepared: Sequence[Prepared], rows: LineSink | None = None
) -> tuple[ConfidenceModel, Relevance, list[HeldOut]]:
    """The model fitted on every set, scored on each (the shipped calibration); ``rows``:
    one JSON line per question, each an ``in sample`` row of its set."""
    model, relevance = fitted_on_all(prepared)
    scored = []
    for p in prepared:
        answerer = with_model(p.runtime, model, relevance=relevance)
        sink = Labelled(rows, "in sample", p.qset.name) if rows is not None else None
        outcomes = evaluate(p.runtime, p.questions, [p.qset.root], answerer=answerer, out=sink)
        scored.append(held_out(p.qset.name, model, outcomes))
    return model, relevance, scored


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


def totals(rows: Sequence[HeldOut]) -> str:
    """The sets' means and sums, in one line under their table."""
    ms = [r.metrics for r in rows]
    if not ms:
        return ""

    def mean(attr: str) -> float:
        return sum(getattr(m, attr) for m in ms) / len(ms)

    def total(attr: str) -> int:
        return sum(int(getattr(m, attr)) for m in ms)

    return (
        f"Means: abstention F1 {mean('abstain_f1'):.3f}, section_hit {mean('section_hit'):.3f}, "
        f"lead_hit {mean('lead_hit'):.3f}, recall@5 {mean('recall_at_5'):.3f}; traps answered "
        f"{total('traps_answered')}/{total('traps_total')}, answerable declined "
        f"{total('answerable_declined')}/{total('n_answerable')}; best guesses "
        f"{total('guesses')}: {total('guesses_elsewhere')} quote another runbook, "
        f"{total('guesses_named_right')} of those name the right one."
    )


def sign_test(wins: int, losses: int) -> float:
    """One-sided sign test: the chance of at least ``wins`` of ``wins + losses`` changed
    questions going one way when a change is as likely to go either way."""
    n = wins + losses
    if n == 0:
        return 1.0
    return sum(math.comb(n, k) for k in range(wins, n + 1)) / 2**n


@dataclass(frozen=True)
class Ablation:
    """One signal switched off: each held-out set's scores without it, beside with it."""

    signal: str
    without: Mapping[str, Metrics]
    points: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # set -> id -> pts

    def change(self, name: str, base: Metrics) -> tuple[float, float, float]:
        """(abstention F1, section_hit, lead_hit) without the signal, less with it."""
        m = self.without[name]
        return (
            m.abstain_f1 - base.abstain_f1,
            m.section_hit - base.section_hit,
            m.lead_hit - base.lead_hit,
        )

    def questions(self, base: HeldOut) -> int:
        """Questions the signal wins on that set (lost without it): answered or declined
        rightly, the right section quoted, the right section leading; negative when the
        set does better without it."""
        return sum(base.points.values()) - sum(self.points.get(base.name, {}).values())

    def moved(self, base: Sequence[HeldOut], only: frozenset[str] | None = None) -> tuple[int, int]:
        """Over every set (or those named in ``only``), the questions that do better with
        the signal and those that do better without it (each question counted once,
        whatever it gains)."""
        wins = losses = 0
        for b in base:
            if only is not None and b.name not in only:
                continue
            without = self.points.get(b.name, {})
            for qid, pts in b.points.items():
                other = without.get(qid, pts)
                wins += pts > other
                losses += pts < other
        return wins, losses


def ablate(
    prepared: Sequence[Prepared], signals: Sequence[str], log: Callable[[str], None]
) -> list[Ablation]:
    """Leave-one-corpus-out with each of ``signals`` switched off in turn, the confidence
    model refitted without it; ``a+b`` switches a group off at once (signals that stand
    in for each other show their worth only together)."""
    out = []
    for name in signals:
        off = frozenset(name.split("+"))  # "dense+coverage": switched off together
        fitted = {p.qset.name: samples(p.runtime, p.questions, off) for p in prepared}
        held = leave_one_out(prepared, off, fitted)
        out.append(
            Ablation(name, {h.name: h.metrics for h in held}, {h.name: h.points for h in held})
        )
        log(f"ablated {name}")
    return out


SIGNIFICANT = 0.05  # a sign test's one-sided p below this is more than a refit's noise


def verdict(sets_won: int, wins: int, losses: int) -> str:
    """What the ablation says of a signal. ``helps``: it wins on at least two sets and
    the questions it changes go its way more than chance would (sign test); ``harms``:
    they go against it more than chance would; ``noise``: neither, it wins no more than
    a refit moves; ``one set``: it wins on fewer than two sets."""
    if sign_test(losses, wins) < SIGNIFICANT:
        return "harms"
    if sets_won < 2:
        return "one set"
    return "helps" if sign_test(wins, losses) < SIGNIFICANT else "noise"


def keeps(name: str, said: str, moved: tuple[int, int], unseen: tuple[int, int] | None) -> bool:
    """Does the signal (or group, ``a+b``) keep its place, by its :func:`verdict` and the
    questions it moves (wins, losses) over every set and over the sets no rule was
    written from? A hand-written rule while it wins on at least two sets and more
    questions than it loses over every set (a single set's loss of two or three is a
    refit's noise, the total is not), and on the unseen sets (``None`` when none was
    scored) wins some and no fewer than it loses: what it wins only on the sets it was
    written from, it was fitted to. A signal read from the corpus itself stays unless it
    harms."""
    if any(signal(n).written for n in name.split("+")):
        wins, losses = moved
        # on the unseen sets it must win something and lose no more than it wins: a tie
        # there is a refit's noise, not a sign it was fitted (taking out the command and
        # value check on such a tie, 12 won and 12 lost, cost three traps on a sealed pair)
        fresh = unseen is None or (unseen[0] >= unseen[1] and unseen[0] > 0)
        return said in ("helps", "noise") and wins > losses and fresh
    return said != "harms"


def ablation_table(
    base: Sequence[HeldOut],
    ablations: Sequence[Ablation],
    unseen: frozenset[str] = UNSEEN_BY_RULES,
) -> list[str]:
    """Per signal and set: the change in abstention F1 / section_hit / lead_hit when it is
    switched off and the questions it wins there; over all sets, the questions it moves
    each way, the sign test's p that it helps, the questions it moves each way on the
    ``unseen`` sets (no rule written from them), the verdict (:func:`verdict`) and
    whether it keeps its place (:func:`keeps`)."""
    names = [b.name for b in base]
    by_name = {b.name: b for b in base}
    scored = unseen & set(names)
    head = (
        "| signal | " + " | ".join(names) + " | sets won | sets lost | questions won "
        "| questions lost | p | unseen won | unseen lost | verdict | keep |"
    )
    lines = [head, "|" + " --- |" * (len(names) + 10)]
    for a in ablations:
        cells = []
        won = lost = 0
        for n in names:
            f1, sh, lh = a.change(n, by_name[n].metrics)
            q = a.questions(by_name[n])
            won += q > 0
            lost += q < 0
            cells.append(f"{f1:+.2f} / {sh:+.2f} / {lh:+.2f} ({q:+d})")
        wins, losses = a.moved(base)
        fresh = a.moved(base, frozenset(scored)) if scored else None
        said = verdict(won, wins, losses)
        keep = "yes" if keeps(a.signal, said, (wins, losses), fresh) else "no"
        seen_cells = f"{fresh[0]} | {fresh[1]}" if fresh is not None else "- | -"
        lines.append(
            f"| {a.signal} | " + " | ".join(cells) + f" | {won} | {lost} | {wins} | {losses} "
            f"| {sign_test(wins, losses):.3f} | {seen_cells} | {said} | {keep} |"
        )
    return lines


@dataclass(frozen=True)
class SectionChoice:
    """Where one set of section weights leads on a set's questions that name a section:
    questions judged, and how many have the expected section quoted / quoted first."""

    judged: int
    section: int
    lead: int

    def rate(self) -> float:
        """The mean of the section and lead shares."""
        return (self.section + self.lead) / (2 * self.judged) if self.judged else 0.0


def section_choices(
    p: Prepared, weights: Sequence[SectionWeights], log: Callable[[str], None]
) -> list[SectionChoice]:
    """For each of ``weights``: how the set's answerable questions that name a section
    are led, every one answered at any confidence (where the parts are ranked, apart
    from whether the bot answers). Each question is retrieved once and composed with
    each weighting."""
    rt = p.runtime
    always = replace(rt.answer_config.model, answer_at=0.0, suggest_at=0.0)
    base = with_model(rt, always)
    answerers = [base.with_config(replace(base.config, sections=w)) for w in weights]
    sections = RunbookSections(rt.searcher.snapshot)
    snapshot = rt.searcher.snapshot()
    titles = {c[0].path: c[0].title for c in snapshot.chunks_by_source.values() if c}
    counts = [[0, 0, 0] for _ in weights]
    for q in p.questions:
        if not (q.section and q.expect and q.answerable):
            continue
        retrieval = base.retrieve(q.q)
        expected = {path: read_source(path, [p.qset.root]) for path in q.expect}
        for n, answerer in enumerate(answerers):
            answer = sections.lead(answerer.answer_from(retrieval, None), q.q, AskContext())
            cited = tuple(CitedSpan(c.path, c.section, c.start, c.end) for c in answer.citations)
            if answer.state != "answer":
                cited = ()
            hit, lead = judge_sections(q, cited, expected, titles)
            counts[n][0] += 1
            counts[n][1] += bool(hit)
            counts[n][2] += bool(lead)
    log(f"{p.qset.name}: section choice under {len(weights)} weightings")
    return [SectionChoice(*c) for c in counts]
