"""The answer format in every cache key: it moves with the answering code and settings."""

from __future__ import annotations

from pathlib import Path

from bot.answer_format import answer_format, answering_code_digest, source_digest
from bot.runtime import Runtime
from bot.settings import load_settings


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_source_digest_moves_with_any_change_to_the_code(tmp_path: Path) -> None:
    files = {"__init__.py": "", "composer.py": "WEIGHT = 0.25\n", "sub/intent.py": "X = 1\n"}
    base = source_digest([_package(tmp_path / "a", files)])
    assert source_digest([_package(tmp_path / "b", files)]) == base  # contents, not location
    edited = {**files, "composer.py": "WEIGHT = 0.3\n"}
    assert source_digest([_package(tmp_path / "c", edited)]) != base
    added = {**files, "pointers.py": ""}
    assert source_digest([_package(tmp_path / "d", added)]) != base
    moved = {"__init__.py": "", "composer2.py": "WEIGHT = 0.25\n", "sub/intent.py": "X = 1\n"}
    assert source_digest([_package(tmp_path / "e", moved)]) != base
    assert source_digest([_package(tmp_path / "f", {**files, "notes.txt": "x"})]) == base


def test_the_format_keeps_the_mode_readable_and_moves_with_the_settings() -> None:
    base = answer_format("extractive", ["answer_at=0.37"])
    assert base.startswith("extractive:")
    assert base == answer_format("extractive", ["answer_at=0.37"])
    assert answer_format("extractive", ["answer_at=0.5"]) != base
    assert answer_format("llm:gpt-4o-mini", ["answer_at=0.37"]) != base
    assert len(answering_code_digest()) == 64


def test_the_runtime_key_moves_with_the_calibration_and_the_glossary(tmp_path: Path) -> None:
    def mode(**overrides: object) -> str:
        return Runtime(load_settings(data_dir=tmp_path / "data", **overrides)).answer_mode

    base = mode()
    assert base == mode() and base.startswith("extractive:")
    assert mode(answer_min_confidence=0.5) != base
    glossary = tmp_path / "glossary.yaml"
    glossary.write_text("PG: PostgreSQL\n")
    with_pg = mode(glossary_path=glossary)
    assert with_pg.startswith("extractive:glossary:") and with_pg != base
    glossary.write_text("PG: PostgreSQL\nMQ: message queue\n")
    assert mode(glossary_path=glossary) != with_pg  # the file's entries, not only its path
    assert mode(glossary_path=tmp_path / "missing.yaml") == base  # no entries: no glossary
