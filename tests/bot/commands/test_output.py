"""The one output module: streams, exit codes, and JSON through the values' serializers."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date

import pytest

from bot.commands import output
from core.models import AnswerWarning
from ingest.sources.base import Skipped
from ingest.sync import IngestReport
from state.answer_cache import CacheStats


def test_exit_codes_are_distinct_and_conventional() -> None:
    codes = {
        "ok": output.EXIT_OK,
        "failed": output.EXIT_FAILED,
        "usage": output.EXIT_USAGE,  # what argparse exits with on a bad command line
        "skipped": output.EXIT_SKIPPED,
        "interrupted": output.EXIT_INTERRUPTED,
    }
    assert codes == {"ok": 0, "failed": 1, "usage": 2, "skipped": 3, "interrupted": 130}


def test_results_on_stdout_diagnostics_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    output.out("result")
    output.error("broken")
    output.warning("odd")
    output.note("fyi")
    captured = capsys.readouterr()
    assert captured.out == "result\n"
    assert captured.err == "error: broken\nwarning: odd\nnote: fyi\n"


def test_one_line_joins_a_multi_line_message() -> None:
    assert output.one_line("Error 111\n  connecting to  redis\n") == "Error 111 connecting to redis"


def test_json_of_a_pydantic_model_is_its_model_dump(capsys: pytest.CaptureFixture[str]) -> None:
    w = AnswerWarning(kind="stale", message="Updated 400 days ago — review it")
    output.print_json(w)
    printed = capsys.readouterr().out
    assert json.loads(printed) == w.model_dump(mode="json")
    assert "—" in printed  # not escaped


def test_json_of_a_dataclass_is_asdict(capsys: pytest.CaptureFixture[str]) -> None:
    output.print_json(CacheStats(hits=2, misses=1, keys=3, available=True), indent=None)
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1
    assert json.loads(printed) == {
        "hits": 2,
        "misses": 1,
        "keys": 3,
        "available": True,
        "local_hits": 0,
        "local_misses": 0,
    }


def test_a_types_own_to_json_wins(capsys: pytest.CaptureFixture[str]) -> None:
    report = IngestReport(
        added=("a.md",),
        skipped=(Skipped("b.md", "invalid YAML front matter", line=3),),
        live={"a": "hash"},
        seconds=1.23456,
        generation=4,
    )
    output.print_json(report)
    data = json.loads(capsys.readouterr().out)
    assert data["skipped"] == ["b.md:3: invalid YAML front matter"]
    assert data["seconds"] == 1.235 and data["generation"] == 4
    assert "live" not in data  # internal bookkeeping stays out


def test_lists_dates_and_nested_values(capsys: pytest.CaptureFixture[str]) -> None:
    @dataclass(frozen=True)
    class Row:
        updated: date

    output.print_json([Row(date(2024, 5, 1)), AnswerWarning(kind="ownerless", message="m")])
    assert json.loads(capsys.readouterr().out) == [
        {"updated": "2024-05-01"},
        {"kind": "ownerless", "message": "m", "source_id": None},
    ]
