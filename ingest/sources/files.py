"""Find the Markdown files under a folder, honouring .runbookignore and excludes.

A wiki's ``_Sidebar``, ``_Footer`` and ``_Header`` pages are no runbooks: the wiki shows
them around every page.

Only regular files inside the folder are read (symlinks are resolved and must stay
inside it); binary, oversized, non-UTF-8 and empty files are skipped with a reason.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pathspec

from core.markup import DOCUMENT_SUFFIXES, without_suffix
from ingest.sources.base import Skipped

IGNORE_FILE = ".runbookignore"
ALWAYS_SKIPPED_DIRS = frozenset({".git", "node_modules", ".venv", "__pycache__"})
# a wiki's (GitHub's, Gollum's) sidebar, footer and header frame every page of their
# folder: navigation and contact lines, no runbook of their own
WIKI_FRAMES = frozenset({"_sidebar", "_footer", "_header"})


@dataclass(frozen=True)
class SourceFile:
    path: Path  # absolute
    rel: str  # POSIX path relative to the root
    data: bytes


@dataclass(frozen=True)
class Scan:
    files: tuple[SourceFile, ...]
    skipped: tuple[Skipped, ...]


def inside_root(path: Path, root: Path) -> bool:
    """Does ``path``, with every symlink resolved, exist and stay inside ``root`` (resolved)?"""
    try:
        return path.resolve(strict=True).is_relative_to(root)
    except (OSError, RuntimeError):  # missing, or a symlink loop
        return False


def _ignore_spec(root: Path) -> pathspec.PathSpec:
    path = root / IGNORE_FILE
    readable = path.is_file() and inside_root(path, root)
    lines = path.read_text(encoding="utf-8").splitlines() if readable else []
    return pathspec.PathSpec.from_lines("gitignore", lines)


def _excluded(rel: str, excludes: Sequence[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(name, g) for g in excludes)


def check_content(rel: str, data: bytes, max_bytes: int) -> Skipped | None:
    """Why a file cannot be indexed, or None when it can."""
    if len(data) > max_bytes:
        return Skipped(rel, f"too large ({len(data)} bytes > {max_bytes})")
    if b"\x00" in data:
        return Skipped(rel, "binary file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return Skipped(rel, f"not UTF-8 (byte {exc.start})", line)
    if not text.strip():
        return Skipped(rel, "empty file")
    return None


def scan(root: Path, excludes: Sequence[str] = (), max_bytes: int = 1_000_000) -> Scan:
    root = root.resolve()
    spec = _ignore_spec(root)
    files: list[SourceFile] = []
    skipped: list[Skipped] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ALWAYS_SKIPPED_DIRS)
        for name in sorted(filenames):
            if not name.lower().endswith(DOCUMENT_SUFFIXES):
                continue
            if without_suffix(name).lower() in WIKI_FRAMES:
                continue
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            if spec.match_file(rel) or _excluded(rel, excludes):
                continue
            data = _read_inside(full, rel, root, max_bytes)
            if isinstance(data, Skipped):
                skipped.append(data)
                continue
            problem = check_content(rel, data, max_bytes)
            if problem is not None:
                skipped.append(problem)
                continue
            files.append(SourceFile(full, rel, data))
    return Scan(tuple(files), tuple(skipped))


def _read_inside(full: Path, rel: str, root: Path, max_bytes: int) -> bytes | Skipped:
    """The file's bytes, read only if it (after resolving links) is a regular file in the root.

    Too large files are refused before reading; at most ``max_bytes + 1`` bytes are read.
    """
    try:
        target = full.resolve(strict=True)
    except (OSError, RuntimeError):
        return Skipped(rel, "broken symlink or symlink loop")
    if not target.is_relative_to(root):
        return Skipped(rel, "symlink points outside the runbook root", keep_previous=False)
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        return Skipped(rel, f"unreadable: {exc.strerror}")
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            return Skipped(rel, "not a regular file")
        if info.st_size > max_bytes:
            return Skipped(rel, f"too large ({info.st_size} bytes > {max_bytes})")
        try:
            return f.read(max_bytes + 1)
        except OSError as exc:
            return Skipped(rel, f"unreadable: {exc.strerror}")
