"""``runbook-bot cache stats|clear``: the Redis answer cache.

``stats`` prints :class:`~state.answer_cache.CacheStats` as JSON and exits 1 when Redis does
not answer; ``clear`` removes every cached answer and says how many.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bot.commands.output import EXIT_FAILED, EXIT_OK, out, print_json

if TYPE_CHECKING:
    from bot.runtime import Runtime

HELP = "answer cache: stats or clear"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["stats", "clear"])


def run(args: argparse.Namespace, rt: Runtime) -> int:
    if args.action == "clear":
        out(f"removed {rt.cache.clear()} cached answers")
        return EXIT_OK
    stats = rt.cache.stats()
    print_json(stats, indent=None)
    return EXIT_OK if stats.available else EXIT_FAILED
