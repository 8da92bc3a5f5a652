"""Imports go one way: bot -> ingest -> retrieval -> core, and bot -> state -> core.
Only state talks to Redis."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

# what each package may import of ours (besides itself)
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "state": {"core"},
    "retrieval": {"core"},
    "ingest": {"core", "retrieval"},
    "bot": {"core", "state", "retrieval", "ingest"},
}


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_every_package_imports_only_the_packages_below_it() -> None:
    for package, allowed in ALLOWED.items():
        modules = sorted((ROOT / package).rglob("*.py"))
        assert modules, package
        for path in modules:
            ours = {m.split(".")[0] for m in imported(path)} & set(ALLOWED)
            assert ours - {package} <= allowed, (path, ours - {package} - allowed)


def test_only_state_talks_to_redis() -> None:
    for package in ("core", "retrieval", "ingest"):
        for path in sorted((ROOT / package).rglob("*.py")):
            assert "redis" not in {m.split(".")[0] for m in imported(path)}, path


def test_the_check_sees_a_wrong_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from bot.settings import Settings\nimport redis\n", encoding="utf-8")
    assert {"bot.settings", "redis"} <= imported(module)
