"""Retrieval and answer metrics over a question set."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.heading_text import plain_heading
from core.markdown import heading_extents
from core.markup import Syntax, syntax_for


@dataclass(frozen=True)
class Question:
    id: str
    q: str
    expect: tuple[str, ...] | None  # None: no expectation given
    answerable: bool | None
    kind: str | None = None
    trap: str | None = None
    section: str | None = None  # the heading (in an expected document) whose text answers it


@dataclass(frozen=True)
class CitedSpan:
    """Where one quote of an answer comes from, in answer order."""

    path: str
    section: str
    start: int
    end: int


@dataclass(frozen=True)
class Outcome:
    question: Question
    ranked: tuple[str, ...]
    answered: bool
    quotes_verbatim: bool | None = None  # None when not answered / not checked
    cited: tuple[CitedSpan, ...] = ()
    section_hit: bool | None = None  # None: the question names no section
    lead_hit: bool | None = None
    sure: bool = True  # False: answered as a best guess
    named: tuple[str, ...] = ()  # the other runbooks the answer names (paths)


@dataclass(frozen=True)
class Metrics:
    n_ranked: int
    recall_at_1: float
    recall_at_5: float
    mrr_at_10: float
    n_abstention: int
    abstain_precision: float
    abstain_recall: float
    abstain_f1: float
    traps_answered: int
    traps_total: int
    answered_verbatim: float | None
    by_kind: dict[str, tuple[int, float]]  # kind -> (n, recall@5)
    n_answerable: int = 0
    answerable_declined: int = 0
    n_sections: int = 0
    section_hit: float = 0.0
    lead_hit: float = 0.0
    sections_by_kind: dict[str, tuple[int, float, float]] = field(default_factory=dict)
    # answerable questions answered as a best guess; those quoting no expected runbook;
    # and of those, the ones that name an expected runbook among the next closest
    guesses: int = 0
    guesses_elsewhere: int = 0
    guesses_named_right: int = 0

    def lines(self) -> list[str]:
        out = [
            f"questions with expectations: {self.n_ranked}",
            f"recall@1  {self.recall_at_1:.3f}",
            f"recall@5  {self.recall_at_5:.3f}",
            f"MRR@10    {self.mrr_at_10:.3f}",
        ]
        for kind, (n, r5) in sorted(self.by_kind.items()):
            extra = ""
            if kind in self.sections_by_kind:
                _, sh, lh = self.sections_by_kind[kind]
                extra = f" section_hit {sh:.3f} lead_hit {lh:.3f}"
            out.append(f"  {kind:<12} n={n:<3} recall@5 {r5:.3f}{extra}")
        if self.n_sections:
            out.append(
                f"section_hit {self.section_hit:.3f} lead_hit {self.lead_hit:.3f} "
                f"(n={self.n_sections})"
            )
        if self.n_abstention:
            out += [
                f"abstention precision {self.abstain_precision:.3f} "
                f"recall {self.abstain_recall:.3f} F1 {self.abstain_f1:.3f}",
                f"traps answered {self.traps_answered}/{self.traps_total}",
            ]
        if self.n_answerable:
            out.append(f"answerable declined {self.answerable_declined}/{self.n_answerable}")
            out.append(
                f"best guesses {self.guesses}: {self.guesses_elsewhere} quote another runbook, "
                f"{self.guesses_named_right} of those name the right one"
            )
        if self.answered_verbatim is not None:
            out.append(f"answered quotes verbatim {self.answered_verbatim:.1%}")
        return out


def load_questions(path: Path) -> list[Question]:
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row: dict[str, Any] = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from exc
        if "q" not in row:
            raise ValueError(f"{path}:{n}: missing field 'q'")
        expect = row.get("expect")
        out.append(
            Question(
                id=str(row.get("id", n)),
                q=str(row["q"]),
                expect=tuple(expect) if isinstance(expect, list) else None,
                answerable=row.get("answerable"),
                kind=row.get("kind"),
                trap=row.get("trap"),
                section=row.get("section") or None,
            )
        )
    return out


def _first_rank(ranked: Sequence[str], expect: Iterable[str]) -> int | None:
    wanted = set(expect)
    for i, path in enumerate(ranked, start=1):
        if path in wanted:
            return i
    return None


def compute(outcomes: Sequence[Outcome]) -> Metrics:
    ranked_q = [o for o in outcomes if o.question.expect]
    r1 = r5 = mrr = 0.0
    kinds: dict[str, list[float]] = {}
    for o in ranked_q:
        assert o.question.expect is not None
        rank = _first_rank(o.ranked, o.question.expect)
        r1 += rank == 1
        hit5 = rank is not None and rank <= 5
        r5 += hit5
        mrr += 1.0 / rank if rank is not None and rank <= 10 else 0.0
        kinds.setdefault(o.question.kind or "-", []).append(float(hit5))
    n = len(ranked_q) or 1
    labelled = [o for o in outcomes if o.question.answerable is not None]
    tp = sum(1 for o in labelled if not o.answered and not o.question.answerable)
    fp = sum(1 for o in labelled if not o.answered and o.question.answerable)
    fn = sum(1 for o in labelled if o.answered and not o.question.answerable)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    traps = [o for o in outcomes if o.question.trap]
    checked = [o for o in outcomes if o.answered and o.quotes_verbatim is not None]
    answerable = [o for o in labelled if o.question.answerable]
    judged = [o for o in outcomes if o.section_hit is not None]
    guesses = [o for o in answerable if o.answered and not o.sure]
    elsewhere = [
        o for o in guesses if not {c.path for c in o.cited[:1]} & set(o.question.expect or ())
    ]
    by_kind_sections: dict[str, list[Outcome]] = {}
    for o in judged:
        by_kind_sections.setdefault(o.question.kind or "-", []).append(o)
    return Metrics(
        n_ranked=len(ranked_q),
        recall_at_1=r1 / n,
        recall_at_5=r5 / n,
        mrr_at_10=mrr / n,
        n_abstention=sum(1 for o in labelled if not o.question.answerable),
        abstain_precision=precision,
        abstain_recall=recall,
        abstain_f1=f1,
        traps_answered=sum(1 for o in traps if o.answered),
        traps_total=len(traps),
        answered_verbatim=(
            sum(1 for o in checked if o.quotes_verbatim) / len(checked) if checked else None
        ),
        by_kind={k: (len(v), sum(v) / len(v)) for k, v in kinds.items()},
        n_answerable=len(answerable),
        answerable_declined=sum(1 for o in answerable if not o.answered),
        n_sections=len(judged),
        section_hit=_share(judged, "section_hit"),
        lead_hit=_share(judged, "lead_hit"),
        sections_by_kind={
            k: (len(v), _share(v, "section_hit"), _share(v, "lead_hit"))
            for k, v in by_kind_sections.items()
        },
        guesses=len(guesses),
        guesses_elsewhere=len(elsewhere),
        guesses_named_right=sum(
            1 for o in elsewhere if set(o.named) & set(o.question.expect or ())
        ),
    )


def _share(outcomes: Sequence[Outcome], attr: str) -> float:
    return sum(1 for o in outcomes if getattr(o, attr)) / len(outcomes) if outcomes else 0.0


def clean_heading(text: str) -> str:
    """A heading as question sets name it: inline markup (links, emphasis, code), case
    and spacing aside."""
    return " ".join(plain_heading(text).replace("*", "").split()).lower()


def section_spans(text: str, heading: str, syntax: Syntax | None = None) -> list[tuple[int, int]]:
    """Where the section titled ``heading`` lies in ``text`` (any heading level; a
    repeated heading gives several)."""
    want = clean_heading(heading)
    extents = heading_extents(text, 0, syntax)
    return [(s, e) for title, s, e in extents if clean_heading(title) == want]


def judge_sections(
    question: Question,
    cited: Sequence[CitedSpan],
    texts: Mapping[str, str | None],
    titles: Mapping[str, str] | None = None,
) -> tuple[bool | None, bool | None]:
    """(section_hit, lead_hit): is some / the first citation the expected section of
    an expected document, or inside it? ``texts`` holds each expected document's
    text by path, ``titles`` its title as indexed: a section named by the title that
    no heading spells (a front matter ``title:``) is the whole document. None when the
    question names no section."""
    if not question.section or not question.expect or not question.answerable:
        return None, None
    heading = question.section
    spans: dict[str, list[tuple[int, int]]] = {}
    for path in question.expect:
        text = texts.get(path)
        if text is None:
            continue
        spans[path] = section_spans(text, heading, syntax_for(path))
        title = (titles or {}).get(path)
        if not spans[path] and title and clean_heading(title) == clean_heading(heading):
            spans[path] = [(0, len(text))]

    def inside(c: CitedSpan) -> bool:
        return any(s <= c.start and c.end <= e for s, e in spans.get(c.path, ()))

    return any(inside(c) for c in cited), bool(cited) and inside(cited[0])
