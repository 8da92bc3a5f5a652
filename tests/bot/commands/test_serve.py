"""`runbook-bot serve` refuses to start, exit 2 and a clear message, when it cannot work.

Serving itself is tested end to end in tests/scenarios and tests/web (a subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

_SLACK_ENV = ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN")


def serve(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("RUNBOOK_") and k not in _SLACK_ENV and k != "REDIS_URL"
    }
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", "--data-dir", str(tmp_path / "d"), "serve", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # no .env
        env={**clean, "PYTHONPATH": str(ROOT), **env},
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("env", "args", "message"),
    [
        ({}, (), "error: SLACK_BOT_TOKEN is not set"),
        ({"SLACK_BOT_TOKEN": "xoxb-1"}, (), "error: SLACK_SIGNING_SECRET is not set"),
        (
            {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s"},
            ("--watch", "missing-dir"),
            "error: --watch missing-dir is not a directory",
        ),
    ],
)
def test_serve_usage_errors_exit_2(
    tmp_path: Path, env: dict[str, str], args: tuple[str, ...], message: str
) -> None:
    done = serve(tmp_path, *args, **env)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_watch_without_a_folder_needs_a_sources_file(tmp_path: Path) -> None:
    done = serve(tmp_path, "--watch", SLACK_BOT_TOKEN="xoxb-1", SLACK_SIGNING_SECRET="s")
    assert done.returncode == 2, done.stderr
    assert "--watch without a folder needs a sources file (RUNBOOK_SOURCES_PATH)" in done.stderr


def test_watch_without_a_folder_watches_every_source(tmp_path: Path) -> None:
    from bot.commands.serve import WATCH_SOURCES, _watched
    from bot.runtime import Runtime
    from bot.settings import load_settings

    for name in ("payments", "checkout"):
        (tmp_path / name).mkdir()
    sources = tmp_path / "sources.yaml"
    sources.write_text(
        "sources:\n"
        "  - {name: payments, kind: markdown_dir, path: payments}\n"
        "  - {name: checkout, kind: markdown_dir, path: checkout}\n",
        encoding="utf-8",
    )
    rt = Runtime(load_settings(data_dir=tmp_path / "d", sources_path=sources))
    watched = _watched(WATCH_SOURCES, rt)
    assert not isinstance(watched, str)
    assert [s.name for s in watched] == ["payments", "checkout"]
    assert {s.watch_path for s in watched} == {tmp_path / "payments", tmp_path / "checkout"}
    folder = _watched(tmp_path / "payments", rt)
    assert not isinstance(folder, str) and [s.name for s in folder] == ["runbooks"]


def test_watch_dot_is_the_current_folder_not_every_source() -> None:
    from bot.cli import build_parser
    from bot.commands.serve import WATCH_SOURCES

    parser = build_parser()
    assert parser.parse_args(["serve", "--watch", "."]).watch == Path(".")
    assert parser.parse_args(["serve", "--watch"]).watch is WATCH_SOURCES
    assert parser.parse_args(["serve"]).watch is None
