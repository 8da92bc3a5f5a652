"""Runtime.ingest: the unchanged fast path, the manifest, and a held embedded store."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.runtime import Runtime
from bot.settings import load_settings
from ingest.manifest import local_store_locked, read_manifest
from retrieval.errors import IndexLockedError
from retrieval.search.embeddings import FastEmbedder
from tests.conftest import SAMPLE_RUNBOOKS


def runtime(data: Path, embedder: FastEmbedder) -> Runtime:
    return Runtime(load_settings(data_dir=data), embedder=embedder)


def test_unchanged_ingest_skips_the_store(tmp_path: Path, embedder: FastEmbedder) -> None:
    corpus = tmp_path / "runbooks"
    shutil.copytree(SAMPLE_RUNBOOKS, corpus)
    data = tmp_path / "data"
    first = runtime(data, embedder)
    report = first.ingest(corpus)
    first.close()
    manifest = read_manifest(data)
    assert manifest is not None and manifest.generation == report.generation
    assert set(manifest.documents) == set(report.live) and len(manifest.documents) == 13

    second = runtime(data, embedder)
    again = second.ingest(corpus)
    assert again.unchanged == 13 and again.chunks_embedded == 0
    assert again.generation == report.generation and again.chunks_total == report.chunks_total
    assert "vector_index" not in second.__dict__, "the store should not have been opened"

    (corpus / "platform/disk-full.md").unlink()
    changed = second.ingest(corpus)
    assert changed.removed == ("runbooks:platform/disk-full",)
    assert "vector_index" in second.__dict__
    second.close()
    after = read_manifest(data)
    assert after is not None and "runbooks:platform/disk-full" not in after.documents
    assert after.generation == changed.generation


def test_held_store_is_reported_even_when_unchanged(tmp_path: Path, embedder: FastEmbedder) -> None:
    data = tmp_path / "data"
    server = runtime(data, embedder)
    server.ingest(SAMPLE_RUNBOOKS)
    assert local_store_locked(server.settings.qdrant_local_path)
    other = runtime(data, embedder)
    with pytest.raises(IndexLockedError, match="in use by another"):
        other.ingest(SAMPLE_RUNBOOKS)
    server.close()
    assert not local_store_locked(server.settings.qdrant_local_path)
    assert other.ingest(SAMPLE_RUNBOOKS).unchanged == 13


def test_store_restored_from_an_older_backup_is_not_trusted(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    corpus = tmp_path / "runbooks"
    shutil.copytree(SAMPLE_RUNBOOKS, corpus)
    data = tmp_path / "data"
    first = runtime(data, embedder)
    assert first.ingest(corpus).generation == 1
    first.close()
    backup = tmp_path / "qdrant-backup"
    shutil.copytree(data / "qdrant", backup)

    (corpus / "platform/disk-full.md").unlink()
    second = runtime(data, embedder)
    assert second.ingest(corpus).removed == ("runbooks:platform/disk-full",)
    second.close()
    manifest = read_manifest(data)
    assert manifest is not None and manifest.generation == 2

    shutil.rmtree(data / "qdrant")
    shutil.copytree(backup, data / "qdrant")  # the store is older than the manifest
    third = runtime(data, embedder)
    try:
        report = third.ingest(corpus)
        assert report.removed == ("runbooks:platform/disk-full",), (
            "the restored store was not synced"
        )
        assert report.generation == 3  # above every generation this data dir has served
        assert "runbooks:platform/disk-full" not in third.vector_index.manifest()
        assert all(d.path != "platform/disk-full.md" for d in third.searcher.search("disk full"))
    finally:
        third.close()
    again = runtime(data, embedder)
    assert again.ingest(corpus).unchanged == 12
    assert "vector_index" not in again.__dict__, "the store should agree with the manifest now"
    again.close()
