"""`runbook-bot cache stats|clear` against a real redis-server, and a down one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import RedisServer, free_port


def test_stats_json_counts_a_miss_then_a_hit(
    sample_data_dir: Path, redis_server: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--data-dir", str(sample_data_dir), "--redis-url", redis_server.url]
    assert main([*common, "cache", "stats"]) == 0
    before = json.loads(capsys.readouterr().out)
    assert before["available"] is True and before["keys"] == 0
    assert {"hits", "misses", "keys", "available"} <= set(before)
    for _ in range(2):
        assert main([*common, "ask", "elasticsearch cluster red unassigned shards"]) == 0
    capsys.readouterr()
    assert main([*common, "cache", "stats"]) == 0
    after = json.loads(capsys.readouterr().out)
    assert after["keys"] == 1
    assert (after["hits"], after["misses"]) == (before["hits"] + 1, before["misses"] + 1)

    assert main([*common, "cache", "clear"]) == 0
    assert capsys.readouterr().out == "removed 1 cached answers\n"
    assert main([*common, "cache", "stats"]) == 0
    assert json.loads(capsys.readouterr().out)["keys"] == 0


def test_stats_exit_1_when_redis_is_down(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"
    assert main(["--data-dir", str(tmp_path), "--redis-url", dead, "cache", "stats"]) == 1
    assert json.loads(capsys.readouterr().out)["available"] is False
