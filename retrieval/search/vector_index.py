"""The dense side of the index: Qdrant, embedded (local mode) or a server by URL.

Qdrant is the source of truth: chunk payloads live here, the keyword index is
derived from them.

Which points are live is decided by one value, the generation in the meta
collection. Each point records the generation it was published in (``born``)
and, once replaced or removed, the generation it stopped being live in
(``retired``); a point is live at generation G when ``born <= G`` and it has no
``retired <= G``. :meth:`QdrantVectorIndex.publish` stages a new generation
N = G + 1 without changing what G shows (new points get ``born = N``, the
versions they replace get ``retired = N``), then switches every reader to N by
writing the meta point: a single write. Only after that are retired points
deleted. A crash before the switch leaves G exactly as it was, and the next
ingest rolls the unfinished generation back (:meth:`QdrantVectorIndex.recover`);
a crash after it leaves N complete, and the next ingest deletes the leftovers.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
import numpy.typing as npt
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from core.models import Chunk, SearchFilter
from retrieval.errors import (
    EmbeddingMismatchError,
    IndexLockedError,
    IndexUnavailableError,
    RetrievalError,
)
from retrieval.search.embeddings import Vectors
from retrieval.search.store_marker import StoreMarker, forget_store_marker, write_store_marker

META_POINT_ID = 1
SCHEMA = 2  # 1: a boolean ``live`` payload flag; 2: ``born`` / ``retired`` generations
STAGED = 2**62  # ``born`` of points written by a run that has not published them yet
SCROLL_BATCH = 1024
UPSERT_BATCH = 256
T = TypeVar("T")


class VectorIndex(Protocol):
    def generation(self) -> int: ...

    def search(
        self, vector: Vectors, k: int, flt: SearchFilter | None
    ) -> list[tuple[Chunk, float]]: ...

    def count_live(self) -> int: ...

    def vectors_of(
        self, chunk_ids: Sequence[str], generation: int | None = None
    ) -> dict[str, Vectors]: ...

    def live_chunks(self) -> list[Chunk]: ...

    def ping(self) -> bool: ...


def _new_stamp() -> str:
    return uuid.uuid4().hex


def live_at(generation: int) -> list[qm.Condition]:
    """The ``must`` conditions of the points live at ``generation`` (with ``must_not``
    :func:`_retired_by` of it)."""
    return [qm.FieldCondition(key="born", range=qm.Range(lte=generation))]


def _retired_by(generation: int) -> qm.Condition:
    return qm.FieldCondition(key="retired", range=qm.Range(lte=generation))


def build_filter(flt: SearchFilter | None, generation: int) -> qm.Filter:
    """The points live at ``generation`` that ``flt`` lets through."""
    must: list[qm.Condition] = live_at(generation)
    if flt is not None:
        if flt.groups is not None:
            must.append(qm.FieldCondition(key="access", match=qm.MatchAny(any=list(flt.groups))))
        if flt.doc_types is not None:
            must.append(
                qm.FieldCondition(key="doc_type", match=qm.MatchAny(any=list(flt.doc_types)))
            )
        if flt.services is not None:
            must.append(qm.FieldCondition(key="service", match=qm.MatchAny(any=list(flt.services))))
    return qm.Filter(must=must, must_not=[_retired_by(generation)])


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
            raise IndexLockedError.at(path) from exc
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
        marker_dir: Path | None = None,
    ) -> None:
        """``marker_dir``: the embedded store's directory, where every publish leaves
        its generation marker (:mod:`retrieval.search.store_marker`)."""
        self._client = client
        self._collection = collection
        self._meta = f"{collection}__meta"
        self._shards = shards
        self._replicas = replicas
        self._marker_dir = marker_dir
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

    def _is_local(self) -> bool:
        return type(getattr(self._client, "_client", None)).__name__ == "QdrantLocal"

    def _payload_indexes(self, fields: Sequence[tuple[str, qm.PayloadSchemaType]]) -> None:
        if self._is_local():  # payload indexes exist only on a server; local mode ignores them
            return
        for field, schema in fields:
            self._call(
                lambda f=field, s=schema: self._client.create_payload_index(  # type: ignore[misc]
                    self._collection, field_name=f, field_schema=s
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
            if meta.get("schema") != SCHEMA:
                self._migrate(meta)
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
            self._payload_indexes(
                (
                    ("born", qm.PayloadSchemaType.INTEGER),
                    ("retired", qm.PayloadSchemaType.INTEGER),
                    ("access", qm.PayloadSchemaType.KEYWORD),
                    ("doc_type", qm.PayloadSchemaType.KEYWORD),
                    ("service", qm.PayloadSchemaType.KEYWORD),
                    ("source_id", qm.PayloadSchemaType.KEYWORD),
                    ("content_hash", qm.PayloadSchemaType.KEYWORD),
                )
            )
        self._write_meta(
            {
                "model": model_name,
                "dimension": dimension,
                "generation": 0,
                "published_at": 0.0,
                "schema": SCHEMA,
                "stamp": _new_stamp(),
            }
        )

    def _migrate(self, meta: dict[str, Any]) -> None:
        """From the ``live`` flag to generations: unpublished points go, live ones are
        live since generation 0."""
        unborn = qm.IsEmptyCondition(is_empty=qm.PayloadField(key="born"))
        self._delete(
            qm.Filter(
                must=[unborn, qm.FieldCondition(key="live", match=qm.MatchValue(value=False))]
            )
        )
        self._call(
            lambda: self._client.set_payload(
                self._collection, payload={"born": 0}, points=qm.Filter(must=[unborn]), wait=True
            )
        )
        self._payload_indexes(
            (("born", qm.PayloadSchemaType.INTEGER), ("retired", qm.PayloadSchemaType.INTEGER))
        )
        self._write_meta({**meta, "schema": SCHEMA, "stamp": meta.get("stamp") or _new_stamp()})

    def drop(self) -> None:
        for name in (self._collection, self._meta):
            if self._exists(name):
                self._call(lambda n=name: self._client.delete_collection(n))  # type: ignore[misc]
        if self._marker_dir is not None:
            forget_store_marker(self._marker_dir, self._collection)

    def generation(self) -> int:
        return int(self.read_meta().get("generation", 0))

    def marker(self) -> StoreMarker:
        """The published generation and its unique stamp."""
        meta = self.read_meta()
        return StoreMarker(int(meta.get("generation", 0)), str(meta.get("stamp", "")))

    def ping(self) -> bool:
        try:
            self._call(lambda: self._client.get_collections())
        except IndexUnavailableError:
            return False
        return True

    # -- reads (always of one generation: the published one unless given) -------

    def _live(self, flt: SearchFilter | None, generation: int | None) -> qm.Filter:
        return build_filter(flt, self.generation() if generation is None else generation)

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
        """Live documents: source_id -> content hash.

        A document with chunks of two versions live at once (left by an interrupted
        publish of an older release) maps to ``""``, so the next ingest replaces it.
        Documents without chunks are recorded in the meta point.
        """
        meta = self.read_meta()
        generation = int(meta.get("generation", 0))
        found: dict[str, str] = {}
        for p in self._scroll(build_filter(None, generation), ["source_id", "content_hash"]):
            sid, digest = p["source_id"], p["content_hash"]
            found[sid] = digest if found.get(sid, digest) == digest else ""
        hollow = {str(k): str(v) for k, v in dict(meta.get("hollow") or {}).items()}
        return {**hollow, **found}

    def count_live(self) -> int:
        if not self._exists(self._collection):
            return 0
        flt = self._live(None, None)
        res = self._call(lambda: self._client.count(self._collection, count_filter=flt, exact=True))
        return int(res.count)

    def live_chunks(self, generation: int | None = None) -> list[Chunk]:
        flt = self._live(None, generation)
        return [Chunk.model_validate(p["chunk"]) for p in self._scroll(flt, True)]

    def live_points(
        self, generation: int | None = None
    ) -> tuple[list[Chunk], npt.NDArray[np.float32]]:
        """Live chunks and their vectors (a row each, in the same order), for the
        in-memory dense mirror. Vectors go straight into one float32 matrix, page by
        page: never a Python float per dimension for the whole store."""
        chunks: list[Chunk] = []
        pages: list[npt.NDArray[np.float32]] = []
        if not self._exists(self._collection):
            return chunks, np.zeros((0, 0), dtype=np.float32)
        flt = self._live(None, generation)
        offset: Any = None
        while True:
            points, offset = self._call(
                lambda o=offset: self._client.scroll(  # type: ignore[misc]
                    self._collection,
                    scroll_filter=flt,
                    limit=SCROLL_BATCH,
                    offset=o,
                    with_payload=True,
                    with_vectors=True,
                )
            )
            rows = [
                (Chunk.model_validate(p.payload["chunk"]), p.vector)
                for p in points
                if p.payload is not None and isinstance(p.vector, list)
            ]
            if rows:
                chunks.extend(c for c, _ in rows)
                pages.append(np.asarray([v for _, v in rows], dtype=np.float32))
            if offset is None:
                break
        if not pages:
            return chunks, np.zeros((0, 0), dtype=np.float32)
        return chunks, np.concatenate(pages)

    def search(
        self, vector: Vectors, k: int, flt: SearchFilter | None, generation: int | None = None
    ) -> list[tuple[Chunk, float]]:
        if not self._exists(self._collection):
            return []
        query_filter = self._live(flt, generation)
        res = self._call(
            lambda: self._client.query_points(
                self._collection,
                query=np.asarray(vector, dtype=np.float32).tolist(),
                query_filter=query_filter,
                limit=k,
                with_payload=True,
            )
        )
        return [
            (Chunk.model_validate(p.payload["chunk"]), float(p.score))
            for p in res.points
            if p.payload
        ]

    def vectors_of(
        self, chunk_ids: Sequence[str], generation: int | None = None
    ) -> dict[str, Vectors]:
        """The vectors of these live chunks, by chunk id: a server's, for the few
        candidates an answer weighs (an embedded store's are mirrored in memory)."""
        wanted = list(dict.fromkeys(chunk_ids))
        if not wanted or not self._exists(self._collection):
            return {}
        flt = qm.Filter(
            must=[
                self._live(None, generation),
                qm.FieldCondition(key="chunk.chunk_id", match=qm.MatchAny(any=wanted)),
            ]
        )
        points, _ = self._call(
            lambda: self._client.scroll(
                self._collection,
                scroll_filter=flt,
                limit=len(wanted),
                with_payload=True,
                with_vectors=True,
            )
        )
        return {
            str(p.payload["chunk"]["chunk_id"]): np.asarray(p.vector, dtype=np.float32)
            for p in points
            if p.payload is not None and isinstance(p.vector, list)
        }

    # -- writes ------------------------------------------------------------------

    def _delete(self, flt: qm.Filter) -> None:
        if self._exists(self._collection):
            self._call(
                lambda: self._client.delete(
                    self._collection, points_selector=qm.FilterSelector(filter=flt), wait=True
                )
            )

    def recover(self) -> None:
        """Undo what an interrupted run left behind, before a new run starts.

        Staged points and a generation that was never switched to are deleted, the
        retirement marks of that generation are lifted, and the points a finished
        publish retired are deleted. What readers see does not change.
        """
        meta = self.read_meta()
        generation = int(meta.get("generation", 0))
        self._delete(qm.Filter(must=[qm.FieldCondition(key="born", range=qm.Range(gt=generation))]))
        changed = False
        if meta.get("publishing") is not None:
            self._call(
                lambda: self._client.delete_payload(
                    self._collection,
                    keys=["retired"],
                    points=qm.Filter(
                        must=[qm.FieldCondition(key="retired", range=qm.Range(gt=generation))]
                    ),
                    wait=True,
                )
            )
            meta.pop("publishing")
            changed = True
        if meta.get("collect") is not None:
            self._delete(qm.Filter(must=[_retired_by(generation)]))
            meta.pop("collect")
            changed = True
        if changed:
            self._write_meta(meta)

    def stage(self, chunks: Sequence[Chunk], vectors: Vectors) -> None:
        """Write points that no reader sees until :meth:`publish`."""
        for i in range(0, len(chunks), UPSERT_BATCH):
            batch = chunks[i : i + UPSERT_BATCH]
            points = [
                qm.PointStruct(
                    id=str(uuid.uuid4()),
                    vector=np.asarray(vectors[i + j], dtype=np.float32).tolist(),
                    payload={
                        "born": STAGED,
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

    def publish(
        self,
        current: Mapping[str, str],
        removed: Sequence[str],
        hollow: Mapping[str, str] | None = None,
        floor: int = 0,
    ) -> int:
        """Make the staged points live in a new generation, replacing every earlier
        version of the documents in ``current`` and removing ``removed``.

        ``current`` maps every changed/added source_id to its new content hash;
        ``hollow`` the ones among them that have no chunks. The new generation is above
        ``floor`` (the highest generation this data has been seen at). Returns the
        published generation (unchanged when nothing was touched).
        """
        touched = [*current.keys(), *removed]
        meta = self.read_meta()
        old = int(meta.get("generation", 0))
        if not touched:
            return old
        new = max(old, floor) + 1
        self._write_meta({**meta, "publishing": new})
        self._promote(new)
        self._retire(touched, old, new)
        kept = {k: v for k, v in dict(meta.get("hollow") or {}).items() if k not in set(touched)}
        marker = self._switch(meta, new, {**kept, **dict(hollow or {})})
        if self._marker_dir is not None:
            write_store_marker(self._marker_dir, self._collection, marker)
        self._collect(new)
        return new

    def _promote(self, new: int) -> None:
        self._call(
            lambda: self._client.set_payload(
                self._collection,
                payload={"born": new},
                points=qm.Filter(
                    must=[qm.FieldCondition(key="born", match=qm.MatchValue(value=STAGED))]
                ),
                wait=True,
            )
        )

    def _retire(self, touched: Sequence[str], old: int, new: int) -> None:
        self._call(
            lambda: self._client.set_payload(
                self._collection,
                payload={"retired": new},
                points=qm.Filter(
                    must=[
                        qm.FieldCondition(key="source_id", match=qm.MatchAny(any=list(touched))),
                        *live_at(old),
                    ],
                    must_not=[_retired_by(old)],
                ),
                wait=True,
            )
        )

    def _switch(self, meta: Mapping[str, Any], new: int, hollow: Mapping[str, str]) -> StoreMarker:
        """The one write that moves every reader to ``new``."""
        marker = StoreMarker(new, _new_stamp())
        payload = {k: v for k, v in meta.items() if k != "publishing"}
        payload.update(
            {
                "generation": new,
                "stamp": marker.stamp,
                "published_at": time.time(),
                "hollow": dict(hollow),
                "collect": new,
            }
        )
        self._write_meta(payload)
        return marker

    def _collect(self, new: int) -> None:
        """Delete the points retired by ``new``; nobody reads them any more."""
        self._delete(qm.Filter(must=[_retired_by(new)]))
        meta = self.read_meta()
        meta.pop("collect", None)
        self._write_meta(meta)
