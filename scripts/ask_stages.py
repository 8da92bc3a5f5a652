"""Where an ask's time goes: ``AnswerService.ask`` over the ``ask`` bench's questions, stage
by stage.

    .venv/bin/python scripts/ask_stages.py [--data data/bench/ask-10000] [--corpora DIR]
        [--source ROOT] [--cprofile FILE]

The same questions, service and warm-up as ``scripts/bench.py --only ask`` (its indexes:
build them with it first), in one process, with a stopwatch around the methods each
stage runs in (milliseconds per ask; the stages nest as indented). ``--source`` measures
another checkout of runbook-bot (its modules, with the same stage names) over the same
index, so two versions can be compared in turn on one machine. ``--cprofile`` also
writes a cProfile dump of the asks (which slows them down several times).
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from bench import QUERIES as WARM  # the bench's warm-up questions (scripts/bench.py)

ROOT = Path(__file__).resolve().parent.parent

# (label, module, class, method): the stopwatches, outermost first
STAGES = (
    ("ask", "bot.service", "AnswerService", "ask"),
    ("  runbook linked in the question", "retrieval.answer", "RunbookMatcher", "linked"),
    ("  retrieve", "retrieval.answer.answerer", "ExtractiveAnswerer", "retrieve"),
    (
        "    read the question (names, typos)",
        "retrieval.answer.answerer",
        "ExtractiveAnswerer",
        "_read",
    ),
    ("    query embedding", "retrieval.search", "FastEmbedder", "embed_query"),
    (
        "    searches (dense + keyword, fused)",
        "retrieval.search",
        "HybridSearcher",
        "search_chunks",
    ),
    ("      dense", "retrieval.search", "Snapshot", "dense_search"),
    ("      keyword (BM25)", "retrieval.search.keyword_index", "KeywordIndex", "search"),
    ("    group by document", "retrieval.search", "HybridSearcher", "group"),
    ("    candidates' evidence", "retrieval.answer.answerer", "ExtractiveAnswerer", "_candidates"),
    ("  compose the answer", "retrieval.answer.answerer", "ExtractiveAnswerer", "answer_from"),
    ("    lead document (link pages)", "retrieval.answer.answerer", "ExtractiveAnswerer", "lead"),
    ("    quotes", "retrieval.answer.quoting", "Quoter", "cite"),
    ("    answer's checks", "retrieval.answer.answerer", "ExtractiveAnswerer", "_checked"),
    ("  what leads", "bot.service", "AnswerService", "_lead"),
)


class Stopwatch:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}

    def wrap(self, label: str, owner: Any, name: str) -> None:
        fn: Callable[..., Any] = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[label] = self.seconds.get(label, 0.0) + time.perf_counter() - t
                self.calls[label] = self.calls.get(label, 0) + 1

        setattr(owner, name, timed)

    def reset(self) -> None:
        self.seconds.clear()
        self.calls.clear()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT / "data" / "bench" / "ask-10000")
    ap.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    ap.add_argument("--source", type=Path, default=ROOT, help="the checkout to measure")
    ap.add_argument("--cprofile", type=Path, help="also write a cProfile dump here")
    args = ap.parse_args()
    sys.path.insert(0, str(args.source.resolve()))
    from bot.quality import discover, repository_sets
    from bot.runtime import Runtime
    from bot.service import AnswerService
    from bot.settings import load_settings

    sets = [*discover(args.corpora), *repository_sets(args.source.resolve())]
    questions = [
        str(json.loads(line)["q"])
        for qset in sets
        for line in qset.questions.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    watch = Stopwatch()
    for label, module, owner, name in STAGES:
        watch.wrap(label, getattr(importlib.import_module(module), owner), name)
    rt = Runtime(load_settings(data_dir=args.data, redis_url="redis://127.0.0.1:1/0"))
    resolver = rt.resolver()
    service = AnswerService(
        rt.extractive, rt.searcher, resolver, None, None, "stages", mode=rt.answer_mode
    )
    snap = rt.searcher.snapshot()
    groups = {g for c in snap.chunks for g in c.metadata.access}
    asker = resolver.scope_for_groups(groups | set(resolver.access_map.known_groups))
    for q in WARM * 2:  # as the bench warms up: none of the timed questions
        service.ask(q, "stages-warm", asker=asker)
    watch.reset()
    profile = None
    if args.cprofile is not None:
        import cProfile

        profile = cProfile.Profile()
        profile.enable()
    totals = []
    for i, q in enumerate(questions):
        t = time.perf_counter()
        service.ask(q, f"stages-{i}", asker=asker)
        totals.append(time.perf_counter() - t)
    if profile is not None:
        profile.disable()
        profile.dump_stats(str(args.cprofile))
    n = len(questions)
    p50, p95 = (float(np.percentile(totals, p)) * 1000 for p in (50, 95))
    print(f"{len(snap.chunks)} chunks, {n} questions, source {args.source.resolve()}")
    print(f"ask p50 {p50:.1f} ms, p95 {p95:.1f} ms, mean {statistics.fmean(totals) * 1000:.1f} ms")
    print(f"{'stage':40}  ms per ask  calls per ask")
    for label, *_ in STAGES:
        if label in watch.seconds:
            per = watch.seconds[label] / n * 1000
            print(f"{label:40}  {per:10.2f}  {watch.calls[label] / n:13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
