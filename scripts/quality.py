"""Answer quality across corpora: leave-one-corpus-out and in-sample, side by side.

    .venv/bin/python scripts/quality.py [--corpora ../shared/corpora] [--data data/quality]

Every folder of ``--corpora`` with an ``eval.jsonl`` is a question set, and so are
the repository's own: the extra corpora under ``tests/fixtures/corpora`` and the sample
runbooks with ``tests/fixtures/sample_questions.jsonl``. Each is
ingested into its own data dir (incrementally: a second run embeds nothing).
For each set the confidence model is fitted on all the others and the held-out
set is scored; then the model fitted on every set (the one to freeze in
``retrieval/answer_config.py``) is printed with its in-sample scores.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.quality import (  # noqa: E402
    Prepared,
    discover,
    in_sample,
    leave_one_out,
    prepare,
    repository_sets,
    table,
)
from bot.runtime import Runtime  # noqa: E402
from bot.settings import load_settings  # noqa: E402


def prepared_sets(description: str) -> list[Prepared] | None:
    """Every question set of ``--corpora`` plus the repository's own, each ingested
    (incrementally) under ``--data``; None, with a message, when fewer than two corpora
    have questions."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "quality")
    args = parser.parse_args()
    shared = discover(args.corpora)
    sets = [*shared, *repository_sets(ROOT)]
    if len(shared) < 2:
        print(f"need at least two corpora with eval.jsonl under {args.corpora}", file=sys.stderr)
        return None
    embedder = Runtime(load_settings(data_dir=args.data)).embedder  # one model for every set

    def log(text: str) -> None:
        print(text, file=sys.stderr)

    return [prepare(s, args.data, embedder, log) for s in sets]


def main() -> int:
    prepared = prepared_sets(__doc__.splitlines()[0])
    if prepared is None:
        return 2
    print("## Leave one corpus out (fitted on the others, scored on this one)\n")
    print("\n".join(table(leave_one_out(prepared))))
    model, scored = in_sample(prepared)
    print("\n## In sample (fitted on every set, the shipped calibration)\n")
    print("\n".join(table(scored)))
    print("\n## Fitted model (retrieval/answer_config.py CALIBRATED_MODEL)\n")
    print(model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
