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
    weights=(0.4022, 0.2197, -0.331, -0.2869, 0.3095, -0.3103, -0.3909, -0.2114, 0.1423),
    means=(0.5364, 0.6187, 0.1868, 0.1393, 0.3587, 0.029, 0.0725, 0.0129, 0.2301),
    scales=(0.1662, 0.2867, 0.3897, 0.3463, 0.2211, 0.1678, 0.2593, 0.1128, 0.172),
    bias=0.2971,
    answer_at=0.44,
    suggest_at=0.17,
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
