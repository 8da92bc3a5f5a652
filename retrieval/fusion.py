"""Reciprocal Rank Fusion of ranked lists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_RRF_K = 60


@dataclass(frozen=True)
class Fused:
    key: str
    score: float
    ranks: tuple[int | None, ...]  # 1-based rank in each input list


def rrf(lists: Sequence[Sequence[str]], k: int = DEFAULT_RRF_K) -> list[Fused]:
    """Fuse ranked key lists: score(d) = sum over lists of 1 / (k + rank)."""
    ranks: dict[str, list[int | None]] = {}
    for li, keys in enumerate(lists):
        for rank, key in enumerate(keys, start=1):
            slot = ranks.setdefault(key, [None] * len(lists))
            if slot[li] is None:
                slot[li] = rank
    fused = [
        Fused(key, sum(1.0 / (k + r) for r in rs if r is not None), tuple(rs))
        for key, rs in ranks.items()
    ]
    fused.sort(key=lambda f: (-f.score, min(r for r in f.ranks if r is not None)))
    return fused
