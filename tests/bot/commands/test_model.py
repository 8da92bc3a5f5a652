"""`runbook-bot model`: the embedding model and where it loads from."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main


def test_model_prints_name_dimension_and_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--data-dir", str(tmp_path), "model"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("sentence-transformers/all-MiniLM-L6-v2: 384 dimensions, loaded from ")
    assert str(tmp_path) in out  # the offline copy, assembled under the data dir
