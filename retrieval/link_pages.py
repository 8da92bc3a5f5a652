"""Pages that are mostly links (a service index, a table of contents): they point at
answers instead of holding one, so they are never the answer."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.models import Chunk
from retrieval.spans import section_text

# A section that is mostly links (a service index, a table of contents) points at
# answers instead of holding one.
LINK_LIST_SHARE = 0.8
_LINK = re.compile(r"\[[^\]\n]*\]\([^)\s]*\)|\[[^\]\n]*\]\[[^\]\n]*\]|https?://\S+")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s*", re.MULTILINE)


def is_link_list(chunks: Sequence[Chunk]) -> bool:
    """Is this document (its chunks) mostly links: an index, not an answer?"""
    return link_share("\n".join(section_text(c) for c in chunks)) >= LINK_LIST_SHARE


def link_share(text: str) -> float:
    """Share of a section's non-space text taken up by links (and their list markers)."""
    body = _LIST_MARK.sub("", text)
    total = sum(1 for ch in body if not ch.isspace())
    if total == 0:
        return 0.0
    linked = sum(sum(1 for ch in m.group(0) if not ch.isspace()) for m in _LINK.finditer(body))
    return linked / total
