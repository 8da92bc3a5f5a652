"""What a snapshot works out about its documents on first use: link pages, words."""

from __future__ import annotations

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
