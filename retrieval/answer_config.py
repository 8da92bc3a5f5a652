"""Answer settings and the frozen, cross-corpus confidence calibration."""

from __future__ import annotations

from dataclasses import dataclass, field

from retrieval.composer import SectionWeights
from retrieval.confidence import ConfidenceModel

# Fitted by `make quality` (scripts/quality.py) on every corpus in ../shared/corpora
# plus the repository's own question sets (tests/fixtures/corpora, the sample
# runbooks); the leave-one-corpus-out numbers it prints are in the README.
# Features, in order: retrieval.confidence.FEATURES.
CALIBRATED_MODEL = ConfidenceModel(
    weights=(0.3892, 0.0809, 0.3991, -0.2361, -0.4234, 0.0615),
    means=(0.5466, 3.4159, 0.5693, 0.2364, 0.131, 0.1565),
    scales=(0.153, 1.5371, 0.2818, 0.4249, 0.3374, 0.3634),
    bias=0.2246,
    answer_at=0.42,
    suggest_at=0.18,
)
DEFAULT_STALE_AFTER_DAYS = 180


@dataclass(frozen=True)
class AnswerConfig:
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS
    model: ConfidenceModel = CALIBRATED_MODEL
    search_link_template: str | None = None
    max_related: int = 2
    max_suggestions: int = 3
    candidates_considered: int = 5
    sections: SectionWeights = field(default_factory=SectionWeights)
