"""``runbook-bot ingest [[NAME=]DIR ...]``: sync sources into the index, incrementally.

Each folder named is a source of Markdown runbooks (``DIR`` alone: the source
``runbooks``); without a folder, every source of the sources file
(``RUNBOOK_SOURCES_PATH``), or those ``--source`` names. Only changed documents are
embedded, and a sync removes only its own source's documents; a run over the whole
sources file also removes the documents of sources no longer in it. Exits 3 when files
were skipped (each named with its reason on stderr), 1 when a source could not be read
(the others are still synced): also when its folder is missing, or when it has no
documents while the index holds some of it (``--allow-empty`` removes them then).
``--check`` only validates and exits 1 naming file and
line; ``--reindex`` drops the index and rebuilds it (e.g. a new model), its generations
continuing above the old index's (cached answers never share a key with the rebuild).
"""

from __future__ import annotations

import argparse
import dataclasses
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
    from ingest.sources.base import Source
    from ingest.sync import IngestReport

HELP = "index runbooks from folders or the configured sources (incremental)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir",
        nargs="*",
        metavar="[NAME=]DIR",
        help="a folder of Markdown runbooks; NAME= names its source (default: runbooks). "
        "None: the sources of RUNBOOK_SOURCES_PATH",
    )
    parser.add_argument(
        "--source",
        action="append",
        default=[],
        metavar="NAME",
        help="only this source of the sources file (repeatable)",
    )
    parser.add_argument("--exclude", action="append", default=[], metavar="GLOB")
    parser.add_argument(
        "--check", action="store_true", help="only validate files; exit 1 if any fail"
    )
    parser.add_argument(
        "--reindex", action="store_true", help="drop the index and rebuild it (e.g. new model)"
    )
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="let a source without documents remove all of its indexed ones "
        "(otherwise that is an error and they stay)",
    )
    parser.add_argument("--json", action="store_true", help="print each report as JSON")


def _folder(spec: str) -> tuple[str, Path]:
    """``NAME=DIR`` or ``DIR`` (the default source)."""
    from core.doc_ids import valid_source_name
    from ingest.sources.base import DEFAULT_SOURCE

    name, sep, path = spec.partition("=")
    if sep and valid_source_name(name):
        return name, Path(path)
    return DEFAULT_SOURCE, Path(spec)


def _sources(args: argparse.Namespace, rt: Runtime) -> tuple[list[Source], bool] | str:
    """The sources to sync, and whether they are the whole sources file (then the
    documents of sources no longer in it are removed); or what is wrong."""
    if args.dir:
        if args.source:
            return "name folders or --source, not both"
        sources: list[Source] = []
        for spec in args.dir:
            name, root = _folder(spec)  # a missing folder fails its own sync only
            if any(src.name == name for src in sources):
                return f"two folders are the source {name!r}: name them (NAME=DIR)"
            sources.append(rt.folder_source(root, name, tuple(args.exclude)))
        return sources, False
    if args.reindex and args.source:
        return "--reindex rebuilds the whole index: run it without --source"
    configured = list(rt.configured_sources(tuple(args.source)))
    if not configured:
        return "name a folder (runbook-bot ingest DIR) or list sources in RUNBOOK_SOURCES_PATH"
    return configured, not args.source


def run(args: argparse.Namespace, rt: Runtime) -> int:
    from ingest.errors import SourceUnavailableError
    from ingest.sources.base import DEFAULT_SOURCE

    chosen = _sources(args, rt)
    if isinstance(chosen, str):
        error(chosen)
        return EXIT_USAGE
    sources, whole_file = chosen
    options = rt.ingest_options(
        tuple(args.exclude), progress=sys.stderr.isatty(), allow_empty=args.allow_empty
    )
    if args.reindex and not args.check:
        missing = [s for s in sources if s.watch_path is not None and not s.watch_path.is_dir()]
        for source in missing:
            error(f"source {source.name!r}: {source.watch_path} does not exist or is no folder")
        if missing:
            error("nothing was dropped: --reindex needs every source's folder")
            return EXIT_FAILED
        floor = rt.drop_index()  # the rebuild continues the generations above it
        options = dataclasses.replace(options, generation_floor=floor)
    named = len(sources) > 1 or sources[0].name != DEFAULT_SOURCE
    codes = []
    for source in sources:
        try:
            report = rt.ingest(source, options, check_only=args.check)
        except SourceUnavailableError as exc:  # the other sources are still synced
            error(f"{exc} (its documents stay as they were)")
            codes.append(EXIT_FAILED)
            continue
        codes.append(_show(args, report, named))
    if whole_file and not args.check and EXIT_FAILED not in codes:
        pruned = rt.remove_other_sources(tuple(src.name for src in sources))
        if pruned.removed:
            err(f"removed {len(pruned.removed)} documents of sources no longer configured")
    return EXIT_FAILED if EXIT_FAILED in codes else max(codes)


def _show(args: argparse.Namespace, report: IngestReport, named: bool) -> int:
    prefix = f"{report.source}: " if named else ""
    for w in report.warnings:
        warning(prefix + w)
    if args.check:
        for p in report.problems:
            error(f"{prefix}{p}")
    if args.json:
        print_json(report, indent=None)
    elif args.check:
        bad = {s.rel for s in report.skipped} | {p.rel for p in report.problems}
        out(f"{prefix}checked {len(report.added)} documents, {len(bad)} with problems")
    else:
        out(prefix + report.summary())
    if report.skipped:
        n = len(report.skipped)
        err(f"{prefix}skipped {n} file{'s' if n != 1 else ''} (not indexed):")
        for s in report.skipped:
            err(f"  {s}")
    if args.check:
        return EXIT_FAILED if report.skipped or report.problems else EXIT_OK
    return EXIT_SKIPPED if report.skipped else EXIT_OK
