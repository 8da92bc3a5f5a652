"""Answer settings and the frozen, cross-corpus confidence calibration."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from retrieval.answer.confidence import ConfidenceModel
from retrieval.answer.part_ranking import SectionWeights
from retrieval.answer.signals import NAMES, SIGNALS
from retrieval.errors import UnknownSignalError

# Fitted by `make quality` (scripts/quality.py) on every corpus in ../shared/corpora
# plus the repository's own question sets (tests/fixtures/corpora, the sample
# runbooks); the leave-one-corpus-out numbers it prints are in docs/quality.md.
# Features, in order: retrieval.answer.confidence.FEATURES.
CALIBRATED_MODEL = ConfidenceModel(
    weights=(0.3935, 0.213, -0.3218, -0.2658, 0.3044, -0.3272, -0.4046, -0.2163, 0.1438),
    means=(0.5376, 0.6257, 0.1779, 0.129, 0.3624, 0.0294, 0.0721, 0.0133, 0.2277),
    scales=(0.1656, 0.2868, 0.3825, 0.3352, 0.2209, 0.1688, 0.2586, 0.1147, 0.1746),
    bias=0.286,
    answer_at=0.44,
    suggest_at=0.24,
    sure_at=0.75,
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
    off: frozenset[str] = frozenset()  # signals switched off (retrieval.answer.signals), to ablate

    def __post_init__(self) -> None:
        unknown = self.off - NAMES
        if unknown:
            raise UnknownSignalError(f"no such signal: {', '.join(sorted(unknown))}")

    def on(self, name: str) -> bool:
        """Is the signal ``name`` in use?"""
        return name not in self.off

    def section_weights(self) -> SectionWeights:
        """The section weights, those of the signals switched off at zero."""
        zero = {s.weight: 0.0 for s in SIGNALS if s.weight and s.name in self.off}
        return replace(self.sections, **zero) if zero else self.sections
