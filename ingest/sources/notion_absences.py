"""How many syncs in a row each Notion database was not found (HTTP 404).

A database that answers 404 was deleted, or is no longer shared with the integration,
or a permission is being fixed right now. One 404 fails the sync and keeps the
database's pages; the same 404 on ``retire_after`` syncs in a row retires them. The
counts are kept in a small JSON file in the data dir (``notion-absences.json``), so
they add up across ``ingest`` runs; a database found again starts from zero.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ABSENCES_FILE = "notion-absences.json"
#: The same 404 on this many syncs in a row retires a database's pages.
DEFAULT_RETIRE_AFTER_SYNCS = 3


class Absences:
    """The counts of one data dir (``path`` None: kept in this process only)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._memory: dict[str, Any] = {}

    def _load(self) -> dict[str, Any]:
        if self.path is None:
            return self._memory
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return raw if isinstance(raw, dict) else {}

    def _save(self, data: dict[str, Any]) -> None:
        if self.path is None:
            self._memory = data
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path)

    @staticmethod
    def _key(source: str, database: str) -> str:
        return f"{source}/{database}"

    def missing(self, source: str, database: str, limit: int) -> int:
        """One more sync found ``database`` missing; how many in a row now, at most
        ``limit`` (a sync may read a source twice once the count has reached it)."""
        data = self._load()
        key = self._key(source, database)
        found = data.get(key)
        entry: dict[str, Any] = found if isinstance(found, dict) else {}
        count = min(int(entry.get("syncs", 0)) + 1, limit)
        since = str(entry.get("since") or datetime.now(UTC).isoformat(timespec="seconds"))
        data[key] = {"syncs": count, "since": since}
        self._save(data)
        return count

    def found(self, source: str, database: str) -> None:
        """``database`` answered: the count starts anew."""
        data = self._load()
        if data.pop(self._key(source, database), None) is not None:
            self._save(data)
