"""Every signal the answer uses, in one table: its name, what it reads, and whether it is
a feature of the calibrated confidence model.

A signal is a rule group that can be switched off (``AnswerConfig.off``): ``make
ablate`` turns each off in turn, refits, and weighs the questions it moves against a
refit's noise (a sign test over every set). A hand-written rule (phrase patterns, word
lists) keeps its place only while it wins on at least two corpora and more questions
than it loses, over all of them and over the sets no rule was written from
(bot/quality_sets.toml); a signal read from the corpus itself (vectors, term
statistics, the index's names and titles) stays unless the sign test says it harms
(docs/quality.md). A feature switched off is held at zero, so the model fitted without
it gives it no weight; any other signal switched off is skipped where it acts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Stage = Literal["reading", "confidence", "checks", "sections"]


@dataclass(frozen=True)
class Signal:
    name: str
    stage: Stage  # where it acts: reading the question, confidence, answer checks, sections
    reads: str  # what it looks at, in a line
    feature: bool = False  # a feature of the calibrated model (retrieval.answer.confidence)
    weight: str | None = None  # the section weight it is (retrieval.answer.part_ranking)
    # hand-written rules (phrase patterns, word lists), not read from the corpus itself
    written: bool = False


SIGNALS: tuple[Signal, ...] = (
    # -- reading the question ------------------------------------------------------------
    Signal("spelling", "reading", "typos read as the index's words (edit distance)"),
    Signal("titled-names", "reading", "an alert name a runbook's title spells in words"),
    Signal("written-names", "reading", "a runbook's name typed in other case"),
    Signal("long-forms", "reading", "shorthand the runbooks write in full", written=True),
    Signal("everyday-words", "reading", "everyday words no runbook uses are not missing terms"),
    # -- confidence: features of the calibrated model -----------------------------------
    Signal(
        "relevance",
        "confidence",
        "the lead's best section by meaning: its cosine, dimensions weighed as learned",
        feature=True,
    ),
    Signal("coverage", "confidence", "IDF share of the question's terms in the lead", feature=True),
    Signal("absent", "confidence", "a question term no document holds", feature=True),
    Signal("unknown", "confidence", "a name neither runbooks nor model know", feature=True),
    Signal("grounded", "confidence", "dense x coverage: shared words in a document on it", True),
    Signal(
        "detail_missing",
        "checks",
        "the command or value asked for is not quoted",
        feature=True,
        written=True,
    ),
    Signal(
        "task_missing",
        "checks",
        "the quotes never speak of the task asked for",
        feature=True,
        written=True,
    ),
    Signal(
        "steps_missing",
        "checks",
        "steps asked for, no quote gives steps",
        feature=True,
        written=True,
    ),
    # -- which section leads ------------------------------------------------------------
    Signal(
        "intent",
        "sections",
        "the heading offers the kind of answer asked",
        weight="intent",
        written=True,
    ),
    Signal(
        "symptoms",
        "sections",
        "restated symptoms answer no request",
        weight="symptoms",
        written=True,
    ),
    Signal("openers", "sections", "the heading the index's own template opens with restates"),
    Signal(
        "fillers", "sections", "text the index's template repeats in many runbooks says nothing"
    ),
)

NAMES = frozenset(s.name for s in SIGNALS)
FEATURE_NAMES = tuple(s.name for s in SIGNALS if s.feature)


def signal(name: str) -> Signal:
    """The signal of that name; a name not in the table is a mistake, not a no-op."""
    for s in SIGNALS:
        if s.name == name:
            return s
    raise KeyError(f"no signal named {name!r}; known: {', '.join(sorted(NAMES))}")
