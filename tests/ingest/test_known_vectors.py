"""ingest.known_vectors: the live index's vectors found by the exact text they embed."""

from __future__ import annotations

import numpy as np

from ingest.known_vectors import KnownVectors


def test_a_known_text_gets_its_row_and_nothing_else_matches() -> None:
    matrix = np.eye(3, dtype=np.float32)
    known = KnownVectors(["Disk full\n\nRotate logs.", "b", "c"], matrix)
    assert len(known) == 3
    got = known.get("Disk full\n\nRotate logs.")
    assert got is not None and got.tolist() == [1.0, 0.0, 0.0]
    assert known.get("Disk full\n\nRotate logs. ") is None  # one space more: another text
    assert known.get("B") is None


def test_texts_and_rows_that_disagree_give_nothing() -> None:
    known = KnownVectors(["a", "b"], np.eye(3, dtype=np.float32))
    assert len(known) == 0 and known.get("a") is None
    assert KnownVectors().get("a") is None
