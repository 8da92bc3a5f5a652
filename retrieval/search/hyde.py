"""HyDE: a question's dense query vector, moved by a model-written hypothetical runbook excerpt.

:class:`HydeQuery` embeds the question plus a model-written hypothetical runbook
excerpt; usable as ``ExtractiveAnswerer(dense_query=HydeQuery(...))``. The excerpt only
moves the dense vector: it is never shown and never used for keyword search.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Any

from retrieval.search.embeddings import Embedder, Vectors

log = logging.getLogger("runbook_bot.hyde")

HYDE_SYSTEM_PROMPT = (
    "You write short excerpts of internal on-call runbooks. Given an engineer's question, "
    "write the 3-6 line runbook excerpt that would answer it: the likely alert name, error "
    "messages, diagnosis commands and mitigation steps. No preamble, no caveats."
)
MAX_HYDE_CHARS = 1200


def hyde_vector(
    client: Any, model: str, question: str, embedder: Embedder, timeout: float
) -> Vectors | None:
    """The embedding of the question plus a hypothetical runbook excerpt; None on any error.

    ``client`` is an ``openai.OpenAI`` (typed loosely so tests can pass any look-alike).
    """
    try:
        completion = client.chat.completions.create(
            model=model,
            messages=[
                {"role": "system", "content": HYDE_SYSTEM_PROMPT},
                {"role": "user", "content": question},
            ],
            temperature=0,
            timeout=timeout,
        )
        content = completion.choices[0].message.content
        if not isinstance(content, str) or not content.strip():
            return None
        excerpt = content.strip()[:MAX_HYDE_CHARS]
        return embedder.embed_query(f"{question}\n{excerpt}")
    except Exception as exc:  # HyDE is an optional improvement; any failure -> plain query
        log.warning("hyde: falling back to the plain query embedding: %s", type(exc).__name__)
        return None


class HydeQuery:
    """``(question) -> Vectors`` for ``ExtractiveAnswerer(dense_query=...)``, with fallback.

    Vectors are cached per question (the answerer may retrieve twice for one question).
    """

    def __init__(
        self,
        client: Any,
        model: str,
        embedder: Embedder,
        timeout: float,
        cache_size: int = 256,
    ) -> None:
        self._client = client
        self._model = model
        self._embedder = embedder
        self._timeout = timeout
        self._cache: OrderedDict[str, Vectors] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def __call__(self, question: str) -> Vectors:
        with self._lock:
            hit = self._cache.get(question)
            if hit is not None:
                self._cache.move_to_end(question)
                return hit
        vector = hyde_vector(self._client, self._model, question, self._embedder, self._timeout)
        if vector is None:
            return self._embedder.embed_query(question)  # failures are not cached
        with self._lock:
            self._cache[question] = vector
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return vector
