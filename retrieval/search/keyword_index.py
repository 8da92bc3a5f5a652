"""BM25 keyword index over chunks (the lexical half of hybrid search).

Wraps :mod:`bm25s`: we tokenize with :func:`retrieval.reading.tokenize.tokenize`, build
our own vocabulary and hand bm25s token ids (``bm25s.tokenization.Tokenized``),
so bm25s never tokenizes anything itself. Scoring goes through
``BM25.get_scores_from_ids`` with a ``weight_mask``, which zeroes ineligible
chunks before ranking, so a filter can never push an eligible chunk out of the
top k (no post-filtering). Top-k selection is ours: bm25s' ``retrieve`` raises
when ``k`` exceeds the corpus, always returns ``k`` rows (zero scores included)
and wants a progress bar.

On disk (``save``/``load``)::

    directory/meta.json        format, tokenizer version, generation, chunk count
    directory/chunks.jsonl     one Chunk per line, in index order
    directory/chunk_ids.json   [chunk_id, content_hash] per line of chunks.jsonl
    directory/bm25/            the bm25s model (absent for an empty index)

``meta.json`` is removed first and written last (atomically), so a save that
dies half way leaves a directory that ``load`` rejects rather than a mix of two
generations.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any, NamedTuple, TypeGuard

import bm25s
import numpy as np
import numpy.typing as npt
from bm25s.tokenization import Tokenized

from core.models import Chunk, SearchFilter
from retrieval.reading import TOKENIZER_VERSION, tokenize

__all__ = ["KeywordIndex"]

log = logging.getLogger(__name__)

# bm25s sets its own logger to DEBUG at import, so its debug chatter would reach
# any handler configured at INFO through the root logger. We only want warnings.
logging.getLogger("bm25s").setLevel(logging.WARNING)

_FORMAT = "runbook-bot.keyword-index/1"
_META = "meta.json"
_CHUNKS = "chunks.jsonl"
_CHUNK_IDS = "chunk_ids.json"
_MODEL = "bm25"
_MASK_CACHE_MAX = 128  # filters repeat (one per group set); ~n bytes each

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


class _Mask(NamedTuple):
    # bm25s multiplies the scores by ``weight_mask``; a bool array does that at
    # a quarter of the memory of float32. None: every chunk is eligible.
    weights: BoolArray | None
    any_eligible: bool


class _Encoder(dict[str, tuple[int, ...]]):
    """Whitespace-delimited word -> token ids, growing the vocabulary on a miss.

    Tokenizing word by word is exact (tokens never span whitespace), and caching
    per word makes building a 50k-chunk index one dict lookup per word.
    """

    def __init__(self) -> None:
        super().__init__()
        self.vocab: dict[str, int] = {}

    def __missing__(self, word: str) -> tuple[int, ...]:
        vocab = self.vocab
        ids = tuple(vocab.setdefault(tok, len(vocab)) for tok in tokenize(word))
        self[word] = ids
        return ids

    def encode(self, text: str) -> list[int]:
        return list(chain.from_iterable(map(self.__getitem__, text.split())))


class KeywordIndex:
    """An immutable BM25 index over a fixed list of chunks; build a new one to change it."""

    def __init__(self, chunks: Sequence[Chunk] = ()) -> None:
        self._chunks: tuple[Chunk, ...] = tuple(chunks)
        self._model: Any = None
        self._vocab: dict[str, int] = {}
        if self._chunks:
            encoder = _Encoder()
            corpus_ids = [encoder.encode(chunk.text) for chunk in self._chunks]
            if encoder.vocab:
                model = bm25s.BM25()
                model.index(
                    Tokenized(ids=corpus_ids, vocab=encoder.vocab),
                    create_empty_token=False,
                    show_progress=False,
                )
                self._model = model
                self._vocab = encoder.vocab
        self._init_filters()

    @classmethod
    def _from_parts(cls, chunks: tuple[Chunk, ...], model: Any) -> KeywordIndex:
        self = cls.__new__(cls)
        self._chunks = chunks
        self._model = model
        self._vocab = model.vocab_dict if model is not None else {}
        self._init_filters()
        return self

    def _init_filters(self) -> None:
        """Postings of chunk positions per access group, doc type and service."""
        groups: dict[str, list[int]] = {}
        doc_types: dict[str, list[int]] = {}
        services: dict[str, list[int]] = {}
        for i, chunk in enumerate(self._chunks):
            meta = chunk.metadata
            for group in meta.access:
                groups.setdefault(group, []).append(i)
            doc_types.setdefault(meta.doc_type, []).append(i)
            if meta.service is not None:
                services.setdefault(meta.service, []).append(i)
        self._by_group = _to_arrays(groups)
        self._by_doc_type = _to_arrays(doc_types)
        self._by_service = _to_arrays(services)
        self._masks: dict[SearchFilter, _Mask] = {}

    @property
    def size(self) -> int:
        return len(self._chunks)

    @property
    def chunks(self) -> tuple[Chunk, ...]:
        return self._chunks

    # -- search ------------------------------------------------------------

    def search(
        self, query: str, k: int, flt: SearchFilter | None = None
    ) -> list[tuple[Chunk, float]]:
        """The ``k`` best eligible chunks for ``query``, best first, scores > 0 only.

        Query tokens not in the vocabulary are ignored and repeated query tokens
        count once. Ties are broken by index order, so results are deterministic.
        """
        if k <= 0 or self._model is None:
            return []
        vocab = self._vocab
        ids = [vocab[tok] for tok in dict.fromkeys(tokenize(query)) if tok in vocab]
        if not ids:
            return []
        mask = self._mask(flt)
        if not mask.any_eligible:
            return []
        scores: FloatArray = self._model.get_scores_from_ids(ids, weight_mask=mask.weights)
        top = _top_k(scores, k)
        chunks = self._chunks
        return [(chunks[i], float(scores[i])) for i in top.tolist()]

    def eligible(self, flt: SearchFilter | None) -> BoolArray | None:
        """Rows (in index order) a filter admits; None means every row."""
        mask = self._mask(flt)
        if mask.weights is None:
            return None if mask.any_eligible else np.zeros(len(self._chunks), dtype=bool)
        return np.asarray(mask.weights, dtype=bool)

    def _mask(self, flt: SearchFilter | None) -> _Mask:
        if flt is None:
            return _Mask(None, True)
        cached = self._masks.get(flt)
        if cached is not None:
            return cached
        n = len(self._chunks)
        eligible = np.ones(n, dtype=bool)
        for wanted, postings in (
            (flt.groups, self._by_group),
            (flt.doc_types, self._by_doc_type),
            (flt.services, self._by_service),
        ):
            if wanted is None:
                continue
            hit = np.zeros(n, dtype=bool)
            for value in wanted:
                rows = postings.get(value)
                if rows is not None:
                    hit[rows] = True
            eligible &= hit
        mask = _Mask(None, True) if eligible.all() else _Mask(eligible, bool(eligible.any()))
        if len(self._masks) >= _MASK_CACHE_MAX:
            self._masks.clear()
        self._masks[flt] = mask
        return mask

    # -- persistence ---------------------------------------------------------

    def save(self, directory: Path, generation: int) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / _META).unlink(missing_ok=True)

        _write_atomic(
            directory / _CHUNKS,
            "".join(chunk.model_dump_json() + "\n" for chunk in self._chunks),
        )
        _write_atomic(
            directory / _CHUNK_IDS,
            json.dumps([[c.chunk_id, c.content_hash] for c in self._chunks]),
        )
        model_dir = directory / _MODEL
        if model_dir.exists():
            shutil.rmtree(model_dir)
        if self._model is not None:
            self._model.save(model_dir, show_progress=False)

        meta = {
            "format": _FORMAT,
            "tokenizer": TOKENIZER_VERSION,
            "bm25s": bm25s.__version__,
            "generation": generation,
            "chunks": len(self._chunks),
            "has_model": self._model is not None,
        }
        _write_atomic(directory / _META, json.dumps(meta, indent=2) + "\n")

    @classmethod
    def load(
        cls, directory: Path, chunks_by_id: Mapping[str, Chunk] | None = None
    ) -> tuple[KeywordIndex, int] | None:
        """``(index, generation)``, or None if the directory is missing, incomplete,
        corrupt, from another format/tokenizer version, or (when ``chunks_by_id``
        is given) refers to chunks that are missing from it or have a different
        ``content_hash``. Never raises for a bad directory.

        With ``chunks_by_id`` the index uses those Chunk objects and skips
        parsing ``chunks.jsonl``.
        """
        directory = Path(directory)
        try:
            return cls._load(directory, chunks_by_id)
        except Exception as exc:  # any damage means "rebuild", never a crash
            log.warning("keyword index at %s not loadable: %r", directory, exc)
            return None

    @classmethod
    def _load(
        cls, directory: Path, chunks_by_id: Mapping[str, Chunk] | None
    ) -> tuple[KeywordIndex, int] | None:
        meta_path = directory / _META
        if not meta_path.is_file():
            return None
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if not isinstance(meta, dict):
            raise ValueError("meta.json is not an object")
        if meta.get("format") != _FORMAT or meta.get("tokenizer") != TOKENIZER_VERSION:
            log.info("keyword index at %s has another format or tokenizer", directory)
            return None
        generation = meta.get("generation")
        count = meta.get("chunks")
        has_model = meta.get("has_model")
        if not _is_int(generation) or not _is_int(count) or count < 0:
            raise ValueError("meta.json: bad generation or chunk count")
        if not isinstance(has_model, bool):
            raise ValueError("meta.json: bad has_model")

        chunks: tuple[Chunk, ...]
        if chunks_by_id is None:
            with (directory / _CHUNKS).open(encoding="utf-8") as f:
                chunks = tuple(Chunk.model_validate_json(line) for line in f)
        else:
            pairs = json.loads((directory / _CHUNK_IDS).read_text(encoding="utf-8"))
            resolved: list[Chunk] = []
            for chunk_id, content_hash in pairs:
                chunk = chunks_by_id.get(chunk_id)
                if chunk is None or chunk.content_hash != content_hash:
                    log.info("keyword index at %s is stale (chunk %s)", directory, chunk_id)
                    return None
                resolved.append(chunk)
            chunks = tuple(resolved)
        if len(chunks) != count:
            raise ValueError(f"{len(chunks)} chunks on disk, meta.json says {count}")

        model = None
        if has_model:
            if not chunks:
                raise ValueError("model without chunks")
            model = bm25s.BM25.load(directory / _MODEL, mmap=False)
            _validate_model(model, len(chunks))
        elif chunks and any(tokenize(c.text) for c in chunks):
            raise ValueError("chunks with tokens but no model")
        return cls._from_parts(chunks, model), generation


def _to_arrays(postings: dict[str, list[int]]) -> dict[str, IntArray]:
    return {key: np.asarray(rows, dtype=np.int64) for key, rows in postings.items()}


def _top_k(scores: FloatArray, k: int) -> IntArray:
    """Positions of the ``k`` highest positive scores, best first; ties by position."""
    cand = np.flatnonzero(scores > 0)
    cand_scores = scores[cand]
    if len(cand) > k:
        kth = np.partition(cand_scores, len(cand) - k)[len(cand) - k]
        above = cand_scores > kth
        ties = np.flatnonzero(cand_scores == kth)[: k - int(above.sum())]
        keep = np.concatenate([np.flatnonzero(above), ties])
        cand, cand_scores = cand[keep], cand_scores[keep]
    order = np.lexsort((cand, -cand_scores))
    result: IntArray = cand[order]
    return result


def _validate_model(model: Any, num_docs: int) -> None:
    """Structural checks so a damaged model fails here rather than in search."""
    scores = model.scores
    data, indices, indptr = scores["data"], scores["indices"], scores["indptr"]
    vocab: dict[str, int] = model.vocab_dict
    n_vocab = len(vocab)
    if scores.get("num_docs") != num_docs:
        raise ValueError("model document count does not match chunks")
    if indptr.ndim != 1 or len(indptr) != n_vocab + 1:
        raise ValueError("model vocabulary does not match its matrix")
    if sorted(vocab.values()) != list(range(n_vocab)):
        raise ValueError("model vocabulary ids are not 0..n-1")
    if data.shape != indices.shape or int(indptr[0]) != 0 or int(indptr[-1]) != len(data):
        raise ValueError("model matrix arrays are inconsistent")
    if np.any(np.diff(indptr) < 0):
        raise ValueError("model matrix indptr is not monotonic")
    if len(indices) and (int(indices.min()) < 0 or int(indices.max()) >= num_docs):
        raise ValueError("model matrix refers to documents out of range")
    if not np.all(np.isfinite(data)):
        raise ValueError("model matrix has non-finite scores")


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
