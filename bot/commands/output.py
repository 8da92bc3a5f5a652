"""What every command prints, and the exit codes they return.

Results go to stdout (:func:`out`, :func:`print_json`); diagnostics go to stderr
(:func:`err`, :func:`error`, :func:`note`, :func:`warning`), so ``--json`` output stays
parseable while the command explains itself. ``--json`` prints a value's own serializer:
``to_json()`` when the type has one, else pydantic's ``model_dump(mode="json")``, else
``dataclasses.asdict``.

This module is imported while the command line is parsed: standard library only.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_SKIPPED = 3  # ingest finished, but some files were skipped (named on stderr)
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT


def out(text: str = "") -> None:
    """A line of the command's result, on stdout."""
    sys.stdout.write(text + "\n")


def err(text: str) -> None:
    """A line for the operator, on stderr."""
    sys.stderr.write(text + "\n")


def one_line(text: object) -> str:
    """``text`` with every run of whitespace (newlines of a foreign error) as one space."""
    return " ".join(str(text).split())


def error(message: object) -> None:
    err(f"error: {message}")


def warning(message: object) -> None:
    err(f"warning: {message}")


def note(message: object) -> None:
    err(f"note: {message}")


def to_jsonable(value: Any) -> Any:
    """Plain JSON data from a value, through the value type's own serializer."""
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return to_json()
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump):  # a pydantic model
        return model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    return value


def print_json(value: Any, *, indent: int | None = 2) -> None:
    """``value`` as JSON on stdout (dates and paths as strings, non-ASCII as is)."""
    out(json.dumps(to_jsonable(value), indent=indent, ensure_ascii=False, default=str))
