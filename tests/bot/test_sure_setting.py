"""RUNBOOK_SURE_MIN_CONFIDENCE: a team sets how sure an answer must be to be offered for
posting without the best-guess label."""

from __future__ import annotations

from pathlib import Path

from bot.runtime import Runtime
from bot.settings import load_settings
from retrieval.search.embeddings import FastEmbedder

QUESTION = "checkout-api database connection refused"


def test_the_sure_bar_is_a_setting(sample_data_dir: Path, embedder: FastEmbedder) -> None:
    sure: dict[float, bool] = {}
    for bar in (0.0, 1.0):
        rt = Runtime(load_settings(data_dir=sample_data_dir, sure_min_confidence=bar), embedder)
        try:
            answer = rt.extractive.answer(QUESTION)
            assert answer.state == "answer"
            sure[bar] = answer.sure
        finally:
            rt.close()
    assert sure == {0.0: True, 1.0: False}
