"""Answer settings and the frozen, cross-corpus confidence calibration."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from retrieval.answer.confidence import ConfidenceModel
from retrieval.answer.part_ranking import SectionWeights
from retrieval.answer.relevance import Relevance
from retrieval.answer.signals import NAMES, SIGNALS
from retrieval.errors import UnknownSignalError

# Fitted by `make quality` (scripts/quality.py) on every corpus in ../shared/corpora
# plus the repository's own question sets (tests/fixtures/corpora, the sample
# runbooks); the leave-one-corpus-out numbers it prints are in docs/quality.md.
# Features, in order: retrieval.answer.confidence.FEATURES.
CALIBRATED_MODEL = ConfidenceModel(
    weights=(0.5342, 0.2175, -0.2178, -0.2579, 0.2678, -0.2356, -0.3347, -0.1757),
    means=(0.0037, 0.6032, 0.2163, 0.1599, 0.3469, 0.0252, 0.064, 0.0105),
    scales=(0.3111, 0.2845, 0.4117, 0.3665, 0.2168, 0.1568, 0.2447, 0.1021),
    bias=0.2608,
    answer_at=0.42,
    suggest_at=0.17,
    sure_at=0.75,
)
# Fitted by `make quality` too, on the same sets (scripts/quality.py --write-relevance)
CALIBRATED_RELEVANCE = Relevance.load()
DEFAULT_STALE_AFTER_DAYS = 180


@dataclass(frozen=True)
class AnswerConfig:
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS
    model: ConfidenceModel = CALIBRATED_MODEL
    relevance: Relevance = CALIBRATED_RELEVANCE
    search_link_template: str | None = None
    max_related: int = 2
    max_suggestions: int = 3
    max_alternatives: int = 2  # the next closest runbooks a best guess names
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
        off = {s.weight: 0.0 for s in SIGNALS if s.weight and s.name in self.off}
        return replace(self.sections, **off) if off else self.sections
