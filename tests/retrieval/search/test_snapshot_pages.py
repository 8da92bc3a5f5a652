"""What a snapshot works out about its documents on first use: link pages, words."""

from __future__ import annotations

import numpy as np
import pytest

from retrieval.reading import document_names
from retrieval.search.keyword_index import KeywordIndex
from retrieval.search.snapshot import Snapshot
from tests.retrieval.search.test_hybrid import INDEX, PROSE, hit


def snapshot() -> Snapshot:
    chunks = [hit("services", INDEX, 0.0).chunk, hit("runbook", PROSE, 0.0).chunk]
    return Snapshot(generation=1, keyword=KeywordIndex(chunks), dense=None)


def test_a_page_of_links_is_known_per_document_and_worked_out_once() -> None:
    snap = snapshot()
    assert snap.is_link_page("services") and not snap.is_link_page("runbook")
    assert not snap.is_link_page("gone")  # no longer indexed: nothing to list
    snap.chunks_by_source.clear()  # asked again: the answer is remembered
    assert snap.is_link_page("services")


def test_what_is_worked_out_about_a_document_is_kept_per_kind_and_snapshot() -> None:
    snap = snapshot()
    built: list[str] = []

    def build(value: str) -> str:
        built.append(value)
        return value

    assert snap.per_document("outline", "services", lambda: build("a")) == "a"
    assert snap.per_document("outline", "services", lambda: build("b")) == "a"
    assert snap.per_document("topics", "services", lambda: build("c")) == "c"
    assert snapshot().per_document("outline", "services", lambda: build("d")) == "d"
    assert built == ["a", "c", "d"]


def test_the_words_a_typo_may_stand_for_count_documents() -> None:
    words = snapshot().words
    assert words["restart"] == 1 and words["pgbouncer"] == 1
    assert "kubectl" in words and "md" not in words  # too short to be misspelled


def test_what_a_document_is_called_is_read_once_per_chunk() -> None:
    snap = snapshot()
    chunk = snap.chunks[0]
    assert snap.names_of(chunk) == document_names(chunk)
    assert snap.names_of(chunk) is snap.names_of(chunk)


def test_the_dense_search_scores_a_vector_once_for_both_searches_of_an_ask() -> None:
    chunks = [hit(f"doc{i}", PROSE, 0.0).chunk for i in range(4)]
    rng = np.random.default_rng(3)
    dense = rng.standard_normal((4, 8)).astype(np.float32)
    dense /= np.linalg.norm(dense, axis=1, keepdims=True)
    snap = Snapshot(generation=1, keyword=KeywordIndex(chunks), dense=dense)
    vector = dense[2]
    first = snap.dense_search(vector, 4, None)
    assert first[0][0].chunk_id == "doc2#s"
    assert snap.dense_search(vector.copy(), 4, None) == first  # the kept scores
    other = snap.dense_search(dense[1], 4, None)
    assert other[0][0].chunk_id == "doc1#s"
    for chunk, score in first:  # one row's dot product: the same cosine, to rounding
        assert snap.dense_score(chunk.chunk_id, vector) == pytest.approx(score, abs=1e-6)


def test_whether_the_documents_use_a_word_is_read_from_the_index() -> None:
    snap = snapshot()
    assert snap.uses("pgbouncer") and snap.uses("Restart")
    assert not snap.uses("production") and not snap.uses("")
