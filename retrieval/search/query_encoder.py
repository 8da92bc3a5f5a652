"""One question's embedding without importing fastembed: the cold path of ``ask``.

fastembed pulls in its hub client, HTTP stack and image pipeline on import (about
a quarter of a second before any work), none of which embedding one question
needs. For a model directory on disk, this runs the same ONNX file through
onnxruntime with the same tokenizer files and the same pooling as fastembed's
``PooledNormalizedEmbedding`` (mean over the attention mask, then unit length),
so the vectors agree with the ones the documents were indexed with
(``tests/retrieval/search/test_query_encoder.py`` holds them to it).

The tokenizer and the ONNX session load separately and on first use: reading
the model's vocabulary needs only the tokenizer.
"""

from __future__ import annotations

import json
import threading
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer

# Models whose fastembed embedding is the mean of the token vectors made unit length;
# any other model (CLS pooling, prefixes) is embedded by fastembed itself.
MEAN_POOLED = frozenset({"sentence-transformers/all-MiniLM-L6-v2"})
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
TOKENIZER_CONFIG = "tokenizer_config.json"
MAX_CONTEXT = 512  # the position embeddings of a BERT-sized model


def encodable(model_dir: Path | None) -> bool:
    """Is there a model directory this encoder can load?"""
    return model_dir is not None and all(
        (model_dir / f).is_file() for f in (MODEL_FILE, TOKENIZER_FILE, TOKENIZER_CONFIG)
    )


def _context(model_dir: Path) -> int:
    """The truncation length, read as fastembed reads it: the smallest positive
    ``model_max_length`` / ``max_length`` of the tokenizer config, at most 512."""
    config = json.loads((model_dir / TOKENIZER_CONFIG).read_text(encoding="utf-8"))
    found = [
        int(v)
        for v in (config.get("model_max_length"), config.get("max_length"))
        if isinstance(v, int | float) and 0 < v < 1e9
    ]
    return min([*found, MAX_CONTEXT])


class QueryEncoder:
    """Unit vectors of single questions from a sentence-transformers ONNX directory."""

    def __init__(self, model_dir: Path, threads: int | None = None) -> None:
        self._dir = model_dir
        self._threads = threads
        self._lock = threading.Lock()

    @cached_property
    def tokenizer(self) -> Tokenizer:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(self._dir / TOKENIZER_FILE))
        direction = (tok.truncation or {}).get("direction", "right")
        tok.enable_truncation(max_length=_context(self._dir), direction=direction)
        tok.no_padding()  # one text: nothing to pad to
        return tok

    @cached_property
    def _session(self) -> InferenceSession:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if self._threads is not None:
            options.intra_op_num_threads = self._threads
            options.inter_op_num_threads = self._threads
        return ort.InferenceSession(
            str(self._dir / MODEL_FILE), sess_options=options, providers=["CPUExecutionProvider"]
        )

    @cached_property
    def _inputs(self) -> frozenset[str]:
        return frozenset(i.name for i in self._session.get_inputs())

    def vocabulary(self) -> dict[str, int]:
        return dict(self.tokenizer.get_vocab())

    def embed(self, text: str) -> npt.NDArray[np.float32]:
        with self._lock:  # the first call loads; onnxruntime runs are thread-safe after
            session, inputs = self._session, self._inputs
        encoded = self.tokenizer.encode(text)
        ids = np.array([encoded.ids], dtype=np.int64)
        mask = np.array([encoded.attention_mask], dtype=np.int64)
        feed = {"input_ids": ids}
        if "attention_mask" in inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = np.asarray(session.run(None, feed)[0])
        weights = mask[..., None].astype(np.float64)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norm = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norm, 1e-12))[0].astype(np.float32)
