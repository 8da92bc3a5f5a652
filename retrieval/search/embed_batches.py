"""Cutting texts into embedding batches that fit a memory budget.

A transformer pads every text of a batch to the batch's longest one, and its
activations grow with ``batch x longest`` (hidden states) and with
``batch x longest^2`` (one attention matrix per head and layer). ONNX Runtime
keeps the peak of a run in its memory arena, so a single batch of long texts
decides the memory of a whole ingest. Batches are therefore cut by a budget on
both products, over texts sorted by length: short texts travel in big batches
(fast), long ones in small batches (bounded), and padding stays small.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# Measured with the int8 all-MiniLM-L6-v2 on 2 CPU cores, above the loaded model (about
# 300 MB): 4 texts of 256 tokens a batch peak about 140 MB more, 8 about 320 MB, 64 about
# 2.7 GB; 40 texts of 80 tokens about 340 MB, 12 of them about 35 MB. Throughput does not
# drop with these small batches (see ``make bench``: ours against plain fastembed).
TOKEN_BUDGET = 1024  # batch size x longest text, in tokens
ATTENTION_BUDGET = 4 * 256 * 256  # batch size x longest text^2
MAX_BATCH = 256


@dataclass(frozen=True)
class BatchBudget:
    tokens: int = TOKEN_BUDGET
    attention: int = ATTENTION_BUDGET
    max_batch: int = MAX_BATCH

    def fits(self, size: int, longest: int) -> bool:
        longest = max(longest, 1)
        return (
            size <= self.max_batch
            and size * longest <= self.tokens
            and size * longest * longest <= self.attention
        )


def budget_batches(lengths: Sequence[int], budget: BatchBudget | None = None) -> list[list[int]]:
    """Positions into ``lengths`` (token counts), shortest first, cut into batches that
    fit ``budget``; every position appears once. A text too long for the budget on its
    own gets a batch of its own."""
    budget = budget or BatchBudget()
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        # sorted ascending: this text is the longest of the batch it would join
        if current and not budget.fits(len(current) + 1, lengths[i]):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches
