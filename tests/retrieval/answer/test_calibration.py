"""Fitting the confidence model and choosing its tiers on labelled samples."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from retrieval.answer.calibration import Sample, abstention, fit
from retrieval.answer.confidence import FEATURES, Evidence, everyday_terms, gather_evidence
from retrieval.reading.evidence import TermStats
from retrieval.reading.tokenize import tokenize


def sample(rng: random.Random, answerable: bool) -> Sample:
    shift = 0.25 if answerable else -0.25
    close = 0.5 + shift + rng.gauss(0, 0.1)
    return Sample(
        evidence=Evidence(
            dense=close,
            relevance=close,
            coverage=0.5 + shift + rng.gauss(0, 0.1),
            absent=float(rng.random() < (0.2 if answerable else 0.7)),
            unknown=float(rng.random() < (0.1 if answerable else 0.6)),
            task_missing=float(not answerable and rng.random() < 0.3),
        ),
        answerable=answerable,
        expected_in_top3=answerable,
    )


def test_fit_separates_classes_on_a_held_out_set() -> None:
    rng = random.Random(7)
    sets = {name: [sample(rng, i % 3 != 0) for i in range(60)] for name in ("a", "b", "c")}
    model = fit({k: v for k, v in sets.items() if k != "c"})
    held = sets["c"]
    answered = [model.probability(s.evidence) >= model.answer_at for s in held]
    result = abstention(answered, held)
    assert result.f1 > 0.8
    assert result.declined_share <= 0.15
    assert model.suggest_at <= model.answer_at
    assert model.weights[1] > 0 and model.weights[3] < 0  # coverage up, unknown names down


def test_the_bar_is_fitted_to_the_questions_it_decides() -> None:
    # near misses that look answerable: the bar must rise to decline them, unless the
    # answer declines them whatever their confidence (the detail asked for not shown)
    def sets(vetoed: bool) -> dict[str, list[Sample]]:
        rng = random.Random(5)
        out = {}
        for name in ("a", "b"):
            traps = [
                replace(sample(rng, True), answerable=False, trap=True, vetoed=vetoed)
                for _ in range(12)
            ]
            out[name] = [*(sample(rng, i % 4 != 0) for i in range(60)), *traps]
        return out

    assert fit(sets(vetoed=True)).answer_at < fit(sets(vetoed=False)).answer_at


def test_a_feature_constant_in_training_weighs_nothing() -> None:
    # corpora where no answer leaves its steps out: "steps_missing" is 0 throughout
    rng = random.Random(11)
    plain = [sample(rng, i % 3 != 0) for i in range(90)]
    done = [Sample(replace(s.evidence, steps_missing=0.0), s.answerable) for s in plain]
    model = fit({"a": done[:45], "b": done[45:]})
    steps = FEATURES.index("steps_missing")
    assert model.weights[steps] == 0.0 and model.scales[steps] > 0
    undone = replace(done[0].evidence, steps_missing=1.0)
    assert model.probability(undone) == model.probability(done[0].evidence)


def test_the_sure_band_starts_where_answers_are_right() -> None:
    rng = random.Random(13)
    sets = {name: [sample(rng, i % 3 != 0) for i in range(90)] for name in ("a", "b")}
    model = fit(sets)
    assert model.answer_at <= model.sure_at <= 1.0
    above = [s for v in sets.values() for s in v if model.probability(s.evidence) >= model.sure_at]
    assert above and sum(s.answerable for s in above) / len(above) >= 0.95


def test_abstention_counts() -> None:
    samples = [
        Sample(Evidence(0, 0, 0, 0), answerable=True),
        Sample(Evidence(0, 0, 0, 0), answerable=False),
        Sample(Evidence(0, 0, 0, 0), answerable=False, trap=True),
    ]
    r = abstention([False, False, True], samples)
    assert (r.declined, r.traps_answered, r.traps) == (1, 1, 1)
    assert r.precision == 0.5 and r.recall == 0.5


def test_a_compound_of_everyday_words_is_everyday_speech() -> None:
    df = {"call": 4, "kei": 5, "valu": 2, "contain": 3}
    vocab = frozenset({"hot", "swaps", "break", "glass", "on", "call", "key", "value"})
    everyday = everyday_terms(
        "the container that hot-swaps settings, the break-glass way, on-call, key-value", df, vocab
    )
    assert {"hot-swaps", "break-glass"} <= everyday
    # a part the runbooks use keeps the compound a term of its own, missing if none has it
    assert not {"on-call", "key-value"} & everyday


def test_a_runbook_word_with_an_english_prefix_or_suffix_is_that_word() -> None:
    df = {"upgrad": 4, "cluster": 9, "prod": 3, "search": 2, "api": 5, "site": 3, "instanc": 2}
    vocab = frozenset({"mid", "in", "non"})
    everyday = everyday_terms("mid-upgrade, in-cluster lookups on non-prod", df, vocab)
    assert {"mid-upgrade", "in-cluster", "non-prod"} <= everyday
    # ... and before an English suffix
    assert {"site-wide", "per-instance"} <= everyday_terms("site-wide per-instance", df, vocab)
    # no prefix: a compound of the runbooks' words names a thing of its own
    assert "search-api" not in everyday_terms("search-api is down", df, vocab)
    # a prefix before a word no runbook uses still leaves that word missing
    assert "mid-migration" not in everyday_terms("mid-migration", df, vocab)


@pytest.mark.parametrize(
    ("term", "absent"),
    [
        ("hosted-control-plane", 0.0),  # every part a runbook word: a phrase of their domain
        ("search-api", 0.0),
        ("cert-manager", 1.0),  # no runbook says "cert": something they never mention
        ("velero", 1.0),
    ],
)
def test_a_compound_of_runbook_words_is_not_missing_from_the_index(
    term: str, absent: float
) -> None:
    df = {"host": 3, "control": 5, "plane": 4, "search": 2, "api": 6, "manag": 3, "restart": 7}
    terms = (*tokenize(term), "restart")
    ev = gather_evidence(
        dense=0.6,
        terms=terms,
        doc_terms=frozenset({"restart"}),
        stats=TermStats(df, 10),
        everyday=frozenset(),
        unknown=(),
    )
    assert ev.absent == absent
    assert ev.coverage < 1.0  # the runbook still lacks the compound itself


def test_everyday_words_that_no_runbook_uses_do_not_count_as_missing() -> None:
    df = {"etcd": 3, "defrag": 1}
    vocab = frozenset({"wake", "morning", "defrag", "people"})
    assert everyday_terms("etcd defrag, wake people till morning", df, vocab) >= {"wake", "morn"}
    stats = TermStats(df, 10)
    ev = gather_evidence(
        dense=0.6,
        terms=("etcd", "defrag", "wake", "morn"),
        doc_terms=frozenset({"etcd", "defrag"}),
        stats=stats,
        everyday=frozenset({"wake", "morn"}),
        unknown=(),
    )
    assert ev.coverage == 1.0 and ev.absent == 0.0


def test_an_operation_asked_for_that_no_runbook_speaks_of_is_missing() -> None:
    """ "how do i upgrade the operator" of runbooks that never speak of upgrading: the
    task itself is missing, not an everyday word; spoken of as an event ("after the
    upgrade", "mid-upgrade"), it says when, not what to do."""
    df = {"oper": 4, "hypershift": 3}
    vocab = frozenset({"upgrade", "newer", "version", "tonight", "wake"})
    asked = everyday_terms("how do i upgrade the hypershift operator tonight", df, vocab)
    assert "upgrad" not in asked and "tonight" in asked
    for event in ("pods stuck after the upgrade", "mid-upgrade the pods got stuck"):
        assert "upgrad" in everyday_terms(event, df, vocab), event


def test_not_sure_covers_the_band_where_the_closest_runbooks_help() -> None:
    """Many questions no runbook answers score low; a band above them is weak but its
    closest runbooks often hold the answer. That band is "not sure", not "none", however
    many unanswerable questions sit below it."""

    def at(dense: float, answerable: bool, useful: bool) -> Sample:
        return Sample(Evidence(dense, 0.5, 0.0, 0.0, relevance=dense), answerable, False, useful)

    rng = random.Random(3)
    sets = {}
    for name in ("a", "b"):
        low = [at(rng.uniform(0.05, 0.3), False, False) for _ in range(40)]
        weak = [at(rng.uniform(0.42, 0.48), i % 3 == 0, i % 3 == 0) for i in range(10)]
        strong = [at(rng.uniform(0.75, 0.95), True, True) for _ in range(40)]
        sets[name] = low + weak + strong
    model = fit(sets)
    weak_p = [model.probability(s.evidence) for v in sets.values() for s in v[40:50]]
    low_p = [model.probability(s.evidence) for v in sets.values() for s in v[:40]]
    assert model.suggest_at <= min(weak_p) < model.answer_at
    assert sum(p < model.suggest_at for p in low_p) >= 0.8 * len(low_p)
