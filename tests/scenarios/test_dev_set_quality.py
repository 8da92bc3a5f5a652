"""Retrieval and answer quality on the shared dev corpus must not regress.

Ingests the public prometheus-operator runbooks with the real model and runs
the same code path as ``runbook-bot eval``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import SHARED_CORPUS


def metric(printed: str, name: str) -> float:
    line = next(ln for ln in printed.splitlines() if ln.startswith(name))
    return float(line.split()[1])


def test_dev_set_recall_mrr_and_verbatim_quotes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert SHARED_CORPUS.is_dir(), f"dev corpus missing at {SHARED_CORPUS}"
    data = str(tmp_path / "data")
    assert main(["--data-dir", data, "ingest", str(SHARED_CORPUS)]) == 0
    capsys.readouterr()
    out = tmp_path / "out.jsonl"
    questions = SHARED_CORPUS / "eval.jsonl"
    assert main(["--data-dir", data, "eval", str(questions), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    print(printed)
    assert metric(printed, "recall@5") >= 0.92
    assert metric(printed, "MRR@10") >= 0.78
    assert "answered quotes verbatim 100.0%" in printed
    f1 = float(printed.split("F1")[1].split()[0])
    assert f1 >= 0.7
    traps = next(ln for ln in printed.splitlines() if ln.startswith("traps answered"))
    assert int(traps.split()[-1].split("/")[0]) <= 1, traps
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == len(questions.read_text().splitlines())
    # an unchanged second ingest embeds nothing
    assert main(["--data-dir", data, "ingest", str(SHARED_CORPUS), "--json"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["chunks_embedded"] == 0 and report["unchanged"] >= 100
