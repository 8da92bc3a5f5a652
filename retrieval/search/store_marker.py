"""The embedded store's published generation, in a small file inside the store directory.

The vector store writes it after every publish, so it travels with the store: a
store restored from a backup brings back its own, older marker. Reading it needs
no vector store client, which lets an unchanged ingest be recognised cheaply
while still agreeing with the store rather than with a record kept beside it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class StoreMarker:
    generation: int
    stamp: str  # unique per publish: equal stamps mean the very same published state


def marker_path(store_dir: Path, collection: str) -> Path:
    return store_dir / f"{collection}.generation.json"


def read_store_marker(store_dir: Path, collection: str) -> StoreMarker | None:
    try:
        raw = json.loads(marker_path(store_dir, collection).read_text(encoding="utf-8"))
        return StoreMarker(int(raw["generation"]), str(raw["stamp"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_store_marker(store_dir: Path, collection: str, marker: StoreMarker) -> None:
    path = marker_path(store_dir, collection)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(
        json.dumps({"generation": marker.generation, "stamp": marker.stamp}), encoding="utf-8"
    )
    os.replace(tmp, path)


def forget_store_marker(store_dir: Path, collection: str) -> None:
    marker_path(store_dir, collection).unlink(missing_ok=True)
