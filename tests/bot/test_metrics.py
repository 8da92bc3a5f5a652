"""bot.metrics: a private registry rendered in the Prometheus text format."""

from __future__ import annotations

import logging

import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from bot.metrics import STAGES, Metrics
from core.models import Answer


def samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    payload, content_type = metrics.render()
    assert content_type.startswith("text/plain; version=")
    out: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(payload.decode("utf-8")):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def families(metrics: Metrics) -> dict[str, str]:
    payload, _ = metrics.render()
    return {
        f.name: f.type
        for f in text_string_to_metric_families(payload.decode("utf-8"))
        if not f.name.endswith("_created")  # prometheus_client's creation timestamps
    }


def test_metric_names_and_types() -> None:
    assert families(Metrics()) == {
        "runbook_bot_requests": "counter",
        "runbook_bot_abstentions": "counter",
        "runbook_bot_errors": "counter",
        "runbook_bot_cache_hits": "counter",
        "runbook_bot_cache_misses": "counter",
        "runbook_bot_feedback": "counter",
        "runbook_bot_stage_seconds": "histogram",
        "runbook_bot_index_generation": "gauge",
    }


def test_recorded_values_and_labels() -> None:
    m = Metrics()
    m.request("mention", "answer")
    m.request("mention", "answer")
    m.request("slash", "abstain")
    m.abstention("no-match")
    m.error("slack")
    m.cache_hit()
    m.cache_miss()
    m.cache_miss()
    m.feedback("not_helpful")
    m.observe_stage("search", 0.02)
    m.observe_stage("search", 0.3)
    m.set_index_generation(7)
    got = samples(m)

    assert got[("runbook_bot_requests_total", (("outcome", "answer"), ("surface", "mention")))] == 2
    assert got[("runbook_bot_requests_total", (("outcome", "abstain"), ("surface", "slash")))] == 1
    assert got[("runbook_bot_abstentions_total", (("reason", "no-match"),))] == 1
    assert got[("runbook_bot_abstentions_total", (("reason", "low-confidence"),))] == 0
    assert got[("runbook_bot_errors_total", (("stage", "slack"),))] == 1
    assert got[("runbook_bot_cache_hits_total", ())] == 1
    assert got[("runbook_bot_cache_misses_total", ())] == 2
    assert got[("runbook_bot_feedback_total", (("value", "not_helpful"),))] == 1
    assert got[("runbook_bot_feedback_total", (("value", "helpful"),))] == 0
    assert got[("runbook_bot_stage_seconds_count", (("stage", "search"),))] == 2
    assert got[("runbook_bot_stage_seconds_sum", (("stage", "search"),))] == pytest.approx(0.32)
    assert got[("runbook_bot_stage_seconds_bucket", (("le", "0.025"), ("stage", "search")))] == 1
    assert got[("runbook_bot_stage_seconds_bucket", (("le", "+Inf"), ("stage", "search")))] == 2
    assert got[("runbook_bot_index_generation", ())] == 7
    for stage in STAGES:  # every known stage is exported from the start
        assert ("runbook_bot_stage_seconds_count", (("stage", stage),)) in got


def test_registries_are_private() -> None:
    a, b = Metrics(), Metrics()
    a.cache_hit()
    assert samples(a)[("runbook_bot_cache_hits_total", ())] == 1
    assert samples(b)[("runbook_bot_cache_hits_total", ())] == 0
    assert REGISTRY.get_sample_value("runbook_bot_cache_hits_total") is None


def test_unknown_stage_is_counted_as_other_and_warned_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    m = Metrics()
    with caplog.at_level(logging.WARNING, logger="runbook_bot.metrics"):
        m.observe_stage("typo", 0.1)
        m.observe_stage("typo", 0.1)
        m.error("KeyError")
    got = samples(m)
    assert got[("runbook_bot_stage_seconds_count", (("stage", "other"),))] == 2
    assert got[("runbook_bot_errors_total", (("stage", "other"),))] == 1
    assert ("runbook_bot_stage_seconds_count", (("stage", "typo"),)) not in got
    assert len([r for r in caplog.records if "typo" in r.getMessage()]) == 1


def test_time_stage_observes_also_on_error() -> None:
    m = Metrics()
    with m.time_stage("embed"):
        pass
    with pytest.raises(RuntimeError), m.time_stage("embed"):
        raise RuntimeError("boom")
    assert samples(m)[("runbook_bot_stage_seconds_count", (("stage", "embed"),))] == 2


def test_observer_hooks() -> None:
    m = Metrics()
    m.stage("answer", 0.5)
    m.cache(True)
    m.cache(False)
    m.answered(Answer(state="abstain", text="", reason="low-confidence", generation=3))
    m.answered(Answer(state="answer", text="ok", generation=4))
    got = samples(m)
    assert got[("runbook_bot_stage_seconds_count", (("stage", "answer"),))] == 1
    assert got[("runbook_bot_cache_hits_total", ())] == 1
    assert got[("runbook_bot_cache_misses_total", ())] == 1
    assert got[("runbook_bot_abstentions_total", (("reason", "low-confidence"),))] == 1
    assert got[("runbook_bot_index_generation", ())] == 4
