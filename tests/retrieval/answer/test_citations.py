"""Citations: source links at a line, the repository search link, a quote's age."""

from __future__ import annotations

from datetime import date

from core.models import Chunk, DocumentMetadata
from retrieval.answer.citations import chunk_url, make_citation, search_link
from retrieval.answer.doc_warnings import superseded_note

URL = "https://git.example/runbooks/blob/abc123/db/failover.md#L{line}"


def chunk(url: str | None = URL, updated: date | None = date(2026, 11, 1), **meta: object) -> Chunk:
    return Chunk(
        chunk_id="c1",
        source_id="db/failover.md",
        path="db/failover.md",
        title="Database failover",
        heading_path=("Database failover", "Mitigation"),
        text="Mitigation\n\n1. Promote the standby.",
        start=40,
        end=70,
        content_hash="h",
        line=7,
        metadata=DocumentMetadata(url=url, updated=updated, owner="team-db", **meta),
    )


def test_chunk_url_points_at_the_line_asked_for_else_the_chunk_start() -> None:
    assert chunk_url(chunk(), 12) == URL.replace("{line}", "12")
    assert chunk_url(chunk()) == URL.replace("{line}", "7")
    assert chunk_url(chunk(url=None)) is None


def test_search_link_quotes_the_question_into_the_template() -> None:
    template = "https://git.example/search?q={query}&type=code"
    assert search_link(template, "db conn refused & 5xx") == (
        "https://git.example/search?q=db+conn+refused+%26+5xx&type=code"
    )
    assert search_link(None, "anything") is None


def test_citation_carries_section_owner_and_age_or_unknown_age() -> None:
    c = make_citation(chunk(), 40, 70, "1. Promote the standby.", 9, date(2026, 12, 1))
    assert (c.section, c.owner, c.age_days, c.line) == ("Mitigation", "team-db", 30, 9)
    assert c.url == URL.replace("{line}", "9")
    undated = make_citation(chunk(updated=None), 40, 70, "x", 9, date(2026, 12, 1))
    assert undated.age_days is None


def test_superseded_note_names_the_current_runbook_or_warns_alone() -> None:
    old = chunk(status="superseded", superseded_by="db/failover-v2.md")
    new = chunk().model_copy(update={"title": "Database failover v2"})
    note = superseded_note(old, new)
    assert note.kind == "superseded"
    assert "superseded by db/failover-v2.md" in note.message
    assert "current 'Database failover v2'" in note.message
    alone = superseded_note(chunk(status="deprecated"), None)
    assert alone.kind == "deprecated"
    assert "do not follow it without checking" in alone.message
