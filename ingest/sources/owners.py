"""Owner fallbacks: CODEOWNERS (last matching rule wins) and per-folder OWNERS files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pathspec
import yaml

from ingest.sources.files import inside_root

CODEOWNERS_LOCATIONS = ("CODEOWNERS", ".github/CODEOWNERS", "docs/CODEOWNERS")
OWNERS_FILE = "OWNERS"


@dataclass(frozen=True)
class _Rule:
    spec: pathspec.PathSpec
    owners: tuple[str, ...]


class OwnerResolver:
    def __init__(self, root: Path) -> None:
        self._root = root.resolve()
        self._rules = self._read_codeowners()
        self._owners_cache: dict[Path, tuple[str, ...] | None] = {}

    def _read_codeowners(self) -> list[_Rule]:
        for loc in CODEOWNERS_LOCATIONS:
            path = self._root / loc
            if path.is_file() and inside_root(path, self._root):
                rules = []
                for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
                    line = raw.split("#", 1)[0].strip()
                    if not line:
                        continue
                    pattern, *owners = line.split()
                    if owners:
                        spec = pathspec.PathSpec.from_lines("gitignore", [pattern])
                        rules.append(_Rule(spec, tuple(owners)))
                return rules
        return []

    def _folder_owners(self, folder: Path) -> tuple[str, ...] | None:
        if folder in self._owners_cache:
            return self._owners_cache[folder]
        found: tuple[str, ...] | None = None
        path = folder / OWNERS_FILE
        if path.is_file() and inside_root(path, self._root):
            found = _parse_owners_file(path.read_text(encoding="utf-8", errors="replace"))
        if found is None and folder != self._root and self._root in folder.parents:
            found = self._folder_owners(folder.parent)
        self._owners_cache[folder] = found
        return found

    def owner_for(self, rel: str) -> str | None:
        """Owners of a file (relative POSIX path), joined by ', '; None if nobody."""
        folder = (self._root / rel).parent
        local = self._folder_owners(folder)
        if local:
            return ", ".join(local)
        owners: tuple[str, ...] | None = None
        for rule in self._rules:
            if rule.spec.match_file(rel):
                owners = rule.owners
        return ", ".join(owners) if owners else None


def _parse_owners_file(text: str) -> tuple[str, ...] | None:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        data = None
    if isinstance(data, dict):
        names = data.get("approvers") or data.get("owners") or data.get("reviewers") or []
        found = tuple(str(n) for n in names if n)
        return found or None
    lines = [ln.split("#", 1)[0].strip() for ln in text.splitlines()]
    found = tuple(ln for ln in lines if ln)
    return found or None
