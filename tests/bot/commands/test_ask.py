"""`runbook-bot ask`: the answer contract on the terminal and as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from bot.cli import build_parser, main, settings_from
from bot.commands import ask
from bot.runtime import Runtime
from bot.text import ALTERNATIVES, BEST_GUESS
from retrieval.answer.answer_config import CALIBRATED_MODEL, AnswerConfig
from retrieval.search.embeddings import FastEmbedder
from tests.conftest import ROOT, SAMPLE_RUNBOOKS, RedisServer, free_port


def test_ask_json_contract(
    sample_data_dir: Path, redis_server: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--data-dir", str(sample_data_dir), "--redis-url", redis_server.url, "ask"]
    assert main([*args, "elasticsearch cluster red unassigned shards", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    out = printed["answer"]
    assert out["state"] == "answer"
    assert printed["private"] is None
    step = printed["human_step"]  # always a human to turn to
    assert step["lead"] and step["contacts"] and step["contacts"][0]["label"]
    assert any(w["kind"] == "stale" for w in out["warnings"])
    c = out["citations"][0]
    original = (SAMPLE_RUNBOOKS / c["path"]).read_text(encoding="utf-8")
    assert original[c["start"] : c["end"]] == c["quote"]
    assert main([*args, "velero nightly backup ended PartiallyFailed", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    out = printed["answer"]
    assert out["state"] == "abstain" and out["reason"] and out["search_link"]
    assert printed["human_step"]["contacts"]  # a human even when no runbook answers
    assert out["citations"] == []


ANSWER_KEYS = {"state", "text", "citations", "warnings", "reason", "search_link"}


def test_ask_json_is_the_answer_models_serializer(
    sample_data_dir: Path, redis_server: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    from core.models import Answer

    args = ["--data-dir", str(sample_data_dir), "--redis-url", redis_server.url, "ask"]
    assert main([*args, "checkout-api database connection refused", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["answer"]
    assert set(data) >= ANSWER_KEYS
    assert Answer.model_validate_json(json.dumps(data)).model_dump(mode="json") == data


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


def asked_twice(
    data: Path,
    redis_url: str,
    embedder: FastEmbedder,
    capsys: pytest.CaptureFixture[str],
    question: str,
) -> dict[bool, list[pytest.CaptureResult[str]]]:
    """``runbook-bot ask question`` twice (a cache miss, then a hit), with every answer a
    best guess (True) and with none (False): what each printed."""
    argv = ["--data-dir", str(data), "--redis-url", redis_url]
    args = build_parser().parse_args([*argv, "ask", question])
    out: dict[bool, list[pytest.CaptureResult[str]]] = {}
    for guessing in (True, False):
        config = AnswerConfig(model=replace(CALIBRATED_MODEL, sure_at=1.0 if guessing else 0.0))
        rt = Runtime(settings_from(args), embedder=embedder, answer_config=config)
        try:
            printed = []
            for _ in range(2):
                assert ask.run(args, rt) == 0
                printed.append(capsys.readouterr())
            out[guessing] = printed
        finally:
            rt.close()
    return out


def test_ask_labels_a_best_guess_and_its_cached_copy(
    sample_data_dir: Path,
    redis_server: RedisServer,
    embedder: FastEmbedder,
    capsys: pytest.CaptureFixture[str],
) -> None:
    question = "checkout-api database connection refused"
    runs = asked_twice(sample_data_dir, redis_server.url, embedder, capsys, question)
    for labelled, printed in runs.items():
        for cache, shown in zip(("cache miss", "cache hit"), printed, strict=True):
            assert cache in shown.err  # the cached answer is labelled alike
            assert "checkout-api/database-connection-failures.md:" in shown.out
            assert (shown.out.splitlines()[0] == BEST_GUESS) is labelled
            assert (BEST_GUESS in shown.out) is labelled


def test_ask_names_the_next_closest_runbooks_under_a_best_guess_only(
    sample_data_dir: Path,
    redis_server: RedisServer,
    embedder: FastEmbedder,
    capsys: pytest.CaptureFixture[str],
) -> None:
    runs = asked_twice(sample_data_dir, redis_server.url, embedder, capsys, "disk full on node")
    for guessed, printed in runs.items():
        for shown in printed:  # the cached copy names them alike
            out = shown.out
            assert "platform/disk-full.md:" in out
            assert (ALTERNATIVES in out) is guessed
            assert ("[search/elasticsearch-cluster-red.md:" in out) is guessed
            if guessed:  # under the quotes
                assert out.index("platform/disk-full.md:") < out.index(ALTERNATIVES)


def test_ask_without_redis_still_answers(
    sample_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"
    argv = ["--data-dir", str(sample_data_dir), "--redis-url", dead, "ask", "disk full", "--json"]
    assert main(argv) == 0
    answer = json.loads(capsys.readouterr().out)["answer"]
    assert answer["state"] in {"answer", "unsure", "abstain"}


# what answering a question never needs: Slack, the web server and pages, an LLM client
NOT_FOR_ASKING = ("slack_bolt", "slack_sdk", "starlette", "uvicorn", "jinja2", "openai", "bot.web")

_COLD_ASK = """
import json, sys
from bot.cli import main
code = main(sys.argv[1:])
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {tops!r} or m.startswith("bot."))
sys.stderr.write("LOADED " + json.dumps([code, loaded]) + "\\n")
"""


def test_a_cold_ask_imports_only_the_query_path(
    sample_data_dir: Path, model_dir: Path, redis_server: RedisServer
) -> None:
    if not (sample_data_dir / "models").exists():
        (sample_data_dir / "models").symlink_to(model_dir)
    tops = {m.split(".")[0] for m in NOT_FOR_ASKING}
    argv = ["--data-dir", str(sample_data_dir), "--redis-url", redis_server.url, "ask"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNBOOK_", "OPENAI_"))}
    done = subprocess.run(
        [sys.executable, "-c", _COLD_ASK.format(tops=tops), *argv, "disk full", "--json"],
        capture_output=True,
        text=True,
        cwd=sample_data_dir.parent,  # no .env
        env={**env, "PYTHONPATH": str(ROOT)},
        timeout=300,
        check=False,
    )
    line = next(ln for ln in done.stderr.splitlines() if ln.startswith("LOADED "))
    code, loaded = json.loads(line.removeprefix("LOADED "))
    assert code == 0, done.stderr
    assert json.loads(done.stdout)["answer"]["state"] in {"answer", "unsure", "abstain"}
    heavy = [m for m in loaded if any(m == n or m.startswith(n + ".") for n in NOT_FOR_ASKING)]
    assert heavy == []
    assert "bot.runtime" in loaded  # the check sees what the query path did import


@pytest.mark.parametrize("command", ["ask", "search"])
@pytest.mark.parametrize("question", ["", "   ", " ? "])
def test_a_question_without_words_is_a_usage_error_not_closest_runbooks(
    sample_data_dir: Path, command: str, question: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--data-dir", str(sample_data_dir), command, question])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert "ask in words" in captured.err
    assert captured.out == ""  # no "closest runbooks" to nothing


def test_ask_ends_with_the_human_step_slack_and_the_web_show(
    sample_data_dir: Path,
    redis_server: RedisServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RUNBOOK_FALLBACK_CONTACT", "#sre-help")
    args = ["--data-dir", str(sample_data_dir), "--redis-url", redis_server.url, "ask"]
    assert main([*args, "checkout-api database connection refused"]) == 0
    assert "Who to call: Owner: @checkout-oncall" in capsys.readouterr().out
    assert main([*args, "ses bounce rate high email delivery failures what do i do"]) == 0
    shown = capsys.readouterr().out
    assert "Who to call: Ask: #sre-help\n  (No owner on record.)" in shown
    # nothing answers: still somebody to call
    assert main([*args, "velero nightly backup ended PartiallyFailed"]) == 0
    assert "Who to call: " in capsys.readouterr().out
