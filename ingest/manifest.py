"""A record of what the embedded index holds, so an unchanged ingest can skip the store.

Written after every ingest into an embedded (local mode) data dir: the index
generation and its publish stamp, the embedding model, each live document's content
hash, and the highest generation ever published from it. When a later run of a source
finds exactly the documents of that source that the manifest lists (the other sources'
entries do not matter), and the store's own generation marker (a file inside the
store, see :mod:`retrieval.search.store_marker`) still names the same generation and stamp,
nothing needs to happen and the vector store is not even opened (its client takes
seconds to import). A store restored from another time disagrees with the manifest
and gets a full sync. A server deployment always asks the server, since other writers
may have changed it.

A publish is marked ``pending`` in the manifest before it starts: a run killed inside
it leaves the mark, and the next run syncs those documents again as changed (and
publishes them anew) instead of trusting what the store says it holds.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ingest.sources.base import DEFAULT_SOURCE, owned
from retrieval.search import StoreMarker

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
    # what a publish was started for and not seen to finish: source_id -> the content hash
    # it was publishing ("" for a removal). Until a later publish completes, the rest of
    # the record is not trusted for them: they are synced again as changed.
    pending: dict[str, str] = field(default_factory=dict)

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
            pending={str(k): str(v) for k, v in dict(raw.get("pending") or {}).items()},
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
                "pending": manifest.pending,
            },
            sort_keys=True,
        ),
        encoding="utf-8",
    )
    os.replace(tmp, data_dir / MANIFEST_FILE)


def mark_pending(data_dir: Path, touched: Mapping[str, str], model: str, collection: str) -> None:
    """Record, before a publish starts, what it is about to publish (``touched``: id ->
    content hash, "" for a removal); the record written after the publish clears it."""
    seen = read_manifest(data_dir) or Manifest(0, model, collection, 0, {})
    write_manifest(data_dir, replace(seen, pending={**seen.pending, **touched}))


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
    the store agree with it? Never while a publish it records as started may not have
    finished (``pending``)."""
    return (
        manifest is not None
        and not manifest.pending
        and store is not None
        and bool(manifest.stamp)
        and store == StoreMarker(manifest.generation, manifest.stamp)
        and manifest.model == model
        and manifest.collection == collection
        and owned(source, manifest.documents) == dict(documents)
    )
