"""Incremental sync into a real embedded Qdrant with the real model."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.runtime import Runtime
from bot.settings import load_settings
from retrieval.embeddings import FastEmbedder
from retrieval.errors import EmbeddingMismatchError, IndexLockedError
from retrieval.types import SearchFilter
from retrieval.vector_index import QdrantVectorIndex, open_client

DB = """---
title: Checkout DB connections
service: checkout-api
owner: "@checkout"
updated: 2026-10-01
---
# Checkout DB connections

## Diagnosis

Run `kubectl -n checkout logs deploy/checkout-api | grep CHK-5023` to confirm.

## Mitigation

1. Restart pgbouncer: `kubectl -n checkout rollout restart deploy/pgbouncer`.
2. Scale checkout-api down to 4 replicas with `--force`.
"""

DISK = """# Disk full

Service: platform
Owner: @platform

## Mitigation

Vacuum journald: `journalctl --vacuum-size=500M` when node_filesystem_avail_bytes is low.
"""

SECRET = """---
title: Break glass
access: [sre]
---
# Break glass

## Procedure

Request the vault-breakglass role and record the ticket before connecting.
"""


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "runbooks"
    write(root, "checkout/db.md", DB)
    write(root, "platform/disk.md", DISK)
    write(root, "sre/glass.md", SECRET)
    return root


@pytest.fixture()
def rt(tmp_path: Path, embedder: FastEmbedder) -> Iterator[Runtime]:
    runtime = Runtime(load_settings(data_dir=tmp_path / "data"), embedder=embedder)
    yield runtime
    runtime.close()


def paths(rt: Runtime, q: str, flt: SearchFilter | None = None) -> list[str]:
    return [d.path for d in rt.searcher.search(q, 5, flt)]


def test_first_ingest_then_unchanged_embeds_nothing(rt: Runtime, corpus: Path) -> None:
    first = rt.ingestor.run(corpus, rt.ingest_options())
    assert sorted(first.added) == ["checkout/db", "platform/disk", "sre/glass"]
    assert first.chunks_embedded == first.chunks_total > 0
    assert first.generation == 1
    again = rt.ingestor.run(corpus, rt.ingest_options())
    assert again.chunks_embedded == 0
    assert again.unchanged == 3
    assert again.generation == 1
    assert again.chunks_total == first.chunks_total


def test_changed_and_deleted_files(rt: Runtime, corpus: Path) -> None:
    rt.ingestor.run(corpus, rt.ingest_options())
    assert paths(rt, "journalctl vacuum")[0] == "platform/disk.md"
    write(corpus, "checkout/db.md", DB.replace("pgbouncer", "odyssey-pooler"))
    (corpus / "platform/disk.md").unlink()
    report = rt.ingestor.run(corpus, rt.ingest_options())
    assert report.changed == ("checkout/db",)
    assert report.removed == ("platform/disk",)
    assert report.generation == 2
    assert "platform/disk.md" not in paths(rt, "journalctl vacuum disk full")
    top = rt.searcher.search("odyssey-pooler restart", 1)[0]
    assert top.path == "checkout/db.md"
    assert all("pgbouncer" not in h.chunk.text for h in top.hits)
    live = rt.vector_index.manifest()
    assert set(live) == {"checkout/db", "sre/glass"}


def test_malformed_file_is_skipped_and_old_version_stays(rt: Runtime, corpus: Path) -> None:
    rt.ingestor.run(corpus, rt.ingest_options())
    write(corpus, "checkout/db.md", "---\ntitle: [broken\n---\n# x\n")
    report = rt.ingestor.run(corpus, rt.ingest_options())
    assert [s.rel for s in report.skipped] == ["checkout/db.md"]
    assert report.skipped[0].line is not None
    assert report.removed == ()
    assert paths(rt, "CHK-5023")[0] == "checkout/db.md"


def test_failed_run_leaves_previous_index_searchable(
    rt: Runtime, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rt.ingestor.run(corpus, rt.ingest_options())
    write(corpus, "checkout/db.md", DB + "\n## Escalation\n\nPage the DBA on call.\n")

    def boom(texts: object) -> object:
        raise RuntimeError("embedding crashed")

    monkeypatch.setattr(rt.embedder, "embed_documents", boom)
    with pytest.raises(RuntimeError):
        rt.ingestor.run(corpus, rt.ingest_options())
    monkeypatch.undo()
    assert rt.vector_index.generation() == 1
    assert paths(rt, "CHK-5023")[0] == "checkout/db.md"
    hits = rt.searcher.search("page the DBA escalation", 5)
    assert all("Escalation" not in h.chunk.section for d in hits for h in d.hits)
    report = rt.ingestor.run(corpus, rt.ingest_options())
    assert report.changed == ("checkout/db",)


def test_exact_identifier_queries(rt: Runtime, corpus: Path) -> None:
    rt.ingestor.run(corpus, rt.ingest_options())
    for q in ("CHK-5023", "--force", "node_filesystem_avail_bytes", "checkout-api"):
        docs = rt.searcher.search(q, 3)
        assert docs and any(h.keyword_rank == 1 for h in docs[0].hits), q
    assert paths(rt, "node_filesystem_avail_bytes")[0] == "platform/disk.md"
    assert paths(rt, "CHK-5023")[0] == "checkout/db.md"


def test_access_filter_inside_search(rt: Runtime, corpus: Path) -> None:
    rt.ingestor.run(corpus, rt.ingest_options())
    assert "sre/glass.md" not in paths(
        rt, "vault breakglass role", SearchFilter(groups=("everyone",))
    )
    assert paths(rt, "vault breakglass role", SearchFilter(groups=("sre",)))[0] == "sre/glass.md"
    assert paths(rt, "vault breakglass role")[0] == "sre/glass.md"


def test_offsets_match_original_text(rt: Runtime, corpus: Path) -> None:
    rt.ingestor.run(corpus, rt.ingest_options())
    for chunk in rt.searcher.snapshot().chunks:
        original = (corpus / chunk.path).read_text(encoding="utf-8")
        assert chunk.text.endswith(original[chunk.start : chunk.end])
        assert original[chunk.start : chunk.end].strip()


def test_model_mismatch_is_a_clear_error(rt: Runtime, corpus: Path) -> None:
    rt.ingestor.run(corpus, rt.ingest_options())
    index: QdrantVectorIndex = rt.vector_index
    with pytest.raises(EmbeddingMismatchError, match="reindex"):
        index.ensure("some/other-model", 768)


def test_held_embedded_index_is_reported(rt: Runtime, corpus: Path, tmp_path: Path) -> None:
    rt.ingestor.run(corpus, rt.ingest_options())
    with pytest.raises(IndexLockedError, match="in use"):
        open_client(None, rt.settings.qdrant_local_path)


def test_excludes_and_runbookignore(rt: Runtime, corpus: Path) -> None:
    write(corpus, ".runbookignore", "platform/\n")
    report = rt.ingestor.run(corpus, rt.ingest_options(excludes=("sre/*",)))
    assert sorted(report.added) == ["checkout/db"]


def test_keyword_snapshot_survives_restart(
    rt: Runtime, corpus: Path, embedder: FastEmbedder
) -> None:
    rt.ingestor.run(corpus, rt.ingest_options())
    before = paths(rt, "journalctl vacuum")
    data = rt.settings.data_dir
    rt.close()
    copy = data.parent / "copy"
    shutil.copytree(data, copy)
    other = Runtime(load_settings(data_dir=copy), embedder=embedder)
    try:
        assert paths(other, "journalctl vacuum") == before
    finally:
        other.close()
