"""Answers to questions with a typo, side by side with the same questions as written.

    .venv/bin/python scripts/typo_quality.py [--corpora ../shared/corpora] [--data data/quality]

Each answerable question of every set gets one typo in its longest plain word of seven
letters or more (two letters swapped, one dropped or one doubled; the same typos on
every run). Each set is scored with the confidence model fitted on the other sets, as
``make quality`` does. Printed per set: how many of these questions get a confident
answer, and how many have the right runbook first, as written and with the typo.
"""

from __future__ import annotations

import dataclasses
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.quality import evaluate, with_model  # noqa: E402
from retrieval.calibration import fit  # noqa: E402
from retrieval.evaluation import Outcome, Question  # noqa: E402
from scripts.quality import prepared_sets  # noqa: E402

_PLAIN = re.compile(r"(?<![\w.\-/])[a-z]{7,}(?![\w.\-/])")


def with_typo(question: str, rng: random.Random) -> str | None:
    """``question`` with one typo in its longest plain word, or None when it has none."""
    words = list(_PLAIN.finditer(question))
    if not words:
        return None
    m = max(words, key=lambda w: len(w.group(0)))
    w = m.group(0)
    i = rng.randrange(1, len(w) - 2)
    kind = rng.choice(("swap", "drop", "double"))
    if kind == "swap":
        typo = w[:i] + w[i + 1] + w[i] + w[i + 2 :]
    elif kind == "drop":
        typo = w[:i] + w[i + 1 :]
    else:
        typo = w[:i] + w[i] + w[i:]
    return question[: m.start()] + typo + question[m.end() :]


def _counts(outcomes: list[Outcome]) -> tuple[int, int]:
    answered = sum(o.answered for o in outcomes)
    first = sum(1 for o in outcomes if o.ranked[:1] and o.ranked[0] in (o.question.expect or ()))
    return answered, first


def main() -> int:
    prepared = prepared_sets(__doc__.splitlines()[0])
    if prepared is None:
        return 2
    print(
        "| question set | questions | answered as written | with a typo "
        "| right runbook first as written | with a typo |"
    )
    print("|" + " --- |" * 6)
    for held in prepared:
        rng = random.Random(7)
        model = fit({p.qset.name: p.samples for p in prepared if p is not held})
        answerer = with_model(held.runtime, model)
        written: list[Question] = []
        typed: list[Question] = []
        for q in held.questions:
            typo = with_typo(q.q, rng) if q.answerable else None
            if typo is not None:
                written.append(q)
                typed.append(dataclasses.replace(q, q=typo))
        roots = [held.qset.root]
        a0, f0 = _counts(evaluate(held.runtime, written, roots, answerer=answerer))
        a1, f1 = _counts(evaluate(held.runtime, typed, roots, answerer=answerer))
        print(f"| {held.qset.name} | {len(written)} | {a0} | {a1} | {f0} | {f1} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
