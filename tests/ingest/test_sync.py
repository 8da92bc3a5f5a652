"""Incremental sync into a real embedded Qdrant with the real model."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from bot.runtime import Runtime
from bot.settings import load_settings
from core.models import SearchFilter
from retrieval.errors import EmbeddingMismatchError, IndexLockedError, IndexUnavailableError
from retrieval.search.embeddings import FastEmbedder
from retrieval.search.vector_index import QdrantVectorIndex, open_client

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
    assert sorted(first.added) == [
        "runbooks:checkout/db",
        "runbooks:platform/disk",
        "runbooks:sre/glass",
    ]
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
    assert report.changed == ("runbooks:checkout/db",)
    assert report.removed == ("runbooks:platform/disk",)
    assert report.generation == 2
    assert "platform/disk.md" not in paths(rt, "journalctl vacuum disk full")
    top = rt.searcher.search("odyssey-pooler restart", 1)[0]
    assert top.path == "checkout/db.md"
    assert all("pgbouncer" not in h.chunk.text for h in top.hits)
    live = rt.vector_index.manifest()
    assert set(live) == {"runbooks:checkout/db", "runbooks:sre/glass"}


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
    assert report.changed == ("runbooks:checkout/db",)


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
    assert sorted(report.added) == ["runbooks:checkout/db"]


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


def all_points(rt: Runtime) -> list[dict[str, object]]:
    """Every point in the collection, live or not."""
    points, _ = rt.vector_index.client.scroll(
        rt.settings.collection, limit=10_000, with_payload=True, with_vectors=False
    )
    return [dict(p.payload or {}) for p in points]


def live_texts(rt: Runtime) -> str:
    return "\n".join(c.text for c in rt.searcher.snapshot().chunks)


def test_links_out_of_the_root_are_skipped_and_removed(
    rt: Runtime, corpus: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    write(outside, "passwd", "root:x:0:0:root:/root:/bin/bash\n")
    write(outside, "private.md", "# Private\n\n## Steps\n\nThe launch codes are 0000.\n")
    (corpus / "passwd-link.md").symlink_to(outside / "passwd")
    first = rt.ingestor.run(corpus, rt.ingest_options())
    assert {s.rel: s.reason for s in first.skipped} == {
        "passwd-link.md": "symlink points outside the runbook root"
    }
    assert "root:x:0:0" not in live_texts(rt)
    assert not any(d.path == "passwd-link.md" for d in rt.searcher.search("passwd-link root", 5))

    # a link that was indexed while it pointed inside the root goes when it points out
    (corpus / "glass-link.md").symlink_to(corpus / "sre/glass.md")
    assert rt.ingestor.run(corpus, rt.ingest_options()).added == ("runbooks:glass-link",)
    (corpus / "glass-link.md").unlink()
    (corpus / "glass-link.md").symlink_to(outside / "private.md")
    report = rt.ingestor.run(corpus, rt.ingest_options())
    assert report.removed == ("runbooks:glass-link",)
    assert "launch codes" not in live_texts(rt)
    assert "runbooks:glass-link" not in rt.vector_index.manifest()


def test_broken_access_is_readable_by_nobody(rt: Runtime, corpus: Path) -> None:
    write(
        corpus,
        "sre/typo.md",
        SECRET.replace("access: [sre]", "acess: [sre]").replace(
            "vault-breakglass", "hsm-breakglass"
        ),
    )
    write(
        corpus,
        "sre/empty.md",
        "---\ntitle: Root keys\naccess: []\n---\n# Root keys\n\n"
        "## Steps\n\nRotate the kms-rootkey with the offline ceremony laptop.\n",
    )
    report = rt.ingestor.run(corpus, rt.ingest_options())
    assert {"runbooks:sre/typo", "runbooks:sre/empty"} <= set(report.added)
    assert any(
        w.startswith("sre/typo.md:3: unknown front matter key 'acess'") for w in report.warnings
    )
    assert any(w.startswith("sre/empty.md:3: access: is empty") for w in report.warnings)
    for groups in (("everyone",), ("sre",), ("everyone", "sre")):
        flt = SearchFilter(groups=groups)
        assert "sre/typo.md" not in paths(rt, "hsm-breakglass role", flt), groups
        assert "sre/empty.md" not in paths(rt, "kms-rootkey offline ceremony", flt), groups
    assert paths(rt, "vault breakglass role", SearchFilter(groups=("sre",)))[0] == "sre/glass.md"


HOLLOW = "---\ntitle: Placeholder\nowner: '@x'\n---\n"
HEADINGS = "# Payments\n\n## Symptoms\n\n## Mitigation\n"


def test_documents_without_text_are_not_added_again(rt: Runtime, corpus: Path) -> None:
    write(corpus, "todo/placeholder.md", HOLLOW)
    write(corpus, "todo/headings.md", HEADINGS)
    first = rt.ingestor.run(corpus, rt.ingest_options())
    assert {"runbooks:todo/placeholder", "runbooks:todo/headings"} <= set(first.added)
    assert sum("no text to index" in w for w in first.warnings) == 2
    again = rt.ingestor.run(corpus, rt.ingest_options())
    assert (again.added, again.changed, again.removed) == ((), (), ())
    assert again.unchanged == 5
    assert again.generation == first.generation

    write(corpus, "todo/headings.md", HEADINGS + "\nScale payments-ledger to 6 pods.\n")
    (corpus / "todo/placeholder.md").unlink()
    third = rt.ingestor.run(corpus, rt.ingest_options())
    assert (third.changed, third.removed) == (
        ("runbooks:todo/headings",),
        ("runbooks:todo/placeholder",),
    )
    assert paths(rt, "payments-ledger")[0] == "todo/headings.md"
    assert "runbooks:todo/placeholder" not in rt.vector_index.manifest()


def _crash(*args: object, **kwargs: object) -> None:
    raise RuntimeError("killed during publish")


def test_crash_before_the_switch_keeps_the_old_version_and_is_rolled_back(
    rt: Runtime, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rt.ingestor.run(corpus, rt.ingest_options())
    old_points = len(all_points(rt))
    write(corpus, "checkout/db.md", DB.replace("pgbouncer", "odyssey-pooler"))
    # new points are staged and promoted, old ones marked; then the process dies
    monkeypatch.setattr(rt.vector_index, "_switch", _crash)
    with pytest.raises(RuntimeError, match="killed"):
        rt.ingestor.run(corpus, rt.ingest_options())
    monkeypatch.undo()
    assert len(all_points(rt)) > old_points  # the half-published version is in the store
    assert rt.vector_index.generation() == 1
    assert rt.vector_index.manifest()["runbooks:checkout/db"] != ""
    texts = "\n".join(c.text for c in rt.vector_index.live_chunks())
    assert "pgbouncer" in texts and "odyssey-pooler" not in texts

    report = rt.ingestor.run(corpus, rt.ingest_options())
    assert report.changed == ("runbooks:checkout/db",)
    assert report.generation == 2
    assert len(all_points(rt)) == report.chunks_total  # nothing left over
    texts = live_texts(rt)
    assert "odyssey-pooler" in texts and "pgbouncer" not in texts
    answer = rt.extractive.answer("checkout-api CHK-5023 database connections: what do I do?")
    assert all("pgbouncer" not in c.quote for c in answer.citations)


def test_crash_after_the_switch_serves_one_version_and_is_cleaned_up(
    rt: Runtime, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rt.ingestor.run(corpus, rt.ingest_options())
    write(corpus, "checkout/db.md", DB.replace("pgbouncer", "odyssey-pooler"))
    monkeypatch.setattr(rt.vector_index, "_collect", _crash)
    with pytest.raises(RuntimeError, match="killed"):
        rt.ingestor.run(corpus, rt.ingest_options())
    monkeypatch.undo()
    assert rt.vector_index.generation() == 2
    texts = live_texts(rt)
    assert "odyssey-pooler" in texts and "pgbouncer" not in texts
    assert len(all_points(rt)) > rt.vector_index.count_live()  # the retired version remains

    again = rt.ingestor.run(corpus, rt.ingest_options())
    assert again.unchanged == 3 and again.generation == 2
    assert len(all_points(rt)) == rt.vector_index.count_live()
    # a later generation still never brings the old text back
    write(corpus, "platform/disk.md", DISK + "\nThen page @platform.\n")
    later = rt.ingestor.run(corpus, rt.ingest_options())
    assert later.generation == 3
    texts = live_texts(rt)
    assert "odyssey-pooler" in texts and "pgbouncer" not in texts


def test_store_of_the_live_flag_layout_is_migrated(tmp_path: Path, embedder: FastEmbedder) -> None:
    from qdrant_client import models as qm

    data = tmp_path / "data"
    runtime = Runtime(load_settings(data_dir=data), embedder=embedder)
    try:
        index = runtime.vector_index
        index.ensure(embedder.model_name, embedder.dimension)
        client, name = index.client, runtime.settings.collection
        vec = [float(x) for x in embedder.embed_documents(["x"])[0]]
        chunk = {
            "chunk_id": "a#x",
            "source_id": "a",
            "path": "a.md",
            "title": "A",
            "heading_path": ["A"],
            "text": "A\n\nx",
            "start": 0,
            "end": 3,
            "content_hash": "h1",
            "line": 1,
            "metadata": {},
        }
        client.upsert(
            name,
            points=[
                qm.PointStruct(
                    id=1,
                    vector=vec,
                    payload={"live": True, "source_id": "a", "content_hash": "h1", "chunk": chunk},
                ),
                qm.PointStruct(
                    id=2,
                    vector=vec,
                    payload={
                        "live": False,
                        "source_id": "a",
                        "content_hash": "h2",
                        "chunk": {**chunk, "content_hash": "h2"},
                    },
                ),
            ],
            wait=True,
        )
        meta = index.read_meta()
        meta.pop("schema")
        meta["generation"] = 4
        index._write_meta(meta)
        index.ensure(embedder.model_name, embedder.dimension)
        assert index.read_meta()["schema"] == 2
        assert index.manifest() == {"a": "h1"}
        assert [p["content_hash"] for p in all_points(runtime)] == ["h1"]
    finally:
        runtime.close()


def test_snapshot_files_are_checked_against_their_checksums(
    rt: Runtime, corpus: Path, embedder: FastEmbedder
) -> None:
    import numpy as np

    rt.ingestor.run(corpus, rt.ingest_options())
    question = "vacuum journald disk space"
    vector = embedder.embed_query(question)
    before = [c.chunk_id for c, _ in rt.searcher.snapshot().dense_search(vector, 3, None)]
    data = rt.settings.data_dir
    rt.close()
    dense_file = rt.settings.snapshot_dir / "dense.npy"
    rows = np.load(dense_file)
    np.save(dense_file, rows[::-1].copy())  # same shape, rows shuffled
    other = Runtime(load_settings(data_dir=data), embedder=embedder)
    try:
        after = [c.chunk_id for c, _ in other.searcher.snapshot().dense_search(vector, 3, None)]
        assert after == before
        assert np.array_equal(np.load(dense_file), rows)  # rebuilt from the store
    finally:
        other.close()


def test_kill_after_new_points_go_live_before_old_ones_are_deleted(
    rt: Runtime, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store call that deletes the replaced version never happens."""
    rt.ingestor.run(corpus, rt.ingest_options())
    write(corpus, "checkout/db.md", DB.replace("pgbouncer", "odyssey-pooler"))
    client = rt.vector_index.client
    set_payload, delete = client.set_payload, client.delete
    calls: list[str] = []

    def marking(*args: object, **kwargs: object) -> object:
        calls.append("set_payload")
        return set_payload(*args, **kwargs)  # type: ignore[arg-type]

    def deleting(*args: object, **kwargs: object) -> object:
        if calls:
            raise RuntimeError("killed during publish")
        return delete(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(client, "set_payload", marking)
    monkeypatch.setattr(client, "delete", deleting)
    with pytest.raises(IndexUnavailableError, match="killed"):
        rt.ingestor.run(corpus, rt.ingest_options())
    monkeypatch.undo()

    def one_version() -> None:
        texts = "\n".join(c.text for c in rt.vector_index.live_chunks())
        assert ("pgbouncer" in texts) != ("odyssey-pooler" in texts)

    one_version()
    rt.ingestor.run(corpus, rt.ingest_options())
    write(corpus, "platform/disk.md", DISK + "\nThen page @platform.\n")
    rt.ingestor.run(corpus, rt.ingest_options())
    one_version()
    texts = live_texts(rt)
    assert "odyssey-pooler" in texts and "pgbouncer" not in texts
    assert len(all_points(rt)) == rt.vector_index.count_live()


HUGO = """+++
title = "Queue backlog"
owner = "@orders"
+++

Symptoms
--------

OrdersQueueBacklog fires when the consumer lag passes 10k messages.

Mitigation
----------

1. Scale the consumers: `kubectl -n orders scale deploy/consumer --replicas=12`
2. Watch the lag fall on the Orders dashboard.
"""


def test_a_hugo_runbook_with_setext_headings_is_answered_by_section(
    rt: Runtime, corpus: Path
) -> None:
    write(corpus, "orders/backlog.md", HUGO)
    report = rt.ingestor.run(corpus, rt.ingest_options())
    assert not report.skipped
    answer = rt.extractive.answer("OrdersQueueBacklog")
    assert answer.state == "answer"
    lead = answer.citations[0]
    assert (lead.title, lead.section, lead.owner) == ("Queue backlog", "Mitigation", "@orders")
    text = (corpus / "orders/backlog.md").read_text()
    assert text[lead.start : lead.end] == lead.quote
    assert lead.quote.startswith("1. Scale the consumers")


def dense_of(rt: Runtime, question: str) -> dict[str, float]:
    """Each live chunk's dense score for ``question``, by chunk text."""
    snap = rt.searcher.snapshot()
    vector = rt.embedder.embed_query(question)
    scores = {c.text: snap.dense_score(c.chunk_id, vector) for c in snap.chunks}
    return {text: score for text, score in scores.items() if score is not None}


def test_an_edited_runbook_embeds_only_its_changed_sections(rt: Runtime, corpus: Path) -> None:
    rt.ingestor.run(corpus, rt.ingest_options())
    question = "restart pgbouncer"
    before = dense_of(rt, question)
    n_chunks = len(rt.searcher.snapshot().chunks_by_source["runbooks:checkout/db"])
    write(corpus, "checkout/db.md", DB.replace("4 replicas", "6 replicas"))  # Mitigation only
    report = rt.ingestor.run(corpus, rt.ingest_options())
    assert report.changed == ("runbooks:checkout/db",)
    assert report.chunks_embedded == 1 and report.chunks_reused == n_chunks - 1 > 0
    assert "reused" in report.summary()
    after = dense_of(rt, question)
    # an unchanged section keeps its vector; the edited one has the new text's own
    diagnosis = next(t for t in after if "CHK-5023" in t)
    assert abs(after[diagnosis] - before[diagnosis]) < 1e-5
    edited = next(t for t in after if "6 replicas" in t)
    own = rt.embedder.embed_documents([edited])[0] @ rt.embedder.embed_query(question)
    assert abs(after[edited] - float(own)) < 1e-4


def test_a_parser_change_rechunks_everything_and_embeds_nothing_already_known(
    tmp_path: Path, embedder: FastEmbedder, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = load_settings(data_dir=tmp_path / "data")
    with closing(Runtime(settings, embedder=embedder)) as rt:
        first = rt.ingestor.run(corpus, rt.ingest_options())
    monkeypatch.setattr("ingest.sources.markdown_dir.PARSE_VERSION", "next")
    # a new process: the vectors come from the persisted snapshot, not a cached one
    with closing(Runtime(settings, embedder=embedder)) as rt:
        again = rt.ingestor.run(corpus, rt.ingest_options())
        assert sorted(again.changed) == sorted(first.added)  # every document re-chunked
        assert again.chunks_embedded == 0 and again.chunks_reused == first.chunks_total
        assert paths(rt, "journalctl vacuum")[0] == "platform/disk.md"
