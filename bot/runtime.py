"""The composition root: builds the collaborators from Settings, once, lazily."""

from __future__ import annotations

import threading
from functools import cached_property

from bot.settings import Settings
from ingest.documents import DocumentConfig
from ingest.sync import IngestOptions, Ingestor
from retrieval.answer_config import AnswerConfig
from retrieval.answerer import ExtractiveAnswerer
from retrieval.embeddings import FastEmbedder
from retrieval.search import HybridSearcher, SearchConfig
from retrieval.snapshot import SnapshotCache
from retrieval.vector_index import QdrantVectorIndex, open_client


class Runtime:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()

    @cached_property
    def embedder(self) -> FastEmbedder:
        s = self.settings
        return FastEmbedder(
            s.embedding_model,
            model_path=s.embedding_model_path,
            cache_dir=s.model_cache_dir,
            threads=s.embedding_threads,
        )

    @cached_property
    def vector_index(self) -> QdrantVectorIndex:
        s = self.settings
        key = s.qdrant_api_key.get_secret_value() if s.qdrant_api_key else None
        client = open_client(s.qdrant_url, s.qdrant_local_path, key)
        return QdrantVectorIndex(client, s.collection, s.qdrant_shards, s.qdrant_replicas)

    @cached_property
    def snapshots(self) -> SnapshotCache:
        s = self.settings
        return SnapshotCache(self.vector_index, s.keyword_dir, mirror_dense=s.qdrant_url is None)

    @cached_property
    def searcher(self) -> HybridSearcher:
        s = self.settings
        return HybridSearcher(
            self.embedder,
            self.vector_index,
            self.snapshots,
            SearchConfig(rrf_k=s.rrf_k, candidates=s.search_candidates),
        )

    @cached_property
    def answer_config(self) -> AnswerConfig:
        s = self.settings
        base = AnswerConfig()
        return AnswerConfig(
            stale_after_days=s.stale_after_days,
            min_confidence=(
                s.abstain_min_confidence
                if s.abstain_min_confidence is not None
                else base.min_confidence
            ),
            search_link_template=s.search_link_template,
        )

    @cached_property
    def extractive(self) -> ExtractiveAnswerer:
        return ExtractiveAnswerer(
            self.searcher, self.answer_config, vocabulary=self.embedder.vocabulary()
        )

    @cached_property
    def ingestor(self) -> Ingestor:
        return Ingestor(self.embedder, self.vector_index, self.snapshots)

    def ingest_options(
        self, excludes: tuple[str, ...] = (), progress: bool = False
    ) -> IngestOptions:
        s = self.settings
        return IngestOptions(
            excludes=excludes,
            max_tokens=s.chunk_max_tokens,
            max_file_bytes=s.max_file_bytes,
            documents=DocumentConfig(s.default_access_group, s.source_url_template),
            progress=progress,
        )

    def close(self) -> None:
        if "vector_index" in self.__dict__:
            try:
                self.vector_index.client.close()
            except Exception:  # closing is best effort
                pass
