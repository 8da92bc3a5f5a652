"""What documents are called and which of those names a query mentions."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from core.models import Chunk, normalize_name

_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*")
MIN_NAME_LEN = 6


def query_names(query: str) -> frozenset[str]:
    """Identifier-like words of a query (alert names, service names), normalized."""
    out = set()
    for w in _IDENTIFIER.findall(query):
        compound = any(c in w for c in "-_.") or any(c.isupper() for c in w[1:])
        if len(w) >= MIN_NAME_LEN and compound:
            out.add(normalize_name(w))
    return frozenset(out)


def document_names(chunk: Chunk) -> frozenset[str]:
    """What a document is called: title, top heading, file name (normalized)."""
    names = {normalize_name(chunk.title), normalize_name(PurePosixPath(chunk.path).stem)}
    if chunk.heading_path:
        names.add(normalize_name(chunk.heading_path[0]))
    return frozenset(n for n in names if n)
