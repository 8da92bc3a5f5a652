"""The command line itself: one table of commands, the parser, and a cold start that
imports nothing heavy before a command runs. Each command's behaviour is tested in
tests/bot/commands/."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import bot.commands
from bot.cli import build_parser, main
from tests.conftest import ROOT

# what a command line must not pay for before a command runs
HEAVY = (
    "qdrant_client",
    "fastembed",
    "onnxruntime",
    "numpy",
    "bm25s",
    "slack_bolt",
    "slack_sdk",
    "starlette",
    "uvicorn",
    "openai",
    "jinja2",
    "redis",
    "pydantic",
    "pydantic_settings",
    "yaml",
    "bot.runtime",
    "bot.settings",
    "bot.slack",
    "bot.web",
    "retrieval",
    "ingest",
)

_LOADED = (
    "import json, sys; {setup}; "
    "print(json.dumps(sorted(m for m in sys.modules "
    "if any(m == h or m.startswith(h + '.') for h in {heavy!r}))))"
)


def _loaded_after(setup: str) -> list[str]:
    """The heavy modules loaded in a fresh interpreter after running ``setup``."""
    code = _LOADED.format(setup=setup, heavy=HEAVY)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return list(json.loads(done.stdout))


def test_building_the_parser_imports_no_heavy_module() -> None:
    assert _loaded_after("import bot.cli; bot.cli.build_parser()") == []


def test_parsing_an_ask_imports_no_heavy_module() -> None:
    setup = "import bot.cli; bot.cli.build_parser().parse_args(['ask', 'disk full', '--json'])"
    assert _loaded_after(setup) == []


def test_the_control_is_real_an_ask_module_run_needs_the_runtime() -> None:
    """The check above can fail: importing the runtime does load the heavy modules."""
    loaded = _loaded_after("import bot.runtime")
    assert "bot.runtime" in loaded and "redis" in loaded


def test_every_command_of_the_table_is_a_module_with_help_arguments_and_run() -> None:
    for name, path in bot.commands.COMMANDS.items():
        command = bot.commands.load(name)
        assert command.__name__ == path  # type: ignore[attr-defined]
        assert command.HELP and callable(command.add_arguments) and callable(command.run)


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for name in bot.commands.COMMANDS:
        assert re.search(rf"^\s+{name}\s+\S", text, re.M), name
        assert bot.commands.load(name).HELP in " ".join(text.split())


def test_every_readme_command_is_in_the_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `runbook-bot (\w+)", readme, re.M))
    assert documented == set(bot.commands.COMMANDS)


@pytest.mark.parametrize(
    "argv",
    [
        ["ingest", "runbooks", "--exclude", "drafts/**", "--check", "--reindex", "--json"],
        ["search", "q", "--k", "3", "--groups", "a,b", "--doc-type", "runbook", "--service", "s"],
        ["search", "q", "--json"],
        ["ask", "q", "--groups", "a,b", "--channel", "C1", "--json"],
        ["ask", "q", "--as-user", "U1"],
        ["eval", "QUESTIONS.jsonl", "--out", "OUT.jsonl", "--k", "10", "--root", "runbooks"],
        ["serve", "--port", "3000", "--host", "0.0.0.0", "--watch", "runbooks"],
        ["report", "stale", "--format", "json", "--post", "C1", "--days", "7"],
        ["report", "gaps", "--format", "slack"],
        ["cache", "stats"],
        ["cache", "clear"],
        ["model"],
    ],
)
def test_readme_command_lines_parse(argv: list[str]) -> None:
    common = ["--data-dir", "d", "--qdrant-url", "http://q:6333", "--model-path", "m"]
    args = build_parser().parse_args([*common, *argv, "--redis-url", "redis://r:6379/0"])
    assert args.command == argv[0]
    assert args.data_dir == Path("d") and args.redis_url == "redis://r:6379/0"


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate"],
        ["ask"],
        ["ask", "q", "--groups", "a", "--as-user", "U1"],  # one or the other
        ["eval", "q.jsonl"],  # --out is required
        ["cache", "flush"],
        ["report", "stale", "--days", "0"],
        ["report", "stale", "--format", "xml"],
    ],
)
def test_a_bad_command_line_exits_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert "usage: runbook-bot" in capsys.readouterr().err


def test_invalid_settings_exit_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUNBOOK_RRF_K", "many")
    assert main(["--data-dir", str(tmp_path), "cache", "stats"]) == 2
    assert "error: invalid settings:" in capsys.readouterr().err
