"""Answer quality across corpora: leave-one-corpus-out and in-sample, side by side.

    .venv/bin/python scripts/quality.py [--corpora ../shared/corpora] [--data data/quality]
        [--ablate [SIGNAL ...]] [--lockbox] [--rows FILE]

Every folder of ``--corpora`` with an ``eval.jsonl`` is a question set, and so are
the repository's own: the extra corpora under ``tests/fixtures/corpora`` and the sample
runbooks with ``tests/fixtures/sample_questions.jsonl``. Each is
ingested into its own data dir (incrementally: a second run embeds nothing).
For each set the confidence model is fitted on all the others and the held-out
set is scored; then the model fitted on every set (the one to freeze in
``retrieval/answer/answer_config.py``) is printed with its in-sample scores.

``--ablate`` switches each signal of ``retrieval.answer.signals`` off in turn (or those named),
refits, and prints what every held-out set loses or gains without it. ``--lockbox``
scores the sealed first-contact sets under ``tests/fixtures/lockbox`` with the model
fitted on every other set: run it once, at the end of a round of quality work.
``--rows`` writes one JSON line per question and run (held out, in sample): the answer's
state, reason, ranked runbooks, quotes in answer order (the lead first), confidence and
text, to compare two versions question by question.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from dataclasses import replace
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.quality import (  # noqa: E402
    HeldOut,
    Labelled,
    Prepared,
    ablate,
    ablation_table,
    discover,
    evaluate,
    fitted_on_all,
    held_out,
    in_sample,
    leave_one_out,
    prepare,
    repository_sets,
    section_choices,
    table,
    totals,
    with_model,
)
from retrieval.answer import AnswerConfig  # noqa: E402
from retrieval.answer.relevance import DATA as RELEVANCE_DATA  # noqa: E402
from retrieval.answer.signals import NAMES  # noqa: E402

LOCKBOX = ROOT / "tests" / "fixtures" / "lockbox"
from bot.runtime import Runtime  # noqa: E402
from bot.settings import load_settings  # noqa: E402


def arguments(description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "quality")
    parser.add_argument(
        "--ablate",
        nargs="*",
        metavar="SIGNAL",
        help="switch each signal off in turn (default: every signal of retrieval.answer.signals)",
    )
    parser.add_argument("--lockbox", action="store_true", help="score the sealed sets once")
    parser.add_argument(
        "--fit-sections",
        action="store_true",
        help="fit the section weights leave-one-corpus-out over a grid, and print both",
    )
    parser.add_argument(
        "--write-relevance",
        action="store_true",
        help=f"write the relevance weighting fitted on every set to {RELEVANCE_DATA.name}",
    )
    parser.add_argument(
        "--rows",
        type=Path,
        metavar="FILE",
        help="one JSON line per question and run (held out, in sample) to FILE",
    )
    return parser.parse_args()


def log(text: str) -> None:
    print(text, file=sys.stderr)


def prepared_sets(args: argparse.Namespace) -> list[Prepared] | None:
    """Every question set of ``--corpora`` plus the repository's own, each ingested
    (incrementally) under ``--data``; None, with a message, when fewer than two corpora
    have questions."""
    shared = discover(args.corpora)
    sets = [*shared, *repository_sets(ROOT)]
    if len(shared) < 2:
        print(f"need at least two corpora with eval.jsonl under {args.corpora}", file=sys.stderr)
        return None
    embedder = Runtime(load_settings(data_dir=args.data)).embedder  # one model for every set
    return [prepare(s, args.data, embedder, log) for s in sets]


def lockbox(prepared: list[Prepared], data: Path, rows: IO[str] | None) -> list[HeldOut]:
    """The sealed sets, each scored with the model fitted on every other set (``rows``:
    one ``first contact`` line per question)."""
    model, relevance = fitted_on_all(prepared)
    embedder = prepared[0].runtime.embedder
    out = []
    for qset in discover(LOCKBOX):
        sealed = prepare(qset, data, embedder, log)
        answerer = with_model(sealed.runtime, model, relevance=relevance)
        sink = Labelled(rows, "first contact", qset.name) if rows is not None else None
        outcomes = evaluate(
            sealed.runtime, sealed.questions, [qset.root], answerer=answerer, out=sink
        )
        out.append(held_out(qset.name, model, outcomes))
    return out


# the grid of section weights --fit-sections searches: how much the question's words in a
# part, in its own heading, and the part's dense similarity count
SECTION_GRID = {
    "lexical": (0.25, 0.5, 0.75),
    "heading": (0.25, 0.5, 0.75),
    "dense": (0.25, 0.5, 0.75, 1.0, 1.5),
}


def fit_sections(prepared: list[Prepared]) -> list[str]:
    """Section weights fitted leave-one-corpus-out: for each set, the grid point that leads
    best on all the others, scored on it, beside the shipped weights; then the point
    best on every set (the one to ship)."""
    shipped = AnswerConfig().sections
    names = list(SECTION_GRID)
    grid = [
        replace(shipped, **dict(zip(names, values, strict=True)))
        for values in itertools.product(*SECTION_GRID.values())
    ]
    choices = {p.qset.name: section_choices(p, [shipped, *grid], log) for p in prepared}

    def best(sets: list[str]) -> int:
        return max(range(1, len(grid) + 1), key=lambda i: sum(choices[s][i].rate() for s in sets))

    lines = [
        "set                                      shipped sec/lead   held-out sec/lead   n",
    ]
    for name, rows in choices.items():
        chosen = rows[best([s for s in choices if s != name])]
        base = rows[0]
        lines.append(
            f"{name:40} {base.section:4d} / {base.lead:4d}        "
            f"{chosen.section:4d} / {chosen.lead:4d}      {base.judged}"
        )
    point = grid[best(list(choices)) - 1]
    lines.append("fitted on every set: " + ", ".join(f"{n}={getattr(point, n)}" for n in names))
    return lines


def main() -> int:
    args = arguments(__doc__.splitlines()[0])
    unknown = {n for group in args.ablate or () for n in group.split("+")} - NAMES
    if unknown:
        print(f"no such signal: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    prepared = prepared_sets(args)
    if prepared is None:
        return 2
    if args.fit_sections:
        print("## Section weights, leave one corpus out (questions naming a section)\n")
        print("\n".join(fit_sections(prepared)))
        return 0
    rows = args.rows.open("w", encoding="utf-8") if args.rows is not None else None
    try:
        return report(args, prepared, rows)
    finally:
        if rows is not None:
            rows.close()


def report(args: argparse.Namespace, prepared: list[Prepared], rows: IO[str] | None) -> int:
    held = leave_one_out(prepared, rows=rows)
    print("## Leave one corpus out (fitted on the others, scored on this one)\n")
    print("\n".join(table(held)))
    print("\n" + totals(held))
    if args.lockbox:
        print("\n## First contact: the sealed sets (fitted on every set above)\n")
        sealed = lockbox(prepared, args.data, rows)
        print("\n".join(table(sealed)))
        print("\n" + totals(sealed))
        for h in sealed:  # by kind of question: paraphrases, near misses, ...
            print(f"\n{h.name}:", *h.metrics.lines(), sep="\n  ")
        return 0
    if args.ablate is not None:
        signals = args.ablate or sorted(NAMES)
        print("\n## Ablation: each signal off (F1 / section_hit / lead_hit change, questions)\n")
        print("\n".join(ablation_table(held, ablate(prepared, signals, log))))
        return 0
    model, relevance, scored = in_sample(prepared, rows)
    print("\n## In sample (fitted on every set, the shipped calibration)\n")
    print("\n".join(table(scored)))
    print("\n" + totals(scored))
    print("\n## Fitted model (retrieval/answer/answer_config.py CALIBRATED_MODEL)\n")
    print(model)
    if args.write_relevance:
        RELEVANCE_DATA.write_text(relevance.to_json() + "\n", encoding="utf-8")
        print(f"\nrelevance weighting written to {RELEVANCE_DATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
