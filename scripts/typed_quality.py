"""Answers to questions typed the way people type on call, beside the same questions
as written.

    .venv/bin/python scripts/typed_quality.py [--corpora ../shared/corpora] [--data data/quality]
        [--ablate SIGNAL+SIGNAL]

Two ways of typing, each applied to every answerable question it changes:

- **one typo** in the question's longest plain word of seven letters or more (two
  letters swapped, one dropped or one doubled; the same typos on every run);
- **names in lower case**: alert and other identifier names (``KubePodCrashLooping``,
  ``etcdNoLeader``) typed all in lower case.

Each set is scored with the confidence model fitted on the other sets, as ``make
quality`` does. Printed per set and way: how many of these questions get a confident
answer, and how many have the right runbook first, as written and as typed.
"""

from __future__ import annotations

import dataclasses
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.quality import evaluate, refit, with_model  # noqa: E402
from retrieval.answer.evaluation import Outcome, Question  # noqa: E402
from scripts.quality import arguments, prepared_sets  # noqa: E402

_PLAIN = re.compile(r"(?<![\w.\-/])[a-z]{7,}(?![\w.\-/])")
_CAMEL = re.compile(r"\b[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b")


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


def with_lowercase_names(question: str, rng: random.Random) -> str | None:
    """``question`` with its camelCase names in lower case, or None when it has none."""
    typed = _CAMEL.sub(lambda m: m.group(0).lower(), question)
    return typed if typed != question else None


WAYS: dict[str, Callable[[str, random.Random], str | None]] = {
    "one typo": with_typo,
    "names in lower case": with_lowercase_names,
}


def _counts(outcomes: list[Outcome]) -> tuple[int, int]:
    answered = sum(o.answered for o in outcomes)
    first = sum(1 for o in outcomes if o.ranked[:1] and o.ranked[0] in (o.question.expect or ()))
    return answered, first


def main() -> int:
    args = arguments(__doc__.splitlines()[0])
    # --ablate A+B: the same with those signals switched off (retrieval.answer.signals)
    off = frozenset(n for group in args.ablate or () for n in group.split("+"))
    prepared = prepared_sets(args)
    if prepared is None:
        return 2
    print(
        "| question set | typed | questions | answered as written | as typed "
        "| right runbook first as written | as typed |"
    )
    print("|" + " --- |" * 7)
    for held in prepared:
        sets = {p.qset.name: p.samples for p in prepared}
        model, relevance = refit(sets, held.runtime.embedder.model_name, off, held.qset.name)
        answerer = with_model(held.runtime, model, off, relevance)
        roots = [held.qset.root]
        for way, retype in WAYS.items():
            rng = random.Random(7)
            written: list[Question] = []
            typed: list[Question] = []
            for q in held.questions:
                changed = retype(q.q, rng) if q.answerable else None
                if changed is not None:
                    written.append(q)
                    typed.append(dataclasses.replace(q, q=changed))
            a0, f0 = _counts(evaluate(held.runtime, written, roots, answerer=answerer))
            a1, f1 = _counts(evaluate(held.runtime, typed, roots, answerer=answerer))
            print(f"| {held.qset.name} | {way} | {len(written)} | {a0} | {a1} | {f0} | {f1} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
