"""``runbook-bot eval QUESTIONS.jsonl --out OUT.jsonl``: measure retrieval and answers.

Prints recall@1/5, MRR@10, section_hit and lead_hit by kind, abstention
precision/recall/F1, traps answered, answerable declined and quotes verbatim; writes one
line per question (its ranking and cited spans) to ``--out``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from bot.commands.options import csv_list, search_filter
from bot.commands.output import EXIT_OK, out

if TYPE_CHECKING:
    from bot.runtime import Runtime

HELP = "measure retrieval on a question set (JSONL)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("questions", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--groups", type=csv_list, default=None)
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="the ingested folder, to check quotes verbatim (default: the questions' folder)",
    )


def run(args: argparse.Namespace, rt: Runtime) -> int:
    from bot.quality import evaluate
    from retrieval.answer import compute, load_questions

    questions = load_questions(args.questions)
    roots = [args.root or args.questions.parent]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as sink:
        outcomes = evaluate(
            rt, questions, roots, k=args.k, flt=search_filter(args.groups), out=sink
        )
    for line in compute(outcomes).lines():
        out(line)
    return EXIT_OK
