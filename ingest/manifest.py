"""A record of what the embedded index holds, so an unchanged ingest can skip the store.

Written after every ingest into an embedded (local mode) data dir: the index
generation and its publish stamp, the embedding model, each live document's content
hash, and the highest generation ever published from it. When a later run of a source
finds exactly the documents of that source that the manifest lists (the other sources'
entries do not matter), and the store's own generation marker (a file inside the
store, see :mod:`retrieval.store_marker`) still names the same generation and stamp,
nothing needs to happen and the vector store is not even opened (its client takes
seconds to import). A store restored from another time disagrees with the manifest
and gets a full sync. A server deployment always asks the server, since other writers
may have changed it.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ingest.sources.base import DEFAULT_SOURCE, owned
from retrieval.store_marker import StoreMarker

MANIFEST_FILE = "manifest.json"
LOCAL_LOCK_FILE = ".lock"  # the embedded Qdrant's exclusive flock


@dataclass(frozen=True)
class Manifest:
    generation: int
    model: str
    collection: str
    chunks: int
    documents: dict[str, str]  # source_id -> content hash
    stamp: str = ""  # the store's publish stamp at that generation
    # the highest generation this data dir has seen published: every later publish,
    # a rebuild's (``ingest --reindex``) too, goes above it, so cached answers of an
    # earlier index never share a key with a later one
    highest: int = 0

    @property
    def floor(self) -> int:
        return max(self.generation, self.highest)


def read_manifest(data_dir: Path) -> Manifest | None:
    try:
        raw = json.loads((data_dir / MANIFEST_FILE).read_text(encoding="utf-8"))
        return Manifest(
            generation=int(raw["generation"]),
            model=str(raw["model"]),
            collection=str(raw["collection"]),
            chunks=int(raw["chunks"]),
            documents={str(k): str(v) for k, v in dict(raw["documents"]).items()},
            stamp=str(raw.get("stamp", "")),
            highest=int(raw.get("highest", 0)),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_manifest(data_dir: Path, manifest: Manifest) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    tmp = data_dir / (MANIFEST_FILE + ".tmp")
    tmp.write_text(
        json.dumps(
            {
                "generation": manifest.generation,
                "model": manifest.model,
                "collection": manifest.collection,
                "chunks": manifest.chunks,
                "documents": manifest.documents,
                "stamp": manifest.stamp,
                "highest": manifest.floor,
            },
            sort_keys=True,
        ),
        encoding="utf-8",
    )
    os.replace(tmp, data_dir / MANIFEST_FILE)


def forget_manifest(data_dir: Path) -> None:
    (data_dir / MANIFEST_FILE).unlink(missing_ok=True)


def local_store_locked(store: Path) -> bool:
    """Is the embedded store held by another process right now?"""
    lock = store / LOCAL_LOCK_FILE
    if not lock.exists():
        return False
    try:
        with lock.open("r+") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(f, fcntl.LOCK_UN)
    except OSError:
        return True
    return False


def unchanged(
    manifest: Manifest | None,
    documents: Mapping[str, str],
    model: str,
    collection: str,
    store: StoreMarker | None,
    source: str = DEFAULT_SOURCE,
) -> bool:
    """Does the manifest show exactly ``documents`` as ``source``'s documents, and does
    the store agree with it?"""
    return (
        manifest is not None
        and store is not None
        and bool(manifest.stamp)
        and store == StoreMarker(manifest.generation, manifest.stamp)
        and manifest.model == model
        and manifest.collection == collection
        and owned(source, manifest.documents) == dict(documents)
    )
