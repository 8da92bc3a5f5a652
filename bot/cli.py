"""The ``runbook-bot`` command line: one parser built from :data:`bot.commands.COMMANDS`.

Parsing imports only the standard library and ``bot.commands``; the settings, the runtime
and whatever the chosen command needs are imported after it (see :mod:`bot.commands`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.commands import load, register_all
from bot.commands.options import add_common
from bot.commands.output import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, error

if TYPE_CHECKING:
    from bot.settings import Settings

DESCRIPTION = "Answers on-call questions from your runbooks, with exact citations."


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="runbook-bot", description=DESCRIPTION)
    add_common(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    register_all(sub)
    return parser


def settings_from(args: argparse.Namespace) -> Settings:
    """The settings, with the command line's options winning over the environment."""
    from bot.settings import load_settings

    return load_settings(
        data_dir=getattr(args, "data_dir", None),
        qdrant_url=getattr(args, "qdrant_url", None),
        embedding_model_path=getattr(args, "model_path", None),
        redis_url=getattr(args, "redis_url", None),
        port=getattr(args, "port", None),
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = settings_from(args)
    except Exception as exc:  # pydantic validation of env values
        error(f"invalid settings: {exc}")
        return EXIT_USAGE
    from bot.runtime import Runtime
    from ingest.errors import IngestError
    from retrieval.errors import RetrievalError

    command = load(args.command)
    rt = Runtime(settings)
    try:
        return command.run(args, rt)
    except (RetrievalError, IngestError) as exc:
        error(exc)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        rt.close()


if __name__ == "__main__":
    raise SystemExit(main())
