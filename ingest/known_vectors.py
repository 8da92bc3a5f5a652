"""Vectors the index already holds, found by the exact text they embed.

A changed runbook usually keeps most of its sections word for word, and a parser
change (``PARSE_VERSION``) re-chunks every document into mostly the same texts.
Such a chunk takes the vector the live index holds for that text instead of being
embedded again: the same model embeds the same text to the same vector, so what a
search finds does not change, only the time an ingest takes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class KnownVectors:
    """``get(text)``: the vector of a live chunk whose embedded text is ``text``."""

    def __init__(self, texts: Sequence[str] = (), matrix: Vector | None = None) -> None:
        self._matrix = matrix
        self._rows: dict[bytes, int] = {}
        if matrix is not None and len(texts) == len(matrix):
            self._rows = {_key(t): i for i, t in enumerate(texts)}

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, text: str) -> Vector | None:
        row = self._rows.get(_key(text))
        if row is None or self._matrix is None:
            return None
        return np.asarray(self._matrix[row], dtype=np.float32)
