"""`runbook-bot eval`: the quality numbers and one line per question."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import SAMPLE_RUNBOOKS

QUESTIONS = Path(__file__).resolve().parents[2] / "fixtures" / "sample_questions.jsonl"


def test_eval_writes_ranked_lines(
    sample_data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    code = main(
        [
            "--data-dir",
            str(sample_data_dir),
            "eval",
            str(QUESTIONS),
            "--out",
            str(out),
            "--root",
            str(SAMPLE_RUNBOOKS),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "recall@5" in printed and "MRR@10" in printed and "abstention" in printed
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == len(QUESTIONS.read_text().splitlines())
    keys = {"id", "ranked", "answered", "state", "reason", "cited", "section_hit", "lead_hit"}
    keys |= {"confidence", "sure", "suggested", "text"}
    assert all(set(r) == keys for r in rows)
    answered = [r for r in rows if r["answered"]]
    assert answered and all(r["cited"] and r["state"] == "answer" for r in answered)
    assert all(len(c) == 4 and c[2] < c[3] for r in answered for c in r["cited"])
    assert "section_hit" in printed and "lead_hit" in printed
    assert all(len(r["ranked"]) == len(set(r["ranked"])) <= 10 for r in rows)
    recall5 = float(next(ln for ln in printed.splitlines() if ln.startswith("recall@5")).split()[1])
    assert recall5 >= 0.9
    assert "answered quotes verbatim 100.0%" in printed
