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
    weights=(0.3926, 0.2666, -0.3595, -0.2659, 0.3139, -0.4295, -0.4827, -0.2149),
    means=(0.5351, 0.6119, 0.1909, 0.1312, 0.3535, 0.0377, 0.0792, 0.0143),
    scales=(0.1602, 0.284, 0.393, 0.3376, 0.2171, 0.1904, 0.2701, 0.1187),
    bias=0.3423,
    answer_at=0.46,
    suggest_at=0.28,
    sure_at=0.71,
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
