"""Answer settings and the frozen abstention calibration."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from retrieval.composer import SectionWeights

# Confidence = DENSE_WEIGHT * best dense cosine + (1 - DENSE_WEIGHT) * IDF term coverage
# of the best document. The bar is higher when the question names something neither the
# runbooks nor the embedding model know (evidence.unknown_entities: "velero", "istio").
# Calibrated by grid search on the dev set (prometheus-operator runbooks eval.jsonl:
# 40 answerable, 10 unanswerable, 5 near-miss traps) and frozen here:
#   abstention precision 0.63, recall 0.80, F1 0.706; traps answered 1/5;
#   answerable questions declined 7/40 (runbook-bot eval, extractive mode).
#   On the sample-runbook questions (tests/fixtures): precision 0.80, recall 0.73,
#   F1 0.762, traps answered 1/4.
# Without the specificity rule below: F1 0.667 with 4/5 traps answered.
# Near misses share topic and vocabulary with a runbook that lacks the answer; the
# specificity rule catches most, a reader model (LLM mode, answerable=false) the rest.
DENSE_WEIGHT = 0.5
DEFAULT_MIN_CONFIDENCE = 0.21
DEFAULT_MIN_CONFIDENCE_UNKNOWN = 0.28
# A question naming an alert (CamelCase identifier) that no runbook mentions is about
# that alert; a runbook for a neighbouring alert is not an answer.
DEFAULT_MIN_CONFIDENCE_UNKNOWN_ALERT = 0.6
# Specificity rule: when the best-ranked document holds (almost) none of the question's
# most specific terms (terms only one indexed document contains) and confidence is below
# the override, nothing answers: the question's telling words point elsewhere. A document
# the question names outright (its alert name) is exempt.
DEFAULT_MIN_SPECIFIC_COVERAGE = 0.2
DEFAULT_SPECIFIC_OVERRIDE_CONFIDENCE = 0.6
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
    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    min_confidence_unknown: float = DEFAULT_MIN_CONFIDENCE_UNKNOWN
    min_confidence_unknown_alert: float = DEFAULT_MIN_CONFIDENCE_UNKNOWN_ALERT
    min_specific_coverage: float = DEFAULT_MIN_SPECIFIC_COVERAGE
    specific_override_confidence: float = DEFAULT_SPECIFIC_OVERRIDE_CONFIDENCE
    dense_weight: float = DENSE_WEIGHT
    search_link_template: str | None = None
    max_related: int = 2
    candidates_considered: int = 5
    sections: SectionWeights = field(default_factory=SectionWeights)

    def threshold(self, unknown: Sequence[str] = ()) -> float:
        """The confidence an answer needs, given the unknown names in the question."""
        if any(looks_like_alert_name(w) for w in unknown):
            return max(self.min_confidence, self.min_confidence_unknown_alert)
        if unknown:
            return max(self.min_confidence, self.min_confidence_unknown)
        return self.min_confidence

    def points_elsewhere(self, confidence: float, specific_coverage: float) -> bool:
        """Does the question's most specific wording miss this document?"""
        return (
            specific_coverage < self.min_specific_coverage
            and confidence < self.specific_override_confidence
        )

    def supports(
        self, confidence: float, specific_coverage: float, bar: float, named: bool = False
    ) -> bool:
        """Is a document with these scores evidence enough to answer from?

        A document the question names outright (its alert name) is exempt from the
        specificity rule: the asker said which runbook they mean.
        """
        if confidence < bar:
            return False
        return named or not self.points_elsewhere(confidence, specific_coverage)

    def confidence(self, dense: float, coverage: float) -> float:
        return self.dense_weight * dense + (1.0 - self.dense_weight) * coverage
