"""Where a chunk's original text lies: the section text its offsets point at."""

from __future__ import annotations

from core.models import Chunk


def section_text(chunk: Chunk) -> str:
    """The original text of the chunk's section (the indexed text ends with it)."""
    return chunk.text[len(chunk.text) - (chunk.end - chunk.start) :]
