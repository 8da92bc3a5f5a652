"""Parts: the finest sections of a document, rebuilt from its chunks with exact offsets."""

from __future__ import annotations

from core.models import Document
from ingest.chunker import chunk_document
from retrieval.answer.outline import document_parts, outline
from retrieval.search.keyword_index import KeywordIndex
from retrieval.search.snapshot import Snapshot
from tests.conftest import markdown_document

TEXT = """# Orders DB

Intro line.

## Diagnosis

Check the pool:

```
SHOW POOLS;
```

## Mitigation

#### Restart pgbouncer

1. Drain traffic.
2. `kubectl -n orders rollout restart deploy/pgbouncer`

#### Fail over

Promote the replica.
"""


def doc(text: str = TEXT) -> Document:
    return markdown_document(text, "Orders DB", "orders/db.md")


def test_parts_cover_every_heading_level_with_verbatim_offsets() -> None:
    d = doc()
    parts = document_parts(chunk_document(d, 0))
    paths = [p.heading_path for p in parts]
    assert ("Orders DB", "Mitigation", "Restart pgbouncer") in paths
    assert ("Orders DB", "Mitigation", "Fail over") in paths
    for p in parts:
        assert TEXT[p.start : p.end] == p.text
        assert TEXT[p.body_start : p.end] == p.body
        assert p.body == p.body.strip()
    restart = next(p for p in parts if p.heading == "Restart pgbouncer")
    assert restart.body.startswith("1. Drain traffic.")
    assert restart.section == "Mitigation > Restart pgbouncer"
    assert restart.line_of(restart.body_start) == TEXT[: restart.body_start].count("\n") + 1


def test_a_deep_heading_carries_over_into_the_next_piece_of_a_split_section() -> None:
    filler = "\n\n".join(f"Paragraph {i} " + "word " * 60 for i in range(6))
    text = f"# T\n\n## Mitigation\n\n#### Alerting rules\n\n{filler}\n"
    chunks = chunk_document(doc(text), 0, max_tokens=128)
    assert len(chunks) > 2  # the section was split
    parts = document_parts(chunks)
    tail = [p for p in parts if "Paragraph 5" in p.body]
    assert tail and tail[0].heading_path[-1] == "Alerting rules"


def test_a_documents_outline_is_worked_out_once_per_generation() -> None:
    chunks = chunk_document(doc(), 0)
    source_id = chunks[0].source_id
    snap = Snapshot(generation=1, keyword=KeywordIndex(chunks), dense=None)
    first = outline(snap, source_id)
    assert first == document_parts(chunks)
    assert outline(snap, source_id) is first
    again = Snapshot(generation=2, keyword=KeywordIndex(chunks), dense=None)
    assert outline(again, source_id) is not first  # a new generation works it out anew
    assert outline(snap, "gone") == []  # no longer indexed
    assert outline(snap, "gone", chunks[0]) == document_parts(chunks[:1])


def test_a_part_names_its_section_without_markdown_decoration() -> None:
    text = (
        "# Hosted cluster kubeconfig\n\nIntro.\n\n"
        "## [Common dashboard SOPs](./sop.md)\n\nSee the dashboard.\n\n"
        "### **Primary SLO**\n\n99.9% of secrets within 5 minutes.\n\n"
        "### If `ManagedClusterJoined` exists\n\nRestart the agent.\n"
    )
    document = markdown_document(text, "Hosted cluster kubeconfig", "hcp/kubeconfig.md")
    parts = document_parts(chunk_document(document, 0))
    sections = [p.section for p in parts]
    assert "Common dashboard SOPs > Primary SLO" in sections
    assert "Common dashboard SOPs > If ManagedClusterJoined exists" in sections
    # the headings themselves, and so the quotes, stay as written
    assert (
        "Hosted cluster kubeconfig",
        "[Common dashboard SOPs](./sop.md)",
        "**Primary SLO**",
    ) in [p.heading_path for p in parts]


def test_a_top_heading_labelled_title_repeats_the_title() -> None:
    """A template's ``# Title: SidekiqQueueTooLarge`` is not a section of its own."""
    text = "# Title: SidekiqQueueTooLarge\n\n## Resolution\n\nDisable the queue.\n"
    d = markdown_document(text, "SidekiqQueueTooLarge", "sidekiq/SidekiqQueueTooLarge.md")
    chunks = chunk_document(d, 0)
    (part,) = [p for p in document_parts(chunks) if p.heading == "Resolution"]
    assert part.section == "Resolution" and part.own_path == ("Resolution",)
    assert chunks[-1].section == "Resolution"
