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
    weights=(0.3697, 0.258, -0.3713, -0.2915, 0.3072, -0.4847, -0.4861, -0.2362),
    means=(0.5397, 0.6036, 0.1902, 0.1334, 0.3516, 0.0429, 0.0782, 0.0169),
    scales=(0.1595, 0.2823, 0.3924, 0.34, 0.2176, 0.2027, 0.2685, 0.1288),
    bias=0.3529,
    answer_at=0.45,
    suggest_at=0.29,
    sure_at=0.7,
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
