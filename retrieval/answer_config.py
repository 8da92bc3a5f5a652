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
    weights=(0.4683, 0.105, 0.3644, -0.1747, -0.4383, 0.0515),
    means=(0.5446, 3.4901, 0.59, 0.2308, 0.1266, 0.1464),
    scales=(0.1542, 1.798, 0.276, 0.4213, 0.3325, 0.3535),
    bias=0.2131,
    answer_at=0.4,
    suggest_at=0.17,
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
