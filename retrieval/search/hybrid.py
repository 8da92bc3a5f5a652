"""Hybrid search: dense (Qdrant) and keyword (BM25) fused with RRF, grouped by document."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.models import Chunk, DocumentHits, Hit, SearchFilter
from retrieval.errors import IndexUnavailableError
from retrieval.reading import document_names, query_names, with_long_forms
from retrieval.search.embeddings import Embedder, Vectors
from retrieval.search.fusion import DEFAULT_RRF_K, rrf
from retrieval.search.snapshot import Snapshot, SnapshotCache

if TYPE_CHECKING:
    from retrieval.search.vector_index import VectorIndex

log = logging.getLogger(__name__)

DEFAULT_CANDIDATES = 50
SECTIONS_PER_DOCUMENT = 3


@dataclass(frozen=True)
class SearchConfig:
    rrf_k: int = DEFAULT_RRF_K
    candidates: int = DEFAULT_CANDIDATES


def group_by_document(
    hits: Sequence[Hit],
    per_doc: int = SECTIONS_PER_DOCUMENT,
    names: frozenset[str] = frozenset(),
    name_bonus: float = 0.0,
    names_of: Callable[[Chunk], frozenset[str]] = document_names,
) -> list[DocumentHits]:
    """Hits grouped per document; a document named by the query gets ``name_bonus``
    (``names_of``: what a chunk's document is called, :func:`document_names`)."""
    groups: dict[str, list[Hit]] = {}
    for h in hits:
        groups.setdefault(h.chunk.source_id, []).append(h)
    docs = []
    for sid, hs in groups.items():
        hs.sort(key=lambda h: -h.fused_score)
        first = hs[0].chunk
        # best section decides; further matching sections add a little
        score = hs[0].fused_score + 0.25 * sum(h.fused_score for h in hs[1:per_doc])
        if names and names & names_of(first):
            score += name_bonus
        docs.append(
            DocumentHits(
                source_id=sid,
                path=first.path,
                title=first.title,
                score=score,
                hits=tuple(hs[:per_doc]),
            )
        )
    docs.sort(key=lambda d: -d.score)
    return docs


class HybridSearcher:
    def __init__(
        self,
        embedder: Embedder,
        vectors: VectorIndex,
        snapshots: SnapshotCache,
        config: SearchConfig | None = None,
    ) -> None:
        self._embedder = embedder
        self._vectors = vectors
        self._snapshots = snapshots
        self._config = config or SearchConfig()

    @property
    def embedder(self) -> Embedder:
        return self._embedder

    def generation(self) -> int:
        return self._vectors.generation()

    def snapshot(self, generation: int | None = None) -> Snapshot:
        return self._snapshots.get(self.generation() if generation is None else generation)

    def vectors_of(self, chunk_ids: Sequence[str], generation: int) -> dict[str, Vectors]:
        """These live chunks' vectors, by chunk id: from the in-memory mirror, else from
        the store (a server's). A store that cannot say gives none: what needs them falls
        back to the cosine it has."""
        if self._snapshots.mirrors_dense:
            snap = self.snapshot(generation)
            found = ((cid, snap.dense_row(cid)) for cid in chunk_ids)
            return {cid: v for cid, v in found if v is not None}
        try:
            return self._vectors.vectors_of(chunk_ids, generation)
        except IndexUnavailableError as exc:
            log.warning("the store gave no vectors for the candidates (%s): plain cosine", exc)
            return {}

    def search_chunks(
        self,
        query: str,
        flt: SearchFilter | None = None,
        dense_vector: Vectors | None = None,
        generation: int | None = None,
    ) -> list[Hit]:
        """Fused chunk hits, best first (filters applied inside both searches)."""
        n = self._config.candidates
        gen = self.generation() if generation is None else generation
        snap = self.snapshot(gen)
        vector = self._embedder.embed_query(query) if dense_vector is None else dense_vector
        if self._snapshots.mirrors_dense:
            dense = snap.dense_search(vector, n, flt)
        else:
            dense = self._vectors.search(vector, n, flt)
        # "prod" finds "production" too; the dense model reads shorthand as it is typed
        keyword = snap.keyword.search(with_long_forms(query, snap.uses), n, flt)
        chunks: dict[str, Chunk] = {}
        dense_scores: dict[str, float] = {}
        kw_scores: dict[str, float] = {}
        for c, s in dense:
            chunks[c.chunk_id] = c
            dense_scores[c.chunk_id] = s
        for c, s in keyword:
            chunks.setdefault(c.chunk_id, c)
            kw_scores[c.chunk_id] = s
        fused = rrf(
            [[c.chunk_id for c, _ in dense], [c.chunk_id for c, _ in keyword]], self._config.rrf_k
        )
        return [
            Hit(
                chunk=chunks[f.key],
                dense_rank=f.ranks[0],
                dense_score=dense_scores.get(f.key),
                keyword_rank=f.ranks[1],
                keyword_score=kw_scores.get(f.key),
                fused_score=f.score,
            )
            for f in fused
        ]

    def search(
        self,
        query: str,
        k: int = 10,
        flt: SearchFilter | None = None,
        dense_vector: Vectors | None = None,
    ) -> list[DocumentHits]:
        return self.group(query, self.search_chunks(query, flt, dense_vector))[:k]

    def group(
        self, query: str, hits: Sequence[Hit], named: frozenset[str] = frozenset()
    ) -> list[DocumentHits]:
        """Documents, best first; one the query names outright ranks as if first in a list.
        ``named``: normalized names the query gave in another form (an alert name read as
        the title it spells)."""
        bonus = 1.0 / (self._config.rrf_k + 1)
        snap = self.snapshot()
        stats = snap.term_stats
        names = query_names(query, stats.doc_freq, stats.n_docs) | named
        return group_by_document(hits, names=names, name_bonus=bonus, names_of=snap.names_of)
