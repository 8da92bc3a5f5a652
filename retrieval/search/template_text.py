"""The text a corpus's template repeats word for word in many of its runbooks.

A runbook template's sections are filled in per runbook, and a section left as the
template wrote it says the same in every one: Openverse's alarm runbooks each hold
"Historical false positives: Nothing registered to date.", the Kubernetes playbooks
"All commands are read-only." under their own heading. Such a section tells the
engineer nothing about this runbook; quoted, it shows nothing to do, as a "TODO" does.
Which texts are the template's is read from the index itself: a section's whole text
that stands, word for word, in many of its runbooks. No word list names them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from core.models import Chunk
from retrieval.search.template_headings import MIN_RUNBOOKS, MIN_SHARE

# longer text repeated across runbooks is a shared procedure, not a template's filler
MAX_FILLER_CHARS = 300
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_HEADING_LINE = re.compile(r"(?m)^ {0,3}#{1,6}(?:[ \t].*)?$")


def filler_key(text: str) -> str:
    """A section's text as compared across runbooks: no comments, its words in lower
    case, spaces collapsed."""
    return " ".join(_COMMENT.sub(" ", text).split()).lower()


def template_fillers(chunks: Iterable[Chunk]) -> frozenset[str]:
    """The section texts (:func:`filler_key`) that stand in at least ``MIN_RUNBOOKS``
    runbooks of the index and ``MIN_SHARE`` of them."""
    holders: dict[str, set[str]] = defaultdict(set)
    runbooks: set[str] = set()
    for chunk in chunks:
        runbooks.add(chunk.source_id)
        for piece in _HEADING_LINE.split(chunk.text):
            key = filler_key(piece)
            if key and len(key) <= MAX_FILLER_CHARS and any(ch.isalnum() for ch in key):
                holders[key].add(chunk.source_id)
    least = max(MIN_RUNBOOKS, MIN_SHARE * len(runbooks))
    return frozenset(key for key, docs in holders.items() if len(docs) >= least)
