"""Prometheus metrics for the bot, in a private registry.

One :class:`Metrics` per process. It owns its own ``CollectorRegistry`` (never the global
one), so tests and several app instances in one process do not collide, and ``/metrics``
shows only runbook-bot's series::

    metrics = Metrics()
    with metrics.time_stage("search"):
        ...
    metrics.request("slack_mention", "answer")
    payload, content_type = metrics.render()   # serve at GET /metrics

Label values are bounded: stages outside :data:`STAGES` are counted as ``"other"`` (and
logged once), so a typo cannot grow a new time series per request.

:class:`Metrics` also has the hook methods of ``bot.service.Observer`` (``stage``,
``cache``, ``answered``), so it can observe an ``AnswerService`` directly.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import get_args

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from core.models import AbstainReason, Answer

log = logging.getLogger("runbook_bot.metrics")

#: ``request`` is the whole request, from receipt to the last Slack call.
STAGES: tuple[str, ...] = ("embed", "search", "answer", "cache", "slack", "request")
OTHER = "other"
#: Seconds; answers take milliseconds (cache) to tens of seconds (LLM, Slack retries).
STAGE_BUCKETS: tuple[float, ...] = (
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
)
#: Every reason an answer gives for not quoting (:data:`core.models.AbstainReason`), and
#: ``error`` for a request that failed.
ABSTAIN_REASONS: tuple[str, ...] = (*get_args(AbstainReason), "error")
FEEDBACK_VALUES: tuple[str, ...] = ("helpful", "not_helpful")


class Metrics:
    """The bot's counters, histogram and gauge, with small recording methods."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "runbook_bot_requests",
            "Questions handled, by surface (mention, slash command, ...) and outcome.",
            ["surface", "outcome"],
            registry=r,
        )
        self.abstentions = Counter(
            "runbook_bot_abstentions",
            "Answers that abstained, by reason.",
            ["reason"],
            registry=r,
        )
        self.errors = Counter(
            "runbook_bot_errors",
            "Errors, by the stage that failed.",
            ["stage"],
            registry=r,
        )
        self.cache_hits = Counter(
            "runbook_bot_cache_hits", "Answers served from the answer cache.", registry=r
        )
        self.cache_misses = Counter(
            "runbook_bot_cache_misses", "Answer cache lookups that missed.", registry=r
        )
        self.feedback_votes = Counter(
            "runbook_bot_feedback",
            "Feedback button presses, by value.",
            ["value"],
            registry=r,
        )
        self.stage_seconds = Histogram(
            "runbook_bot_stage_seconds",
            "Time spent per stage of answering a question.",
            ["stage"],
            buckets=STAGE_BUCKETS,
            registry=r,
        )
        self.index_generation = Gauge(
            "runbook_bot_index_generation",
            "Generation of the live index this process answers from.",
            registry=r,
        )
        self._warned: set[str] = set()
        self._lock = threading.Lock()
        # Known label values start at zero, so dashboards and rate() see them from the start.
        for stage in STAGES:
            self.stage_seconds.labels(stage=stage)
            self.errors.labels(stage=stage)
        for reason in ABSTAIN_REASONS:
            self.abstentions.labels(reason=reason)
        for value in FEEDBACK_VALUES:
            self.feedback_votes.labels(value=value)

    # -- recording ----------------------------------------------------------------------

    def _stage(self, stage: str) -> str:
        if stage in STAGES:
            return stage
        with self._lock:
            if stage not in self._warned:
                self._warned.add(stage)
                log.warning("unknown metrics stage %r, counted as %r", stage, OTHER)
        return OTHER

    def observe_stage(self, stage: str, seconds: float) -> None:
        self.stage_seconds.labels(stage=self._stage(stage)).observe(max(0.0, seconds))

    @contextmanager
    def time_stage(self, stage: str) -> Iterator[None]:
        """Observe the duration of the ``with`` body (also when it raises)."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.observe_stage(stage, time.perf_counter() - started)

    def request(self, surface: str, outcome: str) -> None:
        """One handled question: ``outcome`` is e.g. answer, abstain, error, duplicate."""
        self.requests.labels(surface=surface, outcome=outcome).inc()

    def abstention(self, reason: str | None) -> None:
        self.abstentions.labels(reason=reason or "unknown").inc()

    def error(self, stage: str) -> None:
        self.errors.labels(stage=self._stage(stage)).inc()

    def cache_hit(self) -> None:
        self.cache_hits.inc()

    def cache_miss(self) -> None:
        self.cache_misses.inc()

    def feedback(self, value: str) -> None:
        self.feedback_votes.labels(value=value if value in FEEDBACK_VALUES else OTHER).inc()

    def set_index_generation(self, generation: int) -> None:
        self.index_generation.set(generation)

    # -- bot.service.Observer hooks -------------------------------------------------------

    def stage(self, stage: str, seconds: float) -> None:
        self.observe_stage(stage, seconds)

    def cache(self, hit: bool) -> None:
        if hit:
            self.cache_hit()
        else:
            self.cache_miss()

    def answered(self, answer: Answer) -> None:
        if answer.state == "abstain":
            self.abstention(answer.reason)
        if answer.generation:
            self.set_index_generation(answer.generation)

    # -- exposition -------------------------------------------------------------------

    def render(self) -> tuple[bytes, str]:
        """``(payload, content type)`` for a ``GET /metrics`` response."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
