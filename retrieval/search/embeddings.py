"""Dense embeddings: the Embedder seam and its fastembed implementation."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from retrieval.errors import EmbeddingError
from retrieval.search.embed_batches import BatchBudget, budget_batches
from retrieval.search.offline_model import OFFLINE_MODEL_NAME, assemble_offline_model
from retrieval.search.query_encoder import MEAN_POOLED, QueryEncoder, encodable

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    @property
    def model_name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors: ...


class FastEmbedder:
    """fastembed ``TextEmbedding`` on the CPU, loaded lazily and once.

    A model directory on disk also answers questions without fastembed
    (:mod:`retrieval.search.query_encoder`): a cold ``ask`` never imports it. Once fastembed
    is loaded (an ingest in the same process), it embeds questions too.
    """

    def __init__(
        self,
        model_name: str = OFFLINE_MODEL_NAME,
        model_path: Path | None = None,
        cache_dir: Path | None = None,
        threads: int | None = None,
        budget: BatchBudget | None = None,
    ) -> None:
        """``budget``: how big a batch of documents may get
        (:mod:`retrieval.search.embed_batches`)."""
        self._model_name = model_name
        self._model_path = model_path
        self._cache_dir = cache_dir
        self._threads = threads
        self._budget = budget or BatchBudget()
        self._model: object | None = None
        self._queries: QueryEncoder | None = None
        self._dimension: int | None = None
        self._lock = threading.Lock()

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def source(self) -> str:
        path = self._resolve_path()
        return str(path) if path is not None else "the fastembed model cache"

    def _resolve_path(self) -> Path | None:
        if self._model_path is not None:
            return self._model_path
        if self._model_name == OFFLINE_MODEL_NAME and self._cache_dir is not None:
            return assemble_offline_model(self._cache_dir / "all-MiniLM-L6-v2")
        return None

    def _query_encoder(self) -> QueryEncoder | None:
        """The fastembed-free encoder, while fastembed itself is not loaded."""
        with self._lock:
            if self._model is not None:
                return None
            if self._queries is None:
                if self._model_name not in MEAN_POOLED:
                    return None
                path = self._resolve_path()
                if path is None or not encodable(path):
                    return None
                self._queries = QueryEncoder(path, self._threads)
            return self._queries

    def _load(self) -> object:
        with self._lock:
            if self._model is not None:
                return self._model
            self._queries = None  # one model in memory: fastembed embeds questions from now
            try:
                from fastembed import TextEmbedding

                path = self._resolve_path()
                kwargs: dict[str, Any] = {"threads": self._threads}
                if path is not None:
                    kwargs["specific_model_path"] = str(path)
                elif self._cache_dir is not None:
                    kwargs["cache_dir"] = str(self._cache_dir)
                self._model = TextEmbedding(self._model_name, **kwargs)
            except Exception as exc:  # fastembed raises plain exceptions
                raise EmbeddingError(
                    f"cannot load embedding model {self._model_name!r}: {exc}. "
                    "Install the offline model (make model) or set RUNBOOK_EMBEDDING_MODEL_PATH."
                ) from exc
            return self._model

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self.embed_query("dimension probe").shape[0])
        return self._dimension

    def vocabulary(self) -> frozenset[str]:
        """Whole words the model's tokenizer knows (no sub-word pieces)."""
        queries = self._query_encoder()
        if queries is not None:
            vocab = queries.vocabulary()
        else:
            try:
                vocab = self._load().model.tokenizer.get_vocab()  # type: ignore[attr-defined]
            except AttributeError:
                return frozenset()
        return frozenset(w for w in vocab if w.isalpha() and not w.startswith("##"))

    def warm(self) -> None:
        _ = self.dimension

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Unit vectors of ``texts``, in their order, embedded in batches cut by token
        budget (similar lengths together: little padding, bounded memory)."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._load()
        out: Vectors | None = None
        try:
            lengths = [int(model.token_count(t)) for t in texts]  # type: ignore[attr-defined]
            for batch in budget_batches(lengths, self._budget):
                rows = model.embed(  # type: ignore[attr-defined]
                    [texts[i] for i in batch], batch_size=len(batch)
                )
                for i, row in zip(batch, rows, strict=True):
                    if out is None:
                        out = np.empty((len(texts), len(row)), dtype=np.float32)
                    out[i] = row
        except Exception as exc:
            raise EmbeddingError(f"embedding failed: {exc}") from exc
        assert out is not None
        return out

    def embed_query(self, text: str) -> Vectors:
        queries = self._query_encoder()
        if queries is not None:
            try:
                return queries.embed(text)
            except Exception as exc:  # onnxruntime raises its own exception types
                raise EmbeddingError(f"embedding failed: {exc}") from exc
        model = self._load()
        try:
            rows = list(model.query_embed(text))  # type: ignore[attr-defined]
        except Exception as exc:
            raise EmbeddingError(f"embedding failed: {exc}") from exc
        return np.asarray(rows[0], dtype=np.float32)
