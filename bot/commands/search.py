"""``runbook-bot search "q"``: ranked documents with their best sections.

``--json`` prints each document's own JSON form (:meth:`core.models.DocumentHits.to_json`).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bot.commands.options import csv_list, search_filter, words
from bot.commands.output import EXIT_OK, out, print_json

if TYPE_CHECKING:
    from bot.runtime import Runtime

HELP = "ranked sections for a query"
SNIPPET_LINES = 4


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", type=words)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument(
        "--groups", type=csv_list, default=None, help="access groups (comma separated)"
    )
    parser.add_argument("--doc-type", type=csv_list, default=None)
    parser.add_argument("--service", type=csv_list, default=None)
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace, rt: Runtime) -> int:
    flt = search_filter(args.groups, args.doc_type, args.service)
    docs = rt.searcher.search(args.query, args.k, flt)
    if args.json:
        print_json(docs)
        return EXIT_OK
    if not docs:
        out("no runbook matches this query")
        return EXIT_OK
    for i, d in enumerate(docs, start=1):
        best = d.best.chunk
        m = best.metadata
        out(f"{i}. {d.title} - {best.section}  [{d.path}:{best.line}]")
        updated = m.updated or "unknown"
        out(f"   owner {m.owner or 'none'} | updated {updated} | {m.doc_type} | {m.status}")
        if best.link:
            out(f"   {best.link}")
        snippet = best.text.split("\n\n", 1)[-1].strip().splitlines()
        for line in snippet[:SNIPPET_LINES]:
            out(f"   > {line}")
    return EXIT_OK
