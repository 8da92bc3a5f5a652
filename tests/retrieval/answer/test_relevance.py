"""The relevance weighting: learned from labelled questions, kept as data, read by the
answerer with the vectors at hand, and by the plain cosine's stand-in otherwise."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from bot.runtime import Runtime
from retrieval.answer import Pair, Relevance, RelevanceFit, product
from retrieval.answer.answer_config import CALIBRATED_RELEVANCE
from retrieval.errors import ModelDataError

DIM = 32


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def pairs(rng: np.random.Generator, n: int) -> list[Pair]:
    """Questions whose answer hangs on the first four dimensions agreeing, the rest
    agreeing just as much either way (what a plain cosine counts alike)."""
    out = []
    for i in range(n):
        answerable = i % 2 == 0
        q = rng.normal(size=DIM)
        c = q + rng.normal(scale=1.5, size=DIM)  # the same subject: near in every dimension
        c[:4] = q[:4] if answerable else -q[:4]  # the ask: these four agree, or do not
        q, c = unit(q), unit(c)
        out.append(Pair(product(q, c), float(q @ c), answerable))
    return out


def auc(scores: list[float], labels: list[bool]) -> float:
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    return float(np.mean([(p > np.array(neg)).mean() for p in pos]))


def test_the_weighting_learns_which_dimensions_tell_an_answer_from_a_near_miss() -> None:
    rng = np.random.default_rng(7)
    fitter = RelevanceFit({"a": pairs(rng, 300), "b": pairs(rng, 300)}, "m", ridge=10.0)
    held = pairs(rng, 200)
    labels = [p.answerable for p in held]
    learned = fitter.without().of_product
    weighed = auc([learned(p.product) for p in held], labels)
    plain = auc([p.cosine for p in held], labels)
    assert weighed > plain + 0.1
    # fitted on one set alone, it still learns them; on none, there is nothing to fit
    assert auc([fitter.without({"b"}).of_product(p.product) for p in held], labels) > plain
    with pytest.raises(ValueError, match="no question set"):
        fitter.without({"a", "b"})


def test_the_cosine_stand_in_follows_the_weighting_on_average() -> None:
    rng = np.random.default_rng(3)
    fitted = RelevanceFit({"a": pairs(rng, 400)}, "m", ridge=10.0).without()
    held = pairs(rng, 200)
    learned = np.array([fitted.of_product(p.product) for p in held])
    stand_in = np.array([fitted.from_cosine(p.cosine) for p in held])
    assert abs(learned.mean() - stand_in.mean()) < 0.1 * learned.std()


def test_the_weighting_is_data_that_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "relevance.json"
    path.write_text(CALIBRATED_RELEVANCE.to_json(), encoding="utf-8")
    assert Relevance.load(path) == CALIBRATED_RELEVANCE
    assert CALIBRATED_RELEVANCE.applies_to("sentence-transformers/all-MiniLM-L6-v2", 384)


@pytest.mark.parametrize("text", ["", "{}", '{"model": "m", "weights": "x"}', "[1, 2]"])
def test_a_malformed_weighting_is_a_clear_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "relevance.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelDataError, match="cannot read the relevance weighting"):
        Relevance.load(path)


def test_the_answerer_weighs_the_lead_section_with_the_vectors_at_hand(
    sample_runtime: Runtime,
) -> None:
    question = "checkout-api database connection refused"
    answerer = sample_runtime.extractive
    r = answerer.retrieve(question)
    lead = answerer.lead(r)
    assert lead is not None and lead.vector is not None
    evidence = answerer.judge(r)
    assert evidence is not None
    assert evidence.relevance == pytest.approx(
        CALIBRATED_RELEVANCE.of_product(product(r.vector, lead.vector))
    )
    assert evidence.relevance != pytest.approx(CALIBRATED_RELEVANCE.from_cosine(evidence.dense))


def test_a_weighting_of_another_embedding_model_is_not_applied(sample_runtime: Runtime) -> None:
    other = replace(CALIBRATED_RELEVANCE, model="another/model", cosine_slope=2.0)
    config = replace(sample_runtime.answer_config, relevance=other)
    answerer = sample_runtime.extractive.with_config(config)
    evidence = answerer.judge(answerer.retrieve("checkout-api database connection refused"))
    assert evidence is not None
    assert evidence.relevance == pytest.approx(other.from_cosine(evidence.dense))
