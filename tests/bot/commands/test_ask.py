"""`runbook-bot ask`: the answer contract on the terminal and as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import SAMPLE_RUNBOOKS, RedisServer


def test_ask_json_contract(
    sample_data_dir: Path, redis_server: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--data-dir", str(sample_data_dir), "--redis-url", redis_server.url, "ask"]
    assert main([*args, "elasticsearch cluster red unassigned shards", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["state"] == "answer"
    assert any(w["kind"] == "stale" for w in out["warnings"])
    c = out["citations"][0]
    original = (SAMPLE_RUNBOOKS / c["path"]).read_text(encoding="utf-8")
    assert original[c["start"] : c["end"]] == c["quote"]
    assert main([*args, "velero nightly backup ended PartiallyFailed", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["state"] == "abstain" and out["reason"] and out["search_link"]
    assert out["citations"] == []


ANSWER_KEYS = {"state", "text", "citations", "warnings", "reason", "search_link"}


def test_ask_json_is_the_answer_models_serializer(
    sample_data_dir: Path, redis_server: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    from retrieval.types import Answer

    args = ["--data-dir", str(sample_data_dir), "--redis-url", redis_server.url, "ask"]
    assert main([*args, "checkout-api database connection refused", "--json"]) == 0
    printed = capsys.readouterr().out
    data = json.loads(printed)
    assert set(data) >= ANSWER_KEYS
    assert Answer.model_validate_json(printed).model_dump(mode="json") == data  # round trip


def test_ask_prints_quotes_owner_and_age(
    sample_data_dir: Path, redis_server: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--data-dir", str(sample_data_dir), "--redis-url", redis_server.url, "ask"]
    assert main([*args, "checkout-api database connection refused"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("[")
    assert "checkout-api/database-connection-failures.md:" in captured.out
    assert "  | " in captured.out and "owner @checkout-oncall | updated " in captured.out
    assert "cache miss" in captured.err
    assert main([*args, "checkout-api database connection refused"]) == 0
    assert "cache hit" in capsys.readouterr().err


def test_ask_without_redis_still_answers(
    sample_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.conftest import free_port

    dead = f"redis://127.0.0.1:{free_port()}/0"
    argv = ["--data-dir", str(sample_data_dir), "--redis-url", dead, "ask", "disk full", "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["state"] in {"answer", "unsure", "abstain"}
