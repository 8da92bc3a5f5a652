"""A team's own words, added to the lexicon's (``RUNBOOK_WORDS_PATH``, a YAML file).

A question word that no runbook writes counts against an answer only when it names
something (:mod:`retrieval.reading.lexicon`). The built-in lists cannot know a team's
chat shorthand or which of its systems are called by an English word, so a team lists
them::

    ordinary: [brb, yolo, hotfixed]    # words that name nothing: never an unknown name
    products: [ledger, beacon]         # names of systems, though English words too

No path, or a missing file, adds nothing; a file that is not such a mapping is a
:class:`WordsFileError` naming the line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from retrieval.errors import RetrievalError

KINDS = ("ordinary", "products")


class WordsFileError(RetrievalError):
    """The team's words file is not a mapping of ``ordinary`` and ``products`` lists."""


@dataclass(frozen=True)
class TeamWords:
    ordinary: frozenset[str] = field(default=frozenset())
    products: frozenset[str] = field(default=frozenset())

    def __bool__(self) -> bool:
        return bool(self.ordinary or self.products)


def load_team_words(path: Path | None) -> TeamWords:
    """The words of ``path`` (see the module's docstring), lowercased."""
    if path is None or not path.exists():
        return TeamWords()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise WordsFileError(f"{path}: cannot read the words file: {exc}") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise WordsFileError(f"{path}:{line}: invalid YAML") from exc
    if data is None:
        return TeamWords()
    if not isinstance(data, dict) or not set(data) <= set(KINDS):
        raise WordsFileError(f"{path}: expected a mapping with the lists {', '.join(KINDS)}")
    lists: dict[str, frozenset[str]] = {}
    for kind in KINDS:
        words = data.get(kind) or []
        if not isinstance(words, list) or not all(isinstance(w, str) and w.strip() for w in words):
            raise WordsFileError(f"{path}: {kind} must be a list of words")
        lists[kind] = frozenset(w.strip().lower() for w in words)
    return TeamWords(**lists)
