"""``runbook-bot model``: prepare the embedding model (the offline copy) and say where it
loads from."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bot.commands.output import EXIT_OK, out

if TYPE_CHECKING:
    from bot.runtime import Runtime

HELP = "prepare the embedding model (offline copy) and print it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments of its own."""


def run(args: argparse.Namespace, rt: Runtime) -> int:
    emb = rt.embedder
    emb.warm()
    out(f"{emb.model_name}: {emb.dimension} dimensions, loaded from {emb.source}")
    return EXIT_OK
