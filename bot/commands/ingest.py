"""``runbook-bot ingest DIR``: index a folder of Markdown runbooks, incrementally.

Only changed files are embedded and deleted files are removed. Exits 3 when files were
skipped (each named with its reason on stderr). ``--check`` only validates and exits 1
naming file and line; ``--reindex`` drops the index and rebuilds it (e.g. a new model).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.commands.output import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_SKIPPED,
    EXIT_USAGE,
    err,
    error,
    out,
    print_json,
    warning,
)

if TYPE_CHECKING:
    from bot.runtime import Runtime

HELP = "index a folder of Markdown runbooks (incremental)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", type=Path)
    parser.add_argument("--exclude", action="append", default=[], metavar="GLOB")
    parser.add_argument(
        "--check", action="store_true", help="only validate files; exit 1 if any fail"
    )
    parser.add_argument(
        "--reindex", action="store_true", help="drop the index and rebuild it (e.g. new model)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace, rt: Runtime) -> int:
    from ingest.manifest import forget_manifest

    root: Path = args.dir
    if not root.is_dir():
        error(f"{root} is not a directory")
        return EXIT_USAGE
    options = rt.ingest_options(tuple(args.exclude), progress=sys.stderr.isatty())
    if args.reindex and not args.check:
        forget_manifest(rt.settings.data_dir)
        rt.vector_index.drop()
    report = rt.ingest(root, options, check_only=args.check)
    for w in report.warnings:
        warning(w)
    if args.check:
        for p in report.problems:
            error(p)
    if args.json:
        print_json(report, indent=None)
    elif args.check:
        bad = {s.rel for s in report.skipped} | {p.rel for p in report.problems}
        out(f"checked {len(report.added)} documents, {len(bad)} with problems")
    else:
        out(report.summary())
    if report.skipped:
        n = len(report.skipped)
        err(f"skipped {n} file{'s' if n != 1 else ''} (not indexed):")
        for s in report.skipped:
            err(f"  {s}")
    if args.check:
        return EXIT_FAILED if report.skipped or report.problems else EXIT_OK
    return EXIT_SKIPPED if report.skipped else EXIT_OK
