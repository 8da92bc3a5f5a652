"""Answer settings and the frozen, cross-corpus confidence calibration."""

from __future__ import annotations

from dataclasses import dataclass, field

from retrieval.confidence import ConfidenceModel
from retrieval.part_ranking import SectionWeights

# Fitted by `make quality` (scripts/quality.py) on every corpus in ../shared/corpora
# plus the repository's own question sets (tests/fixtures/corpora, the sample
# runbooks); the leave-one-corpus-out numbers it prints are in the README.
# Features, in order: retrieval.confidence.FEATURES.
CALIBRATED_MODEL = ConfidenceModel(
    weights=(0.4456, 0.1081, 0.3756, -0.4657, -0.3235, 0.0533),
    means=(0.5463, 3.4851, 0.5939, 0.199, 0.1286, 0.1432),
    scales=(0.153, 1.8228, 0.2777, 0.3993, 0.3348, 0.3503),
    bias=0.241,
    answer_at=0.3,
    suggest_at=0.23,
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
