"""The signal table: every signal can be switched off through the answer settings, and
the answer still comes through ``answer()``."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.runtime import Runtime
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
