"""The word lists the drafts builder recognizes, loaded from ``words.toml`` (data)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class DraftWords:
    commands: frozenset[str]
    changing: frozenset[str]
    finding: tuple[str, ...]
    fix: tuple[str, ...]
    error_words: tuple[str, ...]


@cache
def draft_words() -> DraftWords:
    data = tomllib.loads(resources.files(__package__).joinpath("words.toml").read_text("utf-8"))
    return DraftWords(
        commands=frozenset(data["commands"]),
        changing=frozenset(w.lower() for w in data["changing"]),
        finding=tuple(w.lower() for w in data["finding"]),
        fix=tuple(w.lower() for w in data["fix"]),
        error_words=tuple(w.lower() for w in data["error_words"]),
    )
