"""The signal table: every signal can be switched off through the answer settings, the
answer still comes through ``answer()``, and each signal has example questions whose
answer it decides or moves, with it and without it (the sample runbooks)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from bot.runtime import Runtime
from core.models import Answer
from retrieval.answer.answer_config import CALIBRATED_MODEL, AnswerConfig
from retrieval.answer.confidence import FEATURES
from retrieval.answer.signals import SIGNALS
from retrieval.errors import UnknownSignalError

QUESTION = "checkout-api database connection refused"


def test_the_model_weighs_every_feature_of_the_table() -> None:
    assert tuple(s.name for s in SIGNALS if s.feature) == FEATURES
    assert len(CALIBRATED_MODEL.weights) == len(FEATURES)
    assert len({s.name for s in SIGNALS}) == len(SIGNALS)


def test_a_signal_not_in_the_table_cannot_be_switched_off() -> None:
    with pytest.raises(UnknownSignalError, match="no such signal: spell-check"):
        AnswerConfig(off=frozenset({"spell-check"}))


def test_a_weight_switched_off_is_zero() -> None:
    weights = AnswerConfig(off=frozenset({"symptoms", "intent"})).section_weights()
    assert weights.symptoms == weights.intent == 0.0
    assert weights.lexical == AnswerConfig().section_weights().lexical > 0.0


@pytest.mark.parametrize("name", [s.name for s in SIGNALS])
def test_every_signal_switched_off_still_answers(sample_runtime: Runtime, name: str) -> None:
    config = replace(sample_runtime.answer_config, off=frozenset({name}))
    answerer = sample_runtime.extractive.with_config(config)
    got = answerer.answer(QUESTION)
    assert got.state in ("answer", "unsure")
    assert any(
        c.path == "checkout-api/database-connection-failures.md"
        for c in (*got.citations, *got.suggestions)
    )


def test_switching_off_the_spelling_reads_the_question_as_typed(sample_runtime: Runtime) -> None:
    typo = "checkout-api databse conection refused"
    read = sample_runtime.extractive.answer(typo)
    assert read.read_as  # the typos were read as the runbooks' words
    config = replace(sample_runtime.answer_config, off=frozenset({"spelling"}))
    as_typed = sample_runtime.extractive.with_config(config).answer(typo)
    assert not as_typed.read_as


CHECKOUT = "checkout-api/database-connection-failures.md"
ORDERS = "orders/queue-backlog.md"


def answered_from(path: str) -> Callable[[Answer], bool]:
    return lambda a: a.state == "answer" and a.citations[0].path == path


def declined(a: Answer) -> bool:
    return a.state != "answer"


# signal, question, what the answer is with the signal, and without it
EXAMPLES = [
    ("written-names", "checkoutapidbconnectionerrors", answered_from(CHECKOUT), declined),
    ("long-forms", "pgbouncer crashlooping", answered_from(CHECKOUT), declined),
    ("absent", "zorblax orders queue backlog growing", declined, answered_from(ORDERS)),
    ("task_missing", "how do i decommission the orders queue", declined, answered_from(ORDERS)),
]


@pytest.mark.parametrize(("name", "question", "on", "off"), EXAMPLES)
def test_each_signal_decides_its_examples(
    sample_runtime: Runtime,
    name: str,
    question: str,
    on: Callable[[Answer], bool],
    off: Callable[[Answer], bool],
) -> None:
    without = replace(sample_runtime.answer_config, off=frozenset({name}))
    assert on(sample_runtime.extractive.answer(question))
    assert off(sample_runtime.extractive.with_config(without).answer(question))


# signal, question: the answer is surer with the signal (everyday words are no missing
# terms) or less sure (a name neither the runbooks nor the model know)
SURER = [
    ("everyday-words", "woke up to checkout-api database connection refused, culprit?", True),
    ("unknown", "istio sidecar not injected in checkout namespace", False),
    # the section's meaning read by the learned weighting: an on-topic question is surer
    ("relevance", "the checkout service cannot reach its postgres database", True),
]


@pytest.mark.parametrize(("name", "question", "surer"), SURER)
def test_each_signal_moves_how_sure_its_examples_are(
    sample_runtime: Runtime, name: str, question: str, surer: bool
) -> None:
    without = replace(sample_runtime.answer_config, off=frozenset({name}))
    on = sample_runtime.extractive.answer(question).confidence
    off = sample_runtime.extractive.with_config(without).answer(question).confidence
    assert (on > off) if surer else (on < off)
