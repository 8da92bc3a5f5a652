"""The example question the ask box and the App Home show, from the index itself.

A team's own runbooks make the example, not the runbooks shipped with the project: an
alert a current runbook the viewer may read answers (front matter ``alerts:``), else the
title of such a runbook. Chosen the same way every time for the same index.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.models import Chunk
from retrieval.permissions import readable

MAX_EXAMPLE_CHARS = 80


def example_question(chunks: Iterable[Chunk], groups: frozenset[str]) -> str | None:
    """An example question for someone who reads ``groups``; None when they may read
    no current runbook."""
    alert: tuple[str, str] | None = None
    title: tuple[str, str] | None = None
    for c in chunks:
        m = c.metadata
        if m.doc_type != "runbook" or m.status != "current" or not readable(c, groups):
            continue
        if m.alerts and (alert is None or c.source_id < alert[0]):
            alert = (c.source_id, m.alerts[0])
        if c.title and (title is None or c.source_id < title[0]):
            title = (c.source_id, c.title)
    found = alert or title
    return found[1][:MAX_EXAMPLE_CHARS] if found else None
