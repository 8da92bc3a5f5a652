"""The answer format: a digest of everything that decides an answer besides the index.

It is part of every answer cache key, so an upgrade, a new calibration or a changed
glossary never serves answers that older code or settings composed: the digest covers
the source of the packages that compose answers, the answer settings and the mode.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

import core
import retrieval

# The packages whose code decides what an answer holds: the models and markup (core)
# and search, composition, confidence and the answerers (retrieval).
ANSWERING_PACKAGES = (core, retrieval)


def source_digest(roots: Sequence[Path]) -> str:
    """A digest of every Python source file under ``roots``: paths and contents."""
    h = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            h.update(path.relative_to(root).as_posix().encode())
            h.update(b"\0")
            h.update(path.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


@cache
def answering_code_digest() -> str:
    """The digest of the answering packages, read once per process."""
    return source_digest([Path(p.__file__).parent for p in ANSWERING_PACKAGES if p.__file__])


def answer_format(mode: str, settings: Iterable[str]) -> str:
    """``mode`` (readable in a key: extractive, llm model, hyde) and a short digest of
    the answering code and ``settings`` (each a stable rendering of one setting)."""
    h = hashlib.sha256(answering_code_digest().encode())
    for item in settings:
        h.update(b"\0")
        h.update(item.encode())
    return f"{mode}:{h.hexdigest()[:16]}"
