"""The dense side of the index: Qdrant, embedded (local mode) or a server by URL.

Qdrant is the source of truth: chunk payloads live here, the keyword index is
derived from them. New points are written *staged* (``live=false``) and become
searchable only when :meth:`QdrantVectorIndex.publish` flips them and removes
the versions they replace, then bumps the index generation. A run that fails
before publishing leaves the previous index searchable.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from retrieval.embeddings import Vectors
from retrieval.errors import (
    EmbeddingMismatchError,
    IndexLockedError,
    IndexUnavailableError,
    RetrievalError,
)
from retrieval.types import Chunk, SearchFilter

META_POINT_ID = 1
SCROLL_BATCH = 1024
UPSERT_BATCH = 256
T = TypeVar("T")


class VectorIndex(Protocol):
    def generation(self) -> int: ...

    def search(
        self, vector: Vectors, k: int, flt: SearchFilter | None
    ) -> list[tuple[Chunk, float]]: ...

    def count_live(self) -> int: ...

    def live_chunks(self) -> list[Chunk]: ...

    def ping(self) -> bool: ...


def point_id(chunk: Chunk) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{chunk.chunk_id}|{chunk.content_hash}"))


def build_filter(flt: SearchFilter | None, live: bool = True) -> qm.Filter:
    must: list[qm.Condition] = [qm.FieldCondition(key="live", match=qm.MatchValue(value=live))]
    if flt is not None:
        if flt.groups is not None:
            must.append(qm.FieldCondition(key="access", match=qm.MatchAny(any=list(flt.groups))))
        if flt.doc_types is not None:
            must.append(
                qm.FieldCondition(key="doc_type", match=qm.MatchAny(any=list(flt.doc_types)))
            )
        if flt.services is not None:
            must.append(qm.FieldCondition(key="service", match=qm.MatchAny(any=list(flt.services))))
    return qm.Filter(must=must)


def open_client(
    url: str | None, path: Path, api_key: str | None = None, timeout: int = 10
) -> QdrantClient:
    """A Qdrant client: a server by URL, else embedded local mode at ``path``."""
    try:
        if url:
            return QdrantClient(url=url, api_key=api_key, timeout=timeout)
        path.mkdir(parents=True, exist_ok=True)
        return QdrantClient(path=str(path))
    except RuntimeError as exc:
        if "already accessed" in str(exc):
            raise IndexLockedError(
                f"the index at {path} is in use by another runbook-bot process "
                "(embedded mode allows one process per data dir). Stop it, use "
                "`serve --watch` to re-ingest in-process, or run a Qdrant server "
                "(RUNBOOK_QDRANT_URL)."
            ) from exc
        raise IndexUnavailableError(f"cannot open the index: {exc}") from exc
    except Exception as exc:
        raise IndexUnavailableError(f"cannot open the index: {exc}") from exc


class QdrantVectorIndex:
    def __init__(
        self,
        client: QdrantClient,
        collection: str,
        shards: int = 1,
        replicas: int = 1,
    ) -> None:
        self._client = client
        self._collection = collection
        self._meta = f"{collection}__meta"
        self._shards = shards
        self._replicas = replicas
        self._lock = threading.RLock()

    @property
    def client(self) -> QdrantClient:
        return self._client

    def _call(self, fn: Callable[[], T]) -> T:
        with self._lock:
            try:
                return fn()
            except RetrievalError:
                raise
            except Exception as exc:
                raise IndexUnavailableError(f"vector store error: {exc}") from exc

    # -- collection and metadata -------------------------------------------------

    def _exists(self, name: str) -> bool:
        return bool(self._call(lambda: self._client.collection_exists(name)))

    def read_meta(self) -> dict[str, Any]:
        if not self._exists(self._meta):
            return {}
        points = self._call(
            lambda: self._client.retrieve(self._meta, ids=[META_POINT_ID], with_payload=True)
        )
        return dict(points[0].payload or {}) if points else {}

    def _write_meta(self, payload: Mapping[str, Any]) -> None:
        self._call(
            lambda: self._client.upsert(
                self._meta,
                points=[qm.PointStruct(id=META_POINT_ID, vector=[0.0], payload=dict(payload))],
                wait=True,
            )
        )

    def ensure(self, model_name: str, dimension: int) -> None:
        """Create the collections, or check they were built with this model."""
        meta = self.read_meta()
        if meta and self._exists(self._collection):
            if meta.get("model") != model_name or meta.get("dimension") != dimension:
                raise EmbeddingMismatchError(
                    f"the index was built with {meta.get('model')} "
                    f"({meta.get('dimension')} dims) but the configured model is "
                    f"{model_name} ({dimension} dims). Reindex into a fresh data dir "
                    "or collection (runbook-bot ingest --reindex DIR)."
                )
            return
        if not self._exists(self._meta):
            self._call(
                lambda: self._client.create_collection(
                    self._meta, vectors_config=qm.VectorParams(size=1, distance=qm.Distance.DOT)
                )
            )
        if not self._exists(self._collection):
            self._call(
                lambda: self._client.create_collection(
                    self._collection,
                    vectors_config=qm.VectorParams(size=dimension, distance=qm.Distance.COSINE),
                    shard_number=self._shards,
                    replication_factor=self._replicas,
                )
            )
            # payload indexes exist only on a server; local mode warns and ignores them
            local = type(getattr(self._client, "_client", None)).__name__ == "QdrantLocal"
            for field, schema in (
                ()
                if local
                else (
                    ("live", qm.PayloadSchemaType.BOOL),
                    ("access", qm.PayloadSchemaType.KEYWORD),
                    ("doc_type", qm.PayloadSchemaType.KEYWORD),
                    ("service", qm.PayloadSchemaType.KEYWORD),
                    ("source_id", qm.PayloadSchemaType.KEYWORD),
                    ("content_hash", qm.PayloadSchemaType.KEYWORD),
                )
            ):
                self._call(
                    lambda f=field, s=schema: self._client.create_payload_index(  # type: ignore[misc]
                        self._collection, field_name=f, field_schema=s
                    )
                )
        self._write_meta(
            {"model": model_name, "dimension": dimension, "generation": 0, "published_at": 0.0}
        )

    def drop(self) -> None:
        for name in (self._collection, self._meta):
            if self._exists(name):
                self._call(lambda n=name: self._client.delete_collection(n))  # type: ignore[misc]

    def generation(self) -> int:
        return int(self.read_meta().get("generation", 0))

    def ping(self) -> bool:
        try:
            self._call(lambda: self._client.get_collections())
        except IndexUnavailableError:
            return False
        return True

    # -- reads -------------------------------------------------------------------

    def _scroll(self, flt: qm.Filter, fields: Sequence[str] | bool) -> Iterator[dict[str, Any]]:
        if not self._exists(self._collection):
            return
        offset: Any = None
        while True:
            points, offset = self._call(
                lambda o=offset: self._client.scroll(  # type: ignore[misc]
                    self._collection,
                    scroll_filter=flt,
                    limit=SCROLL_BATCH,
                    offset=o,
                    with_payload=fields if isinstance(fields, bool) else list(fields),
                    with_vectors=False,
                )
            )
            for p in points:
                yield dict(p.payload or {})
            if offset is None:
                return

    def manifest(self) -> dict[str, str]:
        """Live documents: source_id -> content hash."""
        return {
            p["source_id"]: p["content_hash"]
            for p in self._scroll(build_filter(None), ["source_id", "content_hash"])
        }

    def count_live(self) -> int:
        if not self._exists(self._collection):
            return 0
        res = self._call(
            lambda: self._client.count(
                self._collection, count_filter=build_filter(None), exact=True
            )
        )
        return int(res.count)

    def live_chunks(self) -> list[Chunk]:
        return [Chunk.model_validate(p["chunk"]) for p in self._scroll(build_filter(None), True)]

    def live_points(self) -> list[tuple[Chunk, list[float]]]:
        """Live chunks with their vectors (for the in-memory dense mirror)."""
        if not self._exists(self._collection):
            return []
        out: list[tuple[Chunk, list[float]]] = []
        offset: Any = None
        while True:
            points, offset = self._call(
                lambda o=offset: self._client.scroll(  # type: ignore[misc]
                    self._collection,
                    scroll_filter=build_filter(None),
                    limit=SCROLL_BATCH,
                    offset=o,
                    with_payload=True,
                    with_vectors=True,
                )
            )
            for p in points:
                if p.payload is not None and isinstance(p.vector, list):
                    out.append((Chunk.model_validate(p.payload["chunk"]), list(p.vector)))  # type: ignore[arg-type]
            if offset is None:
                return out

    def search(
        self, vector: Vectors, k: int, flt: SearchFilter | None
    ) -> list[tuple[Chunk, float]]:
        if not self._exists(self._collection):
            return []
        res = self._call(
            lambda: self._client.query_points(
                self._collection,
                query=np.asarray(vector, dtype=np.float32).tolist(),
                query_filter=build_filter(flt),
                limit=k,
                with_payload=True,
            )
        )
        return [
            (Chunk.model_validate(p.payload["chunk"]), float(p.score))
            for p in res.points
            if p.payload
        ]

    # -- writes ------------------------------------------------------------------

    def discard_staged(self) -> None:
        """Remove points left staged by a run that never published."""
        if self._exists(self._collection):
            self._call(
                lambda: self._client.delete(
                    self._collection,
                    points_selector=qm.FilterSelector(filter=build_filter(None, live=False)),
                    wait=True,
                )
            )

    def stage(self, chunks: Sequence[Chunk], vectors: Vectors) -> None:
        for i in range(0, len(chunks), UPSERT_BATCH):
            batch = chunks[i : i + UPSERT_BATCH]
            points = [
                qm.PointStruct(
                    id=point_id(c),
                    vector=np.asarray(vectors[i + j], dtype=np.float32).tolist(),
                    payload={
                        "live": False,
                        "source_id": c.source_id,
                        "content_hash": c.content_hash,
                        "access": list(c.metadata.access),
                        "doc_type": c.metadata.doc_type,
                        "service": c.metadata.service,
                        "chunk": c.model_dump(mode="json"),
                    },
                )
                for j, c in enumerate(batch)
            ]
            self._call(
                lambda pts=points: self._client.upsert(self._collection, points=pts, wait=True)  # type: ignore[misc]
            )

    def publish(self, current: Mapping[str, str], removed: Sequence[str]) -> int:
        """Make staged points live, drop replaced and removed documents, bump generation.

        ``current`` maps every changed/added source_id to its new content hash.
        """
        touched = [*current.keys(), *removed]
        if touched:
            self._call(
                lambda: self._client.set_payload(
                    self._collection,
                    payload={"live": True},
                    points=qm.Filter(
                        must=[
                            qm.FieldCondition(key="live", match=qm.MatchValue(value=False)),
                            qm.FieldCondition(
                                key="content_hash", match=qm.MatchAny(any=list(current.values()))
                            ),
                        ]
                    ),
                    wait=True,
                )
            )
            self._call(
                lambda: self._client.delete(
                    self._collection,
                    points_selector=qm.FilterSelector(
                        filter=qm.Filter(
                            must=[
                                qm.FieldCondition(key="source_id", match=qm.MatchAny(any=touched))
                            ],
                            must_not=[
                                qm.FieldCondition(
                                    key="content_hash",
                                    match=qm.MatchAny(any=list(current.values()) or ["-"]),
                                )
                            ],
                        )
                    ),
                    wait=True,
                )
            )
        meta = self.read_meta()
        generation = int(meta.get("generation", 0)) + (1 if touched else 0)
        meta.update({"generation": generation, "published_at": time.time()})
        self._write_meta(meta)
        return generation
