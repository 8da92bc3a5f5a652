"""Reciprocal Rank Fusion of ranked lists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# A small k lets the first places of each list count for much more than the tenth:
# measured on four question sets, top-document accuracy 0.725/0.75/0.70/0.895 at the
# customary k=60 and 0.85/0.825/0.75/0.947 at k=5 (recall@5 0.875/0.95/0.85/1.0 ->
# 0.925/0.975/0.95/1.0); chosen leave-one-corpus-out, k=5 or 2 won on every split.
DEFAULT_RRF_K = 5


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
