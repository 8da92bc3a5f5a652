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
    weights=(0.4478, 0.1106, 0.3747, -0.4644, -0.3277, 0.0556),
    means=(0.5473, 3.4806, 0.5965, 0.199, 0.1295, 0.1415),
    scales=(0.1528, 1.8145, 0.2776, 0.3993, 0.3357, 0.3485),
    bias=0.2393,
    answer_at=0.29,
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
