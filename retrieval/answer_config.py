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
    weights=(0.4464, 0.1123, 0.3737, -0.4647, -0.328, 0.0565),
    means=(0.5469, 3.4845, 0.5959, 0.1995, 0.1298, 0.1418),
    scales=(0.1528, 1.8149, 0.2777, 0.3996, 0.3361, 0.3489),
    bias=0.2377,
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
