"""Answer settings and the frozen abstention calibration."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# Confidence = DENSE_WEIGHT * best dense cosine + (1 - DENSE_WEIGHT) * IDF term coverage
# of the best document. The bar is higher when the question names something neither the
# runbooks nor the embedding model know (evidence.unknown_entities: "velero", "istio").
# Calibrated by grid search on the dev set (prometheus-operator runbooks eval.jsonl:
# 40 answerable, 10 unanswerable, 5 near-miss traps) and frozen here:
#   abstention precision 0.75, recall 0.60, F1 0.667; traps answered 4/5;
#   answerable questions wrongly abstained 3/40 (runbook-bot eval, extractive mode).
#   On the sample-runbook questions (tests/fixtures): precision 0.86, recall 0.55.
# The traps are the weak spot: a near-miss shares vocabulary and topic with a runbook
# that does not contain the answer; telling them apart needs a reader model (LLM mode).
DENSE_WEIGHT = 0.5
DEFAULT_MIN_CONFIDENCE = 0.21
DEFAULT_MIN_CONFIDENCE_UNKNOWN = 0.28
# A question naming an alert (CamelCase identifier) that no runbook mentions is about
# that alert; a runbook for a neighbouring alert is not an answer.
DEFAULT_MIN_CONFIDENCE_UNKNOWN_ALERT = 0.6
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
    dense_weight: float = DENSE_WEIGHT
    search_link_template: str | None = None
    max_related: int = 2
    candidates_considered: int = 5

    def threshold(self, unknown: Sequence[str] = ()) -> float:
        """The confidence an answer needs, given the unknown names in the question."""
        if any(looks_like_alert_name(w) for w in unknown):
            return max(self.min_confidence, self.min_confidence_unknown_alert)
        if unknown:
            return max(self.min_confidence, self.min_confidence_unknown)
        return self.min_confidence

    def confidence(self, dense: float, coverage: float) -> float:
        return self.dense_weight * dense + (1.0 - self.dense_weight) * coverage
