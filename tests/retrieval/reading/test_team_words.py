"""A team's own words: its chat shorthand names nothing, its systems' English names do."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.runtime import Runtime
from bot.settings import load_settings
from retrieval.reading import WordsFileError, load_team_words
from retrieval.reading.evidence import unknown_entities
from retrieval.reading.lexicon import Lexicon


def test_a_team_word_is_ordinary_and_a_team_product_is_a_name(tmp_path: Path) -> None:
    path = tmp_path / "words.yaml"
    path.write_text("ordinary: [zorblaxed]\nproducts: [Ledger]\n", encoding="utf-8")
    team = load_team_words(path)
    question = "ledger zorblaxed again after the deploy"
    assert unknown_entities(question, {}, Lexicon(dictionary=True)) == ["zorblaxed"]
    assert unknown_entities(question, {}, Lexicon(team=team)) == ["ledger"]


def test_the_runtime_reads_the_words_file(
    tmp_path: Path, sample_data_dir: Path, embedder: object
) -> None:
    path = tmp_path / "words.yaml"
    path.write_text("ordinary: [zorblaxed]\n", encoding="utf-8")
    question = "checkout-api zorblaxed: database connection refused, what do i do"
    plain = Runtime(load_settings(data_dir=sample_data_dir), embedder=embedder)  # type: ignore[arg-type]
    try:
        assert plain.extractive.retrieve(question).question.unknown == ("zorblaxed",)
        before = plain.answer_mode
    finally:
        plain.close()
    settings = load_settings(data_dir=sample_data_dir, words_path=path)
    team = Runtime(settings, embedder=embedder)  # type: ignore[arg-type]
    try:
        assert team.extractive.retrieve(question).question.unknown == ()
        assert team.answer_mode != before  # cached answers of the old words are not reused
    finally:
        team.close()


@pytest.mark.parametrize(
    "text",
    ["ordinary: brb\n", "names: [x]\n", "- brb\n", "ordinary: [1]\n", "ordinary: [\n"],
)
def test_a_malformed_words_file_says_what_is_wrong(tmp_path: Path, text: str) -> None:
    path = tmp_path / "words.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(WordsFileError, match=str(path)):
        load_team_words(path)


def test_no_file_adds_nothing(tmp_path: Path) -> None:
    assert not load_team_words(None)
    assert not load_team_words(tmp_path / "missing.yaml")
