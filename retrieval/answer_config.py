"""Answer settings and the frozen, cross-corpus confidence calibration."""

from __future__ import annotations

from dataclasses import dataclass, field

from retrieval.composer import SectionWeights
from retrieval.confidence import ConfidenceModel

# Fitted by `make quality` (scripts/quality.py) on every corpus in ../shared/corpora
# plus the sample runbooks' questions; the leave-one-corpus-out numbers it prints are in
# the README. Features, in order: retrieval.confidence.FEATURES.
CALIBRATED_MODEL = ConfidenceModel(
    weights=(0.3289, 0.1286, 0.3701, -0.3222, -0.3655, 0.2227),
    means=(0.529, 3.4638, 0.5628, 0.2563, 0.1759, 0.1106),
    scales=(0.1527, 1.5916, 0.2938, 0.4366, 0.3807, 0.3136),
    bias=0.2609,
    answer_at=0.43,
    suggest_at=0.13,
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
