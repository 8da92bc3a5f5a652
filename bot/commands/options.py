"""Options and argument types shared by the commands.

Imported while the command line is parsed: standard library only.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.models import SearchFilter


def add_common(parser: argparse.ArgumentParser) -> None:
    """``--data-dir``, ``--qdrant-url``, ``--model-path``, ``--redis-url``: accepted before
    and after the command name (unset ones leave the settings to the environment)."""
    unset = argparse.SUPPRESS
    parser.add_argument("--data-dir", type=Path, default=unset, help="index and cache directory")
    parser.add_argument("--qdrant-url", default=unset, help="Qdrant server URL (default: embedded)")
    parser.add_argument(
        "--model-path", type=Path, default=unset, help="local fastembed model directory"
    )
    parser.add_argument("--redis-url", default=unset, help="Redis URL")


def csv_list(value: str) -> tuple[str, ...]:
    """``"a, b,,c"`` -> ``("a", "b", "c")``."""
    return tuple(v.strip() for v in value.split(",") if v.strip())


def words(value: str) -> str:
    """A question or query: it needs a word or a name (``""``, ``"?"`` asks nothing)."""
    if not any(ch.isalnum() for ch in value):
        raise argparse.ArgumentTypeError(
            'ask in words, e.g. "checkout-api database connection refused"'
        )
    return value


def positive_int(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if n <= 0:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def search_filter(
    groups: Sequence[str] | None,
    doc_types: Sequence[str] | None = None,
    services: Sequence[str] | None = None,
) -> SearchFilter:
    """The search filter of ``--groups``, ``--doc-type`` and ``--service`` (unset: no limit)."""
    from core.models import SearchFilter

    return SearchFilter(
        groups=tuple(groups) if groups else None,
        doc_types=tuple(doc_types) if doc_types else None,
        services=tuple(services) if services else None,
    )
