"""The sub-commands of ``runbook-bot``: one module each, registered from :data:`COMMANDS`.

A command module holds

- ``HELP``: its line in ``runbook-bot --help``;
- ``add_arguments(parser)``: its own arguments (``--data-dir`` and the other common options
  are added for it, see :mod:`bot.commands.options`);
- ``run(args, runtime) -> int``: the work, returning an exit code of
  :mod:`bot.commands.output`.

Building the parser imports these modules, so at module level they import only the standard
library and ``bot.commands``; the runtime, Slack, the web server, the index and the model
are imported inside ``run``. A cold ``runbook-bot ask`` loads only what answering needs.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, cast

from bot.commands.options import add_common

if TYPE_CHECKING:
    from bot.runtime import Runtime

#: command name -> the module that implements it, in ``--help`` order
COMMANDS: Mapping[str, str] = {
    "ingest": "bot.commands.ingest",
    "search": "bot.commands.search",
    "ask": "bot.commands.ask",
    "eval": "bot.commands.eval",
    "serve": "bot.commands.serve",
    "report": "bot.commands.report",
    "cache": "bot.commands.cache",
    "model": "bot.commands.model",
}


class Command(Protocol):
    """What a command module provides."""

    HELP: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace, rt: Runtime) -> int: ...


def load(name: str) -> Command:
    """The module of the command ``name`` (a key of :data:`COMMANDS`)."""
    return cast(Command, importlib.import_module(COMMANDS[name]))


def register_all(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """One sub-parser per entry of :data:`COMMANDS`."""
    for name in COMMANDS:
        command = load(name)
        parser = sub.add_parser(name, help=command.HELP, description=command.HELP)
        add_common(parser)
        command.add_arguments(parser)
