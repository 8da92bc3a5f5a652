"""Sub-commands that live in their own modules.

Each module exposes ``register(sub, common)``: it adds its parser(s) to ``sub``
(calling ``common(parser)`` to get --data-dir and friends) and sets
``func=(args, runtime) -> exit code`` as the parser default.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

COMMAND_MODULES: tuple[str, ...] = ("report", "serve")

Common = Callable[[argparse.ArgumentParser], None]


def register_all(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: Common) -> None:
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"bot.commands.{name}")
        module.register(sub, common)
