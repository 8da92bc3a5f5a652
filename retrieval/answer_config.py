"""Answer settings and the frozen, cross-corpus confidence calibration."""

from __future__ import annotations

from dataclasses import dataclass, field

from retrieval.composer import SectionWeights
from retrieval.confidence import ConfidenceModel

# Fitted by `make quality` (scripts/quality.py) on every corpus in ../shared/corpora
# plus the sample runbooks' questions; the leave-one-corpus-out numbers it prints are in
# the README. Features, in order: retrieval.confidence.FEATURES.
CALIBRATED_MODEL = ConfidenceModel(
    weights=(0.3356, 0.1013, 0.3763, -0.3176, -0.4614, 0.2072),
    means=(0.5291, 3.4669, 0.5657, 0.2412, 0.1357, 0.1106),
    scales=(0.153, 1.6073, 0.2909, 0.4278, 0.3424, 0.3136),
    bias=0.2542,
    answer_at=0.44,
    suggest_at=0.16,
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
