"""The collection layout a Qdrant server or cluster receives, and the store handle.

No Qdrant server runs here: the server case points ``qdrant-client`` at a local HTTP
server that records the requests (the network edge) and checks what a server would
be asked to create. The embedded case runs on Qdrant's real local mode.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from bot.runtime import Runtime
from bot.settings import load_settings
from ingest.manifest import local_store_locked
from retrieval.errors import IndexLockedError, IndexUnavailableError
from retrieval.search.embeddings import FastEmbedder
from retrieval.search.store_marker import read_store_marker
from tests.conftest import ROOT, SAMPLE_RUNBOOKS
from tests.fakes.qdrant_api import FakeQdrant
from tests.retrieval.search.test_keyword_index import make_chunk

FILTERED_FIELDS = {
    "access": "keyword",
    "doc_type": "keyword",
    "service": "keyword",
    "source_id": "keyword",
    "content_hash": "keyword",
    "born": "integer",
    "retired": "integer",
}


@pytest.fixture
def qdrant() -> Iterator[FakeQdrant]:
    with FakeQdrant() as fake:
        yield fake
        # qdrant-client asks the server's version from a thread of its own: let it finish
        for thread in threading.enumerate():
            if "compatibility" in thread.name:
                thread.join(timeout=10)


def test_a_cluster_collection_is_created_with_shards_replicas_and_payload_indexes(
    qdrant: FakeQdrant, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUNBOOK_QDRANT_SHARDS", "6")
    monkeypatch.setenv("RUNBOOK_QDRANT_REPLICAS", "2")
    rt = Runtime(load_settings(data_dir=tmp_path, qdrant_url=qdrant.url, collection="rb"))
    rt.vector_index.ensure("sentence-transformers/all-MiniLM-L6-v2", 384)

    (create,) = qdrant.to("PUT", "/collections/rb")
    assert create.body["shard_number"] == 6 and create.body["replication_factor"] == 2
    assert create.body["vectors"] == {"size": 384, "distance": "Cosine"}
    indexes = {
        r.body["field_name"]: r.body["field_schema"]
        for r in qdrant.to("PUT", r"/collections/rb/index")
    }
    assert indexes == FILTERED_FIELDS
    # the indexes exist before any point is written, and every write waits for them
    first_index = min(i for i, r in enumerate(qdrant.requests) if r.path == "/collections/rb/index")
    writes = [i for i, r in enumerate(qdrant.requests) if r.path.endswith("/points")]
    assert writes and min(writes) > first_index
    assert all("wait=true" in r.query for r in qdrant.to("PUT", r"/collections/rb(__meta)?/points"))
    # the meta collection (one point) is not sharded
    (meta,) = qdrant.to("PUT", "/collections/rb__meta")
    assert meta.body.get("shard_number") in (None, 1)


def test_an_existing_server_collection_is_checked_not_recreated(
    qdrant: FakeQdrant, tmp_path: Path
) -> None:
    first = Runtime(load_settings(data_dir=tmp_path, qdrant_url=qdrant.url))
    first.vector_index.ensure("sentence-transformers/all-MiniLM-L6-v2", 384)
    created = len(qdrant.to("PUT", r"/collections/[^/]+"))
    replica = Runtime(load_settings(data_dir=tmp_path / "other", qdrant_url=qdrant.url))
    replica.vector_index.ensure("sentence-transformers/all-MiniLM-L6-v2", 384)
    assert len(qdrant.to("PUT", r"/collections/[^/]+")) == created == 2
    assert len(qdrant.to("PUT", r"/collections/[^/]+/index")) == len(FILTERED_FIELDS)


def test_a_server_deployment_reads_the_generation_from_the_server(
    qdrant: FakeQdrant, tmp_path: Path
) -> None:
    rt = Runtime(load_settings(data_dir=tmp_path, qdrant_url=qdrant.url))
    rt.vector_index.ensure("sentence-transformers/all-MiniLM-L6-v2", 384)
    before = len(qdrant.requests)
    assert rt.store.generation() == 0
    assert len(qdrant.requests) > before  # asked the server: no marker file stands in


def test_embedded_query_answers_from_the_snapshot_without_opening_the_store(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    settings = load_settings(data_dir=tmp_path / "data")
    ingest = Runtime(settings, embedder=embedder)
    report = ingest.ingest(SAMPLE_RUNBOOKS)
    ingest.close()
    marker = read_store_marker(settings.qdrant_local_path, settings.collection)
    assert marker is not None and marker.generation == report.generation

    rt = Runtime(settings, embedder=embedder)
    hits = rt.searcher.search("checkout-api database connection refused", 3)
    assert hits and hits[0].path.startswith("checkout-api/")
    assert not rt.store.opened and "vector_index" not in rt.__dict__

    # a snapshot that no longer matches its checksums is rebuilt from the store
    dense = settings.snapshot_dir / "dense.npy"
    dense.write_bytes(dense.read_bytes()[:-4] + b"\0\0\0\0")
    again = Runtime(settings, embedder=embedder)
    assert again.searcher.search("checkout-api database connection refused", 3)[0].source_id == (
        hits[0].source_id
    )
    assert again.store.opened
    again.close()


def test_once_open_the_store_itself_gives_the_generation(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    settings = load_settings(data_dir=tmp_path / "data")
    rt = Runtime(settings, embedder=embedder)
    rt.ingest(SAMPLE_RUNBOOKS)
    assert rt.store.opened
    rt.vector_index.client.close()
    with pytest.raises(IndexUnavailableError):
        rt.store.generation()


def test_a_held_store_is_refused_to_others_and_handed_to_its_own_client(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    settings = load_settings(data_dir=tmp_path / "data")
    first = Runtime(settings, embedder=embedder)
    generation = first.ingest(SAMPLE_RUNBOOKS).generation
    first.close()
    assert not local_store_locked(settings.qdrant_local_path)

    server = Runtime(settings, embedder=embedder)
    server.hold_store()  # what serve does at start: no client, no import
    assert local_store_locked(settings.qdrant_local_path) and not server.store.opened
    other = Runtime(settings, embedder=embedder)
    with pytest.raises(IndexLockedError, match="in use by another"):
        other.hold_store()
    with pytest.raises(IndexLockedError, match="in use by another"):
        _ = other.vector_index
    assert server.vector_index.generation() == generation  # the lock passes to its client
    assert local_store_locked(settings.qdrant_local_path)
    server.close()
    assert not local_store_locked(settings.qdrant_local_path)


def test_a_cold_ask_process_never_imports_the_store_client(
    tmp_path: Path, embedder: FastEmbedder, model_dir: Path
) -> None:
    data = tmp_path / "data"
    ingest = Runtime(load_settings(data_dir=data), embedder=embedder)
    ingest.ingest(SAMPLE_RUNBOOKS)
    ingest.close()
    (data / "models").symlink_to(model_dir)  # the offline model the session assembled
    code = (
        "import json, sys; from bot.cli import main; "
        f"rc = main(['--data-dir', {str(data)!r}, '--redis-url', 'redis://127.0.0.1:1/0', "
        "'ask', 'checkout-api database connection refused', '--json']); "
        "print(json.dumps([rc, sorted(m for m in sys.modules if m.startswith('qdrant_client'))]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    *answer, last = done.stdout.strip().splitlines()
    assert json.loads(last) == [0, []]
    assert "checkout-api/database-connection-failures" in "\n".join(answer)


def test_a_server_gives_the_candidates_vectors_in_one_request(
    qdrant: FakeQdrant, tmp_path: Path
) -> None:
    """The relevance weighting needs the closest section's vector of each candidate: a
    server keeps no mirror of them, so they are asked for by chunk id, all at once."""
    rt = Runtime(load_settings(data_dir=tmp_path, qdrant_url=qdrant.url))
    rt.vector_index.ensure("sentence-transformers/all-MiniLM-L6-v2", 4)
    chunks = [make_chunk(cid, f"text of {cid}") for cid in ("a1", "b2", "c3")]
    vectors = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], dtype=np.float32)
    rt.vector_index.stage(chunks, vectors)
    before = len(qdrant.requests)

    got = rt.searcher.vectors_of(["b2", "c3", "b2"], generation=0)

    assert set(got) == {"b2", "c3"}
    assert got["b2"].tolist() == [0, 1, 0, 0] and got["c3"].tolist() == [0, 0, 1, 0]
    (scroll,) = [r for r in qdrant.requests[before:] if r.path.endswith("/points/scroll")]
    assert scroll.body["limit"] == 2 and scroll.body["with_vector"] is True


def test_an_embedded_store_gives_the_vectors_from_its_mirror(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    rt = Runtime(load_settings(data_dir=tmp_path / "data"), embedder=embedder)
    rt.ingest(SAMPLE_RUNBOOKS)
    chunk = rt.searcher.snapshot().chunks[0]
    got = rt.searcher.vectors_of([chunk.chunk_id, "no-such-chunk"], rt.searcher.generation())
    assert list(got) == [chunk.chunk_id]
    # the chunk's own row: nearest to itself of every chunk
    ((nearest, score),) = rt.searcher.snapshot().dense_search(got[chunk.chunk_id], 1, None)
    assert nearest.chunk_id == chunk.chunk_id and score > 0.99
    rt.close()
