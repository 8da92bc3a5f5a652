"""Answer settings and the frozen, cross-corpus confidence calibration."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from retrieval.composer import SectionWeights
from retrieval.confidence import ConfidenceModel

# Fitted by `make calibrate` (scripts/calibrate.py) on every corpus in ../shared/corpora
# plus the sample runbooks' questions; the leave-one-corpus-out numbers it prints are in
# the README. Features, in order: retrieval.confidence.FEATURES.
CALIBRATED_MODEL = ConfidenceModel(
    weights=(0.42, 0.2, 0.44, -0.26, -0.09, 0.27),
    means=(0.5, 2.0, 0.4, 0.5, 0.4, 0.2),
    scales=(0.17, 1.0, 0.25, 0.5, 0.5, 0.4),
    bias=0.0,
    answer_at=0.45,
    suggest_at=0.3,
)
_ALERT_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*$")


def looks_like_alert_name(word: str) -> bool:
    return (
        bool(_ALERT_NAME.match(word))
        and sum(c.isupper() for c in word) >= 3
        and any(c.islower() for c in word)
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
