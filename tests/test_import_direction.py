"""Imports go one way: bot -> ingest -> retrieval -> core, and bot -> state -> core.
Only state talks to Redis. Inside retrieval the rooms stand on one another (answer ->
search -> reading), and bot and ingest use retrieval only through its public API."""

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


# what bot and ingest may import of retrieval: the rooms' faces and two top-level modules
RETRIEVAL_API = {
    "retrieval",
    "retrieval.search",
    "retrieval.reading",
    "retrieval.answer",
    "retrieval.errors",
    "retrieval.permissions",
}

# the rooms of retrieval and the rooms each may import (through their faces)
ROOMS: dict[str, set[str]] = {
    "reading": set(),
    "search": {"reading"},
    "answer": {"search", "reading"},
}


def handed_on(folder: Path) -> set[str]:
    """The names a package's face lists in ``__all__``."""
    face = folder / "__init__.py"
    if not face.is_file():
        return set()
    for node in ast.parse(face.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return {e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant)}
    return set()


def imported_modules(path: Path) -> set[str]:
    """Like :func:`imported`, and ``from package import module`` names the module (a name
    the package's face hands on, like ``tokenize`` of retrieval.reading, is a name)."""
    names = imported(path)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            folder = ROOT.joinpath(*node.module.split("."))
            for alias in node.names:
                is_module = (folder / f"{alias.name}.py").is_file() or (
                    folder / alias.name
                ).is_dir()
                if is_module and alias.name not in handed_on(folder):
                    names.add(f"{node.module}.{alias.name}")
    return names


def deep_imports(path: Path) -> set[str]:
    """The modules of retrieval that ``path`` imports past its public API."""
    ours = {m for m in imported_modules(path) if m.split(".")[0] == "retrieval"}
    return ours - RETRIEVAL_API


def test_bot_and_ingest_use_retrieval_only_through_its_public_api() -> None:
    for package in ("bot", "ingest"):
        for path in sorted((ROOT / package).rglob("*.py")):
            assert not deep_imports(path), (path, deep_imports(path))


def test_the_rooms_of_retrieval_import_downward_through_faces() -> None:
    for path in sorted((ROOT / "retrieval").rglob("*.py")):
        parts = path.relative_to(ROOT / "retrieval").parts
        room = parts[0] if len(parts) > 1 else None  # None: errors, permissions, the face
        allowed = ROOMS.get(room or "", set())
        for module in imported_modules(path):
            names = module.split(".")
            if names[0] != "retrieval" or len(names) < 2 or names[1] not in ROOMS:
                continue
            if names[1] == room:
                continue
            assert room is not None and names[1] in allowed, (path, module)
            assert len(names) == 2, (path, module)  # another room only through its face


def test_the_check_sees_a_deep_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from retrieval.answer import Answerer\n"
        "from retrieval.search.snapshot import Snapshot\n"
        "from retrieval.search import snapshot\n",
        encoding="utf-8",
    )
    assert deep_imports(module) == {"retrieval.search.snapshot"}


def test_only_state_talks_to_redis() -> None:
    for package in ("core", "retrieval", "ingest"):
        for path in sorted((ROOT / package).rglob("*.py")):
            assert "redis" not in {m.split(".")[0] for m in imported(path)}, path


def test_the_check_sees_a_wrong_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from bot.settings import Settings\nimport redis\n", encoding="utf-8")
    assert {"bot.settings", "redis"} <= imported(module)
