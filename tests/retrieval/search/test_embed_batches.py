"""Batches cut by token budget: every text once, shortest first, never over budget."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from retrieval.search.embed_batches import BatchBudget, budget_batches
from retrieval.search.embeddings import FastEmbedder


@given(st.lists(st.integers(min_value=1, max_value=256), max_size=600))
def test_every_text_once_and_every_batch_within_budget(lengths: list[int]) -> None:
    budget = BatchBudget(tokens=2048, attention=2 * 256 * 256, max_batch=64)
    batches = budget_batches(lengths, budget)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for batch in batches:
        longest = max(lengths[i] for i in batch)
        assert budget.fits(len(batch), longest)
    seen = [lengths[i] for b in batches for i in b]
    assert seen == sorted(seen)


def test_short_texts_share_batches_and_long_ones_are_cut_small() -> None:
    lengths = [8] * 100 + [256] * 10
    batches = budget_batches(lengths, BatchBudget(tokens=8192, attention=4 * 256 * 256))
    sizes = [len(b) for b in batches]
    assert sizes[0] == 100  # 100 x 8 tokens fit one batch
    assert sizes[1:] == [4, 4, 2]  # 4 x 256^2 attention cells at most


def test_a_text_over_budget_alone_still_gets_a_batch() -> None:
    assert budget_batches([300, 10], BatchBudget(tokens=100, attention=100)) == [[1], [0]]


def test_vectors_keep_the_order_of_the_texts_whatever_the_batches(
    embedder: FastEmbedder, model_dir: Path
) -> None:
    texts = [
        "disk full",
        "restart the checkout-api pods one at a time and watch the error rate " * 20,
        "KubePodCrashLooping in payments",
        "rotate the certificate",
    ]
    one_by_one = FastEmbedder(cache_dir=model_dir, budget=BatchBudget(1, 1))
    cut = one_by_one.embed_documents(texts)
    whole = embedder.embed_documents(texts)
    alone = np.stack([embedder.embed_documents([t])[0] for t in texts])
    assert cut.shape == (4, embedder.dimension)
    np.testing.assert_allclose(cut, alone, atol=1e-5)
    np.testing.assert_allclose(whole, alone, atol=1e-5)
    assert not np.allclose(cut[0], cut[2])
