"""A per-generation, in-memory view of the live index: BM25 and (local mode) dense rows.

Qdrant stays the source of truth. Each process derives a snapshot from the
live chunk payloads (and vectors) it holds, persists it next to the data dir
and reloads it while the generation is unchanged. In embedded local mode the
dense search runs over the snapshot's vector matrix: Qdrant's local mode is a
brute-force scan with a per-point Python payload filter, far slower than one
matrix product with a precomputed permission mask. With a Qdrant server the
dense search goes to the server, which has payload indexes.

A persisted snapshot is trusted only when ``checksums.json`` (written last) names
the store's generation and its publish stamp, and every file still has the
SHA-256 it was written with; anything else is rebuilt from the store.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

import numpy as np
import numpy.typing as npt

from core.markup import syntax_for
from core.models import Chunk, SearchFilter
from retrieval.reading import (
    TermStats,
    code_of,
    document_names,
    tokenize,
    typo_targets,
    written_in,
    written_names,
)
from retrieval.search.blas_threads import one_blas_thread
from retrieval.search.embeddings import Vectors
from retrieval.search.keyword_index import KeywordIndex
from retrieval.search.link_pages import is_link_list
from retrieval.search.site_pages import SitePages
from retrieval.search.template_headings import template_openers
from retrieval.search.template_text import template_fillers

if TYPE_CHECKING:
    from retrieval.search.store_handle import StoreHandle

log = logging.getLogger(__name__)
DENSE_FILE = "dense.npy"
CHECKSUM_FILE = "checksums.json"
T = TypeVar("T")
_MISSING = object()


@dataclass(frozen=True)
class Snapshot:
    generation: int
    keyword: KeywordIndex
    dense: npt.NDArray[np.float32] | None  # rows in keyword.chunks order, unit length

    @property
    def chunks(self) -> tuple[Chunk, ...]:
        return self.keyword.chunks

    @cached_property
    def doc_terms(self) -> dict[str, frozenset[str]]:
        """Every token of each live document (by source_id)."""
        terms: dict[str, set[str]] = {}
        for c in self.keyword.chunks:
            terms.setdefault(c.source_id, set()).update(tokenize(c.text))
        return {k: frozenset(v) for k, v in terms.items()}

    @cached_property
    def words(self) -> dict[str, int]:
        """Plain words of the live documents as written (lowercased, long enough to be
        misspelled): how many documents use each. Built on first use."""
        per_doc: dict[str, set[str]] = {}
        for c in self.keyword.chunks:
            per_doc.setdefault(c.source_id, set()).update(typo_targets(c.text))
        counts: dict[str, int] = {}
        for found in per_doc.values():
            for w in found:
                counts[w] = counts.get(w, 0) + 1
        return counts

    @cached_property
    def term_stats(self) -> TermStats:
        return TermStats.from_doc_terms(self.doc_terms)

    @cached_property
    def rows(self) -> dict[str, int]:
        """chunk_id -> row in ``chunks`` (and in the dense matrix)."""
        return {c.chunk_id: i for i, c in enumerate(self.keyword.chunks)}

    @cached_property
    def doc_types(self) -> frozenset[str]:
        """The document types of the live documents (runbook, incident, adr, …)."""
        return frozenset(c.metadata.doc_type for c in self.keyword.chunks)

    @cached_property
    def access_lists(self) -> frozenset[tuple[str, ...]]:
        """Each distinct access list of the live documents (who may read them)."""
        return frozenset(tuple(c.metadata.access) for c in self.keyword.chunks)

    @cached_property
    def revisions(self) -> dict[str, str]:
        """Live documents: source_id -> indexed revision."""
        return {c.source_id: c.metadata.revision for c in self.keyword.chunks}

    @cached_property
    def _matrix(self) -> npt.NDArray[np.float32] | None:
        """The dense rows as a plain array (a memory map's rows each cost a Python-level
        memmap object to index)."""
        return None if self.dense is None else np.asarray(self.dense)

    def dense_score(self, chunk_id: str, vector: Vectors) -> float | None:
        """Cosine of one live chunk with ``vector`` (None without the dense mirror)."""
        row = self.rows.get(chunk_id)
        matrix = self._matrix
        if matrix is None or row is None:
            return None
        return float(matrix[row] @ np.asarray(vector, dtype=np.float32))

    def dense_row(self, chunk_id: str) -> Vectors | None:
        """One live chunk's vector (None without the dense mirror)."""
        row = self.rows.get(chunk_id)
        matrix = self._matrix
        return None if matrix is None or row is None else matrix[row]

    @cached_property
    def _last_scores(self) -> list[tuple[bytes, npt.NDArray[np.float32]]]:
        return []  # the cosines of every row with the vector searched last

    def _scores(self, vector: Vectors) -> npt.NDArray[np.float32]:
        """The cosine of every row with ``vector``, one product over the whole matrix; an
        ask searches the runbooks and then the incident write-ups with the same vector,
        so the last one is kept (one vector's worth of memory). Never changed in place."""
        query = np.asarray(vector, dtype=np.float32)
        key = query.tobytes()
        last = self._last_scores
        found = last[0] if last else None
        if found is not None and found[0] == key:
            return found[1]
        assert self._matrix is not None
        scores: npt.NDArray[np.float32] = self._matrix @ query
        last[:] = [(key, scores)]
        return scores

    @cached_property
    def document_names(self) -> frozenset[str]:
        """Normalized titles, top headings and file names of live documents."""
        names: set[str] = set()
        for c in self.keyword.chunks:
            names |= document_names(c)
        return frozenset(names)

    def uses(self, word: str) -> bool:
        """Do the live documents use ``word``, every token of it (:func:`written_in`)?
        Asked of the lexicon's shorthand, long forms and compounds (a fixed list), for
        every question: kept per generation."""
        return self._kept("uses", word, lambda: written_in(self.term_stats.doc_freq)(word))

    def names_of(self, chunk: Chunk) -> frozenset[str]:
        """What the document of a live chunk is called (:func:`document_names`: its
        title, top heading, file name), once per chunk and generation."""
        return self._kept("names", chunk.chunk_id, lambda: document_names(chunk))

    @cached_property
    def code(self) -> str:
        """The code of the live documents (:func:`code_of`): the tools their commands can
        show. Built on first use, when a question asks for a tool's command."""
        chunks = self.keyword.chunks
        return "\n".join(code_of(syntax_for(c.path).as_markdown(c.text)) for c in chunks)

    @cached_property
    def openers(self) -> frozenset[str]:
        """The headings the index's own template opens its runbooks with
        (:mod:`retrieval.search.template_headings`), once per generation."""
        return template_openers(self.chunks)

    @cached_property
    def fillers(self) -> frozenset[str]:
        """The section texts the index's template repeats word for word in many of its
        runbooks (:mod:`retrieval.search.template_text`), once per generation."""
        return template_fillers(self.chunks)

    @cached_property
    def titles(self) -> frozenset[str]:
        """The titles of live documents. Built on first use."""
        return frozenset(c.title for c in self.keyword.chunks if c.title)

    @cached_property
    def written_names(self) -> dict[str, str]:
        """Identifier names of the live documents as written, by normalized name. Built
        on first use."""
        return written_names(self.keyword.chunks)

    @cached_property
    def _memo(self) -> dict[tuple[str, str], object]:
        return {}  # (kind, key) -> what was worked out about a live document or word

    def _kept(self, kind: str, key: str, build: Callable[[], T]) -> T:
        """``build()``, worked out on first use and kept as long as this snapshot (one
        index generation): no question pays for it twice, and memory stays bounded by
        the index."""
        memo = self._memo
        found = memo.get((kind, key), _MISSING)
        if found is _MISSING:
            found = memo[(kind, key)] = build()
        return cast(T, found)

    def per_document(self, kind: str, source_id: str, build: Callable[[], T]) -> T:
        """What the layers above work out about one live document from its chunks alone
        (its outline, the runbooks a file collects: ``kind`` names it), once per
        generation."""
        return self._kept(f"document:{kind}", source_id, build)

    def is_link_page(self, source_id: str) -> bool:
        """Is this live document mostly links (an index, not an answer)? Worked out once
        per document and generation, on first use."""
        chunks = self.chunks_by_source.get(source_id, [])
        return self._kept("link-page", source_id, lambda: is_link_list(chunks))

    @cached_property
    def site_pages(self) -> SitePages:
        """The documents by the address their site serves them at (links by address)."""
        return SitePages(self.chunks_by_source)

    @cached_property
    def chunks_by_source(self) -> dict[str, list[Chunk]]:
        out: dict[str, list[Chunk]] = {}
        for c in self.keyword.chunks:
            out.setdefault(c.source_id, []).append(c)
        return out

    def dense_search(
        self, vector: Vectors, k: int, flt: SearchFilter | None
    ) -> list[tuple[Chunk, float]]:
        if self.dense is None or len(self.dense) == 0 or k <= 0:
            return []
        scores = self._scores(vector)
        eligible = self.keyword.eligible(flt)
        if eligible is not None:
            if not eligible.any():
                return []
            scores = np.where(eligible, scores, -np.inf)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        chunks = self.keyword.chunks
        return [(chunks[i], float(scores[i])) for i in top.tolist() if np.isfinite(scores[i])]


def _sha256(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _files(directory: Path) -> list[Path]:
    return sorted(
        p
        for p in directory.rglob("*")
        if p.is_file() and p.name != CHECKSUM_FILE and ".tmp" not in p.name
    )


def write_checksums(directory: Path, generation: int, stamp: str) -> None:
    """Record every snapshot file's SHA-256 with the generation they belong to."""
    record = {
        "generation": generation,
        "stamp": stamp,
        "files": {p.relative_to(directory).as_posix(): _sha256(p) for p in _files(directory)},
    }
    tmp = directory / (CHECKSUM_FILE + ".tmp")
    tmp.write_text(json.dumps(record, sort_keys=True), encoding="utf-8")
    os.replace(tmp, directory / CHECKSUM_FILE)


def checksums_match(directory: Path, generation: int, stamp: str) -> bool:
    """Are the files in ``directory`` exactly those written for ``generation``/``stamp``?"""
    try:
        record = json.loads((directory / CHECKSUM_FILE).read_text(encoding="utf-8"))
        if record.get("generation") != generation or record.get("stamp") != stamp:
            return False
        files = dict(record["files"])
        for rel, digest in files.items():
            if _sha256(directory / rel) != digest:
                log.warning("snapshot file %s does not match its checksum", rel)
                return False
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    return bool(files)


class SnapshotCache:
    """Keeps one snapshot in step with the vector store's generation."""

    def __init__(self, vectors: StoreHandle, directory: Path | None, mirror_dense: bool) -> None:
        self._vectors = vectors
        self._dir = directory
        self._mirror = mirror_dense
        if mirror_dense:  # the dense search is a numpy product (see blas_threads)
            one_blas_thread()
        self._snapshot: Snapshot | None = None
        self._lock = threading.Lock()

    @property
    def mirrors_dense(self) -> bool:
        return self._mirror

    def get(self, generation: int) -> Snapshot:
        with self._lock:
            if self._snapshot is not None and self._snapshot.generation == generation:
                return self._snapshot
            stamp = self._stamp(generation)
            snap = self._load(generation, stamp) or self._build(generation, stamp)
            self._snapshot = snap
            return snap

    def peek(self, generation: int) -> Snapshot | None:
        """The snapshot of ``generation`` if it is held or persisted, without keeping a
        loaded one or building one from the store (an ingest reading the live vectors)."""
        with self._lock:
            if self._snapshot is not None and self._snapshot.generation == generation:
                return self._snapshot
            return self._load(generation, self._stamp(generation))

    def _stamp(self, generation: int) -> str:
        """The store's stamp for ``generation`` ("" when another one is published)."""
        marker = self._vectors.marker()
        return marker.stamp if marker.generation == generation else ""

    def _load(self, generation: int, stamp: str) -> Snapshot | None:
        if self._dir is None or not checksums_match(self._dir, generation, stamp):
            return None
        loaded = KeywordIndex.load(self._dir)
        if loaded is None or loaded[1] != generation:
            return None
        index = loaded[0]
        dense = None
        if self._mirror:
            try:  # mapped, not read: pages come in as searches touch them
                dense = np.load(self._dir / DENSE_FILE, mmap_mode="r")
            except (OSError, ValueError):
                return None
            if dense.shape[0] != index.size:
                return None
        return Snapshot(generation, index, dense)

    def _build(self, generation: int, stamp: str) -> Snapshot:
        log.info("building search snapshot for generation %d", generation)
        # in chunk id order, whatever order the store returns points in: ties in either
        # ranking then break the same way in every process
        if self._mirror:
            found, vectors = self._vectors.live_points(generation)
            order = sorted(range(len(found)), key=lambda i: found[i].chunk_id)
            chunks = [found[i] for i in order]
            dense = vectors[order] if len(order) else vectors
            del found, vectors
            if len(dense):
                dense /= np.maximum(np.linalg.norm(dense, axis=1, keepdims=True), 1e-12)
        else:
            chunks = sorted(self._vectors.live_chunks(generation), key=lambda c: c.chunk_id)
            dense = None
        snap = Snapshot(generation, KeywordIndex(chunks), dense)
        if self._dir is not None:
            self._dir.mkdir(parents=True, exist_ok=True)
            (self._dir / CHECKSUM_FILE).unlink(missing_ok=True)
            if dense is not None:
                tmp = self._dir / "dense.tmp.npy"
                np.save(tmp, dense)
                tmp.replace(self._dir / DENSE_FILE)
            else:
                (self._dir / DENSE_FILE).unlink(missing_ok=True)
            snap.keyword.save(self._dir, generation)
            write_checksums(self._dir, generation, stamp)
        return snap
