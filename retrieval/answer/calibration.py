"""Fitting the confidence model across corpora, and judging it on one held out.

Each labelled question contributes one sample: the evidence for its lead
document (:mod:`retrieval.answer.confidence`) and whether any runbook answers it. A
class-balanced, L2-regularized logistic regression on standardized features
gives the weights; the answer threshold maximizes the mean, over the training
corpora taken one at a time, of abstention F1 less penalties for declining more
than a tenth of the answerable questions and for answering more than a fifth of
the near-miss traps. Nothing here knows any corpus: callers pass question sets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from retrieval.answer.confidence import ConfidenceModel, Evidence

L2 = 0.1
STEPS = 3000
RATE = 0.1
MAX_DECLINED = 0.10  # of answerable questions
MAX_TRAPS = 0.20  # of near-miss traps answered
# a trap reads like an answerable question by design: answering one too many costs half
# as much as declining one answerable question too many
TRAPS_WEIGHT = 0.5
THRESHOLDS = tuple(round(0.05 + 0.01 * i, 2) for i in range(91))
SMOOTHING = 0.03  # a bar is judged with its neighbours this close
# "not sure" (the closest runbooks offered) from the lowest bar at which, among the
# training questions scored just above it (within SUGGEST_WINDOW), at least this share
# have their answering runbook among the closest three; "no runbook covers this" below
NONE_MAX_USEFUL = 0.2
SUGGEST_WINDOW = 0.1
SUGGEST_MIN_SAMPLES = 5  # a window with fewer says nothing
# "sure" from the lowest bar (at or above the answer bar) above which, pooled over the
# training sets, at least this share of the questions answered are answerable; the
# answers between the two bars are shown as best guesses
SURE_PRECISION = 0.95


@dataclass(frozen=True)
class Sample:
    evidence: Evidence
    answerable: bool
    trap: bool = False
    expected_in_top3: bool = False
    # declined whatever its confidence: the answer would not show the detail asked for
    # (:mod:`retrieval.reading.asked_detail`), or the runbook is not written; the bar is fitted
    # to the questions it decides
    vetoed: bool = False
    # the product of the question's vector and its lead section's, dimension by dimension
    # (None without the dense mirror): what the relevance weighting is fitted on
    product: npt.NDArray[np.float64] | None = field(default=None, compare=False, repr=False)


def _matrix(samples: Sequence[Sample]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    x = np.array([s.evidence.vector() for s in samples], dtype=np.float64)
    y = np.array([1.0 if s.answerable else 0.0 for s in samples], dtype=np.float64)
    return x, y


def fit_weights(
    samples: Sequence[Sample],
) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...], float]:
    """(weights, means, scales, bias) of a class-balanced logistic regression."""
    x, y = _matrix(samples)
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    scale = np.where(std > 1e-4, std, 1.0)  # a feature constant in training weighs nothing
    z = (x - mean) / scale
    w = np.zeros(z.shape[1])
    b = 0.0
    pos = max(y.mean(), 1e-6)
    balance = np.where(y == 1.0, 0.5 / pos, 0.5 / max(1.0 - pos, 1e-6))
    for _ in range(STEPS):
        p = 1.0 / (1.0 + np.exp(-(z @ w + b)))
        g = (p - y) * balance
        w -= RATE * (z.T @ g / len(y) + L2 * w)
        b -= RATE * float(g.mean())
    r = 4  # rounding keeps the frozen constants readable
    return (
        tuple(round(float(v), r) for v in w),
        tuple(round(float(v), r) for v in mean),
        tuple(round(float(v), r) for v in scale),
        round(b, r),
    )


@dataclass(frozen=True)
class Abstention:
    f1: float
    precision: float
    recall: float
    declined: int  # answerable questions not answered
    answerable: int
    traps_answered: int
    traps: int

    @property
    def declined_share(self) -> float:
        return self.declined / self.answerable if self.answerable else 0.0

    @property
    def traps_share(self) -> float:
        return self.traps_answered / self.traps if self.traps else 0.0


def abstention(answered: Sequence[bool], samples: Sequence[Sample]) -> Abstention:
    tp = sum(1 for a, s in zip(answered, samples, strict=True) if not a and not s.answerable)
    fp = sum(1 for a, s in zip(answered, samples, strict=True) if not a and s.answerable)
    fn = sum(1 for a, s in zip(answered, samples, strict=True) if a and not s.answerable)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Abstention(
        f1=f1,
        precision=precision,
        recall=recall,
        declined=fp,
        answerable=sum(1 for s in samples if s.answerable),
        traps_answered=sum(1 for a, s in zip(answered, samples, strict=True) if a and s.trap),
        traps=sum(1 for s in samples if s.trap),
    )


def _objective(a: Abstention) -> float:
    return (
        a.f1
        - 2.0 * max(0.0, a.declined_share - MAX_DECLINED)
        - TRAPS_WEIGHT * max(0.0, a.traps_share - MAX_TRAPS)
    )


def fit(sets: Mapping[str, Sequence[Sample]]) -> ConfidenceModel:
    """A model fitted on every sample of ``sets``; thresholds judged set by set."""
    everything = [s for samples in sets.values() for s in samples]
    weights, means, scales, bias = fit_weights(everything)
    model = ConfidenceModel(weights, means, scales, bias, answer_at=0.5, suggest_at=0.5)

    def score(t: float) -> float:
        values = []
        for samples in sets.values():
            answered = [model.probability(s.evidence) >= t and not s.vetoed for s in samples]
            values.append(_objective(abstention(answered, samples)))
        return float(np.mean(values))

    # the middle of a good plateau, not a lucky spike: each bar is judged with its
    # neighbours, so a held-out corpus whose scores sit a little higher or lower
    # meets much the same trade-off
    scores = {t: score(t) for t in THRESHOLDS}

    def smoothed(t: float) -> float:
        near = [v for u, v in scores.items() if abs(u - t) <= SMOOTHING + 1e-9]
        return sum(near) / len(near)

    answer_at = max(THRESHOLDS, key=lambda t: (smoothed(t), -t))
    probs = [(model.probability(s.evidence), s) for s in everything]
    suggest_at = answer_at  # no band where the closest runbooks help: no "not sure"
    for t in (t for t in THRESHOLDS if t < answer_at):
        # the questions scored just above t: how often do their closest runbooks hold
        # the answer? (all the questions below t would dilute a band that helps with
        # the many that no runbook answers)
        near = [s for p, s in probs if t <= p < t + SUGGEST_WINDOW]
        useful = sum(1 for s in near if s.answerable and s.expected_in_top3)
        if len(near) >= SUGGEST_MIN_SAMPLES and useful / len(near) >= NONE_MAX_USEFUL:
            suggest_at = t
            break
    sure_at = _sure_bar(model, everything, answer_at)
    return ConfidenceModel(weights, means, scales, bias, answer_at, suggest_at, sure_at)


def _sure_bar(model: ConfidenceModel, samples: Sequence[Sample], answer_at: float) -> float:
    """The lowest bar from ``answer_at`` up above which the answered questions are
    answerable at least ``SURE_PRECISION`` of the time (1.0 when none is)."""
    scored = [(model.probability(s.evidence), s) for s in samples if not s.vetoed]
    for t in (t for t in THRESHOLDS if t >= answer_at):
        above = [s for p, s in scored if p >= t]
        if len(above) >= SUGGEST_MIN_SAMPLES:
            right = sum(1 for s in above if s.answerable)
            if right / len(above) >= SURE_PRECISION:
                return t
    return 1.0
