"""state never imports bot; the Redis helper itself imports nothing of the project, so
retrieval may use it without an import cycle; only state talks to Redis."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

STANDALONE = ("client", "health", "keys", "fail_soft", "local_copy")


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_state_never_imports_bot() -> None:
    modules = sorted((ROOT / "state").glob("*.py"))
    assert len(modules) > 5
    for path in modules:
        assert not {m for m in imported(path) if m.split(".")[0] == "bot"}, path


def test_the_helper_imports_nothing_of_the_project() -> None:
    for name in STANDALONE:
        ours = {
            m
            for m in imported(ROOT / "state" / f"{name}.py")
            if m.split(".")[0] in {"bot", "ingest", "retrieval"}
        }
        assert not ours, (name, ours)


def test_only_state_talks_to_redis() -> None:
    for package in ("retrieval", "ingest"):
        for path in sorted((ROOT / package).rglob("*.py")):
            assert "redis" not in {m.split(".")[0] for m in imported(path)}, path
    retrieval = {m for p in (ROOT / "retrieval").rglob("*.py") for m in imported(p)}
    assert {m for m in retrieval if m.startswith("state")} <= {"state.health"}
