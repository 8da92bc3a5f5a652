"""`runbook-bot search`: ranked documents with their best sections, text and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import SAMPLE_RUNBOOKS


def test_search_json_ranks_the_checkout_runbook(
    sample_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "--data-dir",
            str(sample_data_dir),
            "search",
            "checkout-api connection refused",
            "--json",
            "--k",
            "3",
        ]
    )
    assert code == 0
    docs = json.loads(capsys.readouterr().out)
    assert docs[0]["path"] == "checkout-api/database-connection-failures.md"
    assert docs[0]["sections"][0]["url"].startswith("https://")
    assert len(docs) <= 3


def test_search_groups_flag_filters(
    sample_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(
        [
            "--data-dir",
            str(sample_data_dir),
            "search",
            "break glass vault production database",
            "--json",
            "--groups",
            "everyone",
        ]
    )
    paths = [d["path"] for d in json.loads(capsys.readouterr().out)]
    assert "sre/break-glass-access.md" not in paths


SECTION_KEYS = {
    "section",
    "start",
    "end",
    "line",
    "dense_rank",
    "keyword_rank",
    "url",
    "owner",
    "updated",
}


def test_search_json_shape_is_the_documents_own_serializer(
    sample_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--data-dir", str(sample_data_dir), "search", "elasticsearch red", "--json"]
    assert main(argv) == 0
    docs = json.loads(capsys.readouterr().out)
    assert docs and all(set(d) == {"path", "title", "score", "sections"} for d in docs)
    sections = [s for d in docs for s in d["sections"]]
    assert sections and all(set(s) == SECTION_KEYS for s in sections)
    top = docs[0]["sections"][0]
    original = (SAMPLE_RUNBOOKS / docs[0]["path"]).read_text(encoding="utf-8")
    assert original.count("\n", 0, top["start"]) + 1 == top["line"]
    assert top["url"].endswith(f"#L{top['line']}") and "{line}" not in top["url"]
    assert top["updated"] is None or len(top["updated"]) == 10  # ISO date


def test_search_prints_ranked_documents(
    sample_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--data-dir", str(sample_data_dir), "search", "checkout-api connection refused"]
    assert main([*argv, "--k", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1. Checkout API: database connection failures - ")
    assert "[checkout-api/database-connection-failures.md:" in out
    assert "   owner " in out and "   > " in out
    assert "\n2. " in out and "\n3. " not in out


def test_search_with_nothing_readable_says_so(
    sample_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--data-dir", str(sample_data_dir), "search", "database", "--groups", "nobody"]
    assert main(argv) == 0
    assert capsys.readouterr().out == "no runbook matches this query\n"
