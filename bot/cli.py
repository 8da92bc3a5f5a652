"""The ``runbook-bot`` command line."""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from bot.commands import register_all
from bot.runtime import Runtime
from bot.settings import Settings, load_settings
from bot.text import render_text
from core.doc_ids import valid_source_name
from core.models import SearchFilter
from ingest.errors import IngestError, SourceUnavailableError
from ingest.manifest import forget_manifest
from ingest.sources.base import DEFAULT_SOURCE, Source
from ingest.sync import IngestReport
from retrieval.errors import RetrievalError
from retrieval.evaluation import compute, load_questions
from retrieval.permissions import UsergroupDirectory

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_SKIPPED = 3  # ingest finished, but some files were skipped (named on stderr)

Command = Callable[[argparse.Namespace, Runtime], int]


def _csv(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip())


def _common(p: argparse.ArgumentParser) -> None:
    d = argparse.SUPPRESS
    p.add_argument("--data-dir", type=Path, default=d, help="index and cache directory")
    p.add_argument("--qdrant-url", default=d, help="Qdrant server URL (default: embedded)")
    p.add_argument("--model-path", type=Path, default=d, help="local fastembed model directory")
    p.add_argument("--redis-url", default=d, help="Redis URL")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="runbook-bot",
        description="Answers on-call questions from your runbooks, with exact citations.",
    )
    _common(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "ingest", help="index runbooks from folders or the configured sources (incremental)"
    )
    _common(p)
    p.add_argument(
        "dir",
        nargs="*",
        metavar="[NAME=]DIR",
        help="a folder of Markdown runbooks; NAME= names its source (default: runbooks). "
        "None: the sources of RUNBOOK_SOURCES_PATH",
    )
    p.add_argument(
        "--source",
        action="append",
        default=[],
        metavar="NAME",
        help="only this source of the sources file (repeatable)",
    )
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB")
    p.add_argument("--check", action="store_true", help="only validate files; exit 1 if any fail")
    p.add_argument(
        "--reindex", action="store_true", help="drop the index and rebuild it (e.g. new model)"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("search", help="ranked sections for a query")
    _common(p)
    p.add_argument("query")
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--groups", type=_csv, default=None, help="access groups (comma separated)")
    p.add_argument("--doc-type", type=_csv, default=None)
    p.add_argument("--service", type=_csv, default=None)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("eval", help="measure retrieval on a question set (JSONL)")
    _common(p)
    p.add_argument("questions", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--groups", type=_csv, default=None)
    p.add_argument(
        "--root",
        type=Path,
        default=None,
        help="the ingested folder, to check quotes verbatim (default: the questions' folder)",
    )
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("ask", help="answer a question with quoted, cited runbook spans")
    _common(p)
    p.add_argument("question")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--groups", type=_csv, default=None, help="access groups (comma separated)")
    who.add_argument("--as-user", default=None, metavar="U", help="answer as this Slack user id")
    p.add_argument("--channel", default=None, help="answer for this channel's audience")
    p.add_argument("--json", action="store_true", help="print the answer contract as JSON")
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser("model", help="prepare the embedding model (offline copy) and print it")
    _common(p)
    p.set_defaults(func=cmd_model)

    p = sub.add_parser("cache", help="answer cache: stats or clear")
    _common(p)
    p.add_argument("action", choices=["stats", "clear"])
    p.set_defaults(func=cmd_cache)

    register_all(sub, _common)
    return parser


def _settings_from(args: argparse.Namespace) -> Settings:
    return load_settings(
        data_dir=getattr(args, "data_dir", None),
        qdrant_url=getattr(args, "qdrant_url", None),
        embedding_model_path=getattr(args, "model_path", None),
        redis_url=getattr(args, "redis_url", None),
        port=getattr(args, "port", None),
    )


def _print(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")


def _folder(spec: str) -> tuple[str, Path]:
    """``NAME=DIR`` or ``DIR`` (the default source)."""
    name, sep, path = spec.partition("=")
    if sep and valid_source_name(name):
        return name, Path(path)
    return DEFAULT_SOURCE, Path(spec)


def _ingest_sources(args: argparse.Namespace, rt: Runtime) -> tuple[list[Source], bool] | str:
    """The sources to sync, and whether the sources file lists every source (then the
    documents of sources no longer in it are removed); or what is wrong."""
    if args.dir:
        if args.source:
            return "name folders or --source, not both"
        sources: list[Source] = []
        for spec in args.dir:
            name, root = _folder(spec)
            if not root.is_dir():
                return f"{root} is not a directory"
            if any(src.name == name for src in sources):
                return f"two folders are the source {name!r}: name them (NAME=DIR)"
            sources.append(rt.folder_source(root, name, tuple(args.exclude)))
        return sources, False
    configured = list(rt.configured_sources(tuple(args.source)))
    if not configured:
        return "name a folder (runbook-bot ingest DIR) or list sources in RUNBOOK_SOURCES_PATH"
    return configured, not args.source


def _report_json(report: IngestReport) -> str:
    return json.dumps(
        {
            "source": report.source,
            "added": report.added,
            "changed": report.changed,
            "removed": report.removed,
            "unchanged": report.unchanged,
            "skipped": [str(s) for s in report.skipped],
            "problems": [str(p) for p in report.problems],
            "chunks_embedded": report.chunks_embedded,
            "chunks_total": report.chunks_total,
            "generation": report.generation,
            "seconds": round(report.seconds, 3),
        }
    )


def cmd_ingest(args: argparse.Namespace, rt: Runtime) -> int:
    chosen = _ingest_sources(args, rt)
    if isinstance(chosen, str):
        _err(f"error: {chosen}")
        return EXIT_USAGE
    sources, whole_file = chosen
    if args.reindex and args.source:
        _err("error: --reindex rebuilds the whole index: run it without --source")
        return EXIT_USAGE
    options = rt.ingest_options(tuple(args.exclude), progress=sys.stderr.isatty())
    if args.reindex and not args.check:
        forget_manifest(rt.settings.data_dir)
        rt.vector_index.drop()
    named = len(sources) > 1 or sources[0].name != DEFAULT_SOURCE
    codes = []
    for source in sources:
        try:
            report = rt.ingest(source, options, check_only=args.check)
        except SourceUnavailableError as exc:  # the others are still synced
            _err(f"error: {exc} (its documents stay as they were)")
            codes.append(EXIT_FAILED)
            continue
        codes.append(_print_ingest(args, report, named))
    if whole_file and not args.check and EXIT_FAILED not in codes:
        pruned = rt.remove_other_sources(tuple(src.name for src in sources))
        if pruned.removed:
            _err(f"removed {len(pruned.removed)} documents of sources no longer configured")
    return EXIT_FAILED if EXIT_FAILED in codes else max(codes)


def _print_ingest(args: argparse.Namespace, report: IngestReport, named: bool) -> int:
    prefix = f"{report.source}: " if named else ""
    for w in report.warnings:
        _err(f"warning: {prefix}{w}")
    if args.check:
        for p in report.problems:
            _err(f"error: {prefix}{p}")
    if args.json:
        _print(_report_json(report))
    elif args.check:
        bad = {s.rel for s in report.skipped} | {p.rel for p in report.problems}
        _print(f"{prefix}checked {len(report.added)} documents, {len(bad)} with problems")
    else:
        _print(prefix + report.summary())
    if report.skipped:
        n = len(report.skipped)
        _err(f"{prefix}skipped {n} file{'s' if n != 1 else ''} (not indexed):")
        for s in report.skipped:
            _err(f"  {s}")
    if args.check:
        return EXIT_FAILED if report.skipped or report.problems else EXIT_OK
    return EXIT_SKIPPED if report.skipped else EXIT_OK


def _filter(
    groups: Sequence[str] | None,
    doc_types: Sequence[str] | None = None,
    services: Sequence[str] | None = None,
) -> SearchFilter:
    return SearchFilter(
        groups=tuple(groups) if groups else None,
        doc_types=tuple(doc_types) if doc_types else None,
        services=tuple(services) if services else None,
    )


def cmd_search(args: argparse.Namespace, rt: Runtime) -> int:
    docs = rt.searcher.search(args.query, args.k, _filter(args.groups, args.doc_type, args.service))
    if args.json:
        _print(
            json.dumps(
                [
                    {
                        "path": d.path,
                        "title": d.title,
                        "score": round(d.score, 5),
                        "sections": [
                            {
                                "section": h.chunk.section,
                                "start": h.chunk.start,
                                "end": h.chunk.end,
                                "line": h.chunk.line,
                                "dense_rank": h.dense_rank,
                                "keyword_rank": h.keyword_rank,
                                "url": (h.chunk.metadata.url or "").replace(
                                    "{line}", str(h.chunk.line)
                                ),
                                "owner": h.chunk.metadata.owner,
                                "updated": (
                                    str(h.chunk.metadata.updated)
                                    if h.chunk.metadata.updated
                                    else None
                                ),
                            }
                            for h in d.hits
                        ],
                    }
                    for d in docs
                ],
                indent=2,
            )
        )
        return EXIT_OK
    if not docs:
        _print("no runbook matches this query")
        return EXIT_OK
    for i, d in enumerate(docs, start=1):
        best = d.best.chunk
        m = best.metadata
        url = (m.url or "").replace("{line}", str(best.line))
        _print(f"{i}. {d.title} - {best.section}  [{d.path}:{best.line}]")
        updated = m.updated or "unknown"
        _print(f"   owner {m.owner or 'none'} | updated {updated} | {m.doc_type} | {m.status}")
        if url:
            _print(f"   {url}")
        snippet = best.text.split("\n\n", 1)[-1].strip().splitlines()
        for line in snippet[:4]:
            _print(f"   > {line}")
    return EXIT_OK


def cmd_eval(args: argparse.Namespace, rt: Runtime) -> int:
    from bot.quality import evaluate

    questions = load_questions(args.questions)
    roots = [args.root or args.questions.parent]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as out:
        outcomes = evaluate(rt, questions, roots, k=args.k, flt=_filter(args.groups), out=out)
    for line in compute(outcomes).lines():
        _print(line)
    return EXIT_OK


def _directory(rt: Runtime) -> UsergroupDirectory | None:
    if rt.settings.slack_bot_token is None:
        return None
    # imported here so that other commands do not pay for Slack's modules
    from bot.slack.client import make_client
    from bot.slack.directory import SlackUsergroupDirectory

    return SlackUsergroupDirectory(make_client(rt.settings))


def cmd_ask(args: argparse.Namespace, rt: Runtime) -> int:
    service = rt.service(_directory(rt) if args.as_user else None)
    resolver = service.resolver
    if args.as_user:
        asker = resolver.scope_for_user(args.as_user)
    elif args.groups:
        asker = resolver.scope_for_groups(args.groups)
    else:  # a local operator: every group the index knows
        groups = {g for c in rt.searcher.snapshot().chunks for g in c.metadata.access}
        asker = resolver.scope_for_groups(groups | set(resolver.access_map.known_groups))
    audience = resolver.audience_for_channel(args.channel) if args.channel else None
    delivery = service.ask(
        args.question,
        new_request_id(),
        asker=asker,
        audience=audience,
        user_id=args.as_user,
        channel_id=args.channel,
    )
    if args.json:
        _print(delivery.public.model_dump_json(indent=2))
        if delivery.private is not None:
            _print(delivery.private.model_dump_json(indent=2))
    else:
        _print(render_text(delivery.public))
        if delivery.private is not None:
            _print("\nSent privately to the asker:\n" + render_text(delivery.private))
    _err(
        f"request {delivery.request_id}: {'cache hit' if delivery.cache_hit else 'cache miss'}, "
        f"{delivery.latencies_ms.get('total', 0):.0f} ms"
    )
    return EXIT_OK


def cmd_model(args: argparse.Namespace, rt: Runtime) -> int:
    emb = rt.embedder
    emb.warm()
    _print(f"{emb.model_name}: {emb.dimension} dimensions, loaded from {emb.source}")
    return EXIT_OK


def cmd_cache(args: argparse.Namespace, rt: Runtime) -> int:
    if args.action == "clear":
        _print(f"removed {rt.cache.clear()} cached answers")
        return EXIT_OK
    st = rt.cache.stats()
    _print(
        json.dumps(
            {"available": st.available, "hits": st.hits, "misses": st.misses, "keys": st.keys}
        )
    )
    return EXIT_OK if st.available else EXIT_FAILED


def new_request_id() -> str:
    return "r-" + secrets.token_hex(5)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        settings = _settings_from(args)
    except Exception as exc:  # pydantic validation of env values
        _err(f"error: invalid settings: {exc}")
        return EXIT_USAGE
    rt = Runtime(settings)
    func: Command = args.func
    try:
        return func(args, rt)
    except (RetrievalError, IngestError) as exc:
        _err(f"error: {exc}")
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130
    finally:
        rt.close()


if __name__ == "__main__":
    raise SystemExit(main())
