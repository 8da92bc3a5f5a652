"""`runbook-bot ingest --reindex`: the rebuilt index continues the generations, so no
answer cached from the old index shares a key with the new one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.cli import main
from bot.runtime import Runtime
from bot.settings import load_settings
from ingest.manifest import read_manifest
from retrieval.search.embeddings import FastEmbedder
from state.answer_cache import CacheKey
from tests.conftest import RedisServer

STEPS = "# Checkout cache\n\n## Steps\n\nFlush the {what} cache with `redis-cli FLUSHDB`.\n"


def generation(out: str) -> int:
    found = re.findall(r"generation (\d+)", out)
    assert found, out
    return int(found[-1])


def test_a_reindex_publishes_above_every_earlier_generation(
    tmp_path: Path,
    embedder: FastEmbedder,
    redis_server: RedisServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "runbooks"
    root.mkdir()
    doc = root / "cache.md"
    data = tmp_path / "data"
    base = ["--data-dir", str(data), "--redis-url", redis_server.url, "ingest", str(root)]
    for what in ("checkout", "session", "orders"):
        doc.write_text(STEPS.format(what=what), encoding="utf-8")
        assert main(base) == 0
    assert generation(capsys.readouterr().out) == 3

    # an answer cached from the old index, within its TTL
    rt = Runtime(load_settings(data_dir=data, redis_url=redis_server.url), embedder=embedder)
    answer = rt.extractive.answer("how do I flush the checkout cache?")
    old_key = CacheKey("how do I flush the checkout cache?", "everyone", 3, "extractive")
    rt.cache.put(old_key, answer)
    rt.close()

    assert main([*base, "--reindex"]) == 0
    rebuilt = generation(capsys.readouterr().out)
    assert rebuilt > 3
    manifest = read_manifest(data)
    assert manifest is not None and manifest.generation == rebuilt

    rt = Runtime(load_settings(data_dir=data, redis_url=redis_server.url), embedder=embedder)
    live = rt.vector_index.generation()
    new_key = CacheKey(old_key.question, old_key.scope_id, live, "extractive")
    assert live == rebuilt
    assert rt.cache.get(new_key, lambda _cited: True) is None
    rt.close()


def test_a_reindex_that_publishes_nothing_keeps_the_generations_growing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "runbooks"
    root.mkdir()
    doc = root / "cache.md"
    data = ["--data-dir", str(tmp_path / "data"), "ingest", str(root)]
    for what in ("checkout", "session"):
        doc.write_text(STEPS.format(what=what), encoding="utf-8")
        assert main(data) == 0
    assert generation(capsys.readouterr().out) == 2

    doc.write_bytes(b"\x00binary")  # the rebuild indexes nothing (the file is skipped)
    assert main([*data, "--reindex"]) == 3
    capsys.readouterr()
    doc.write_text(STEPS.format(what="orders"), encoding="utf-8")
    assert main(data) == 0
    assert generation(capsys.readouterr().out) > 2


def test_a_reindex_of_a_missing_folder_drops_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "runbooks"
    root.mkdir()
    (root / "cache.md").write_text(STEPS.format(what="checkout"), encoding="utf-8")
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "ingest", str(root)]) == 0
    missing = tmp_path / "runbookz"
    assert main(["--data-dir", str(data), "ingest", str(missing), "--reindex"]) == 1
    assert "runbookz does not exist" in capsys.readouterr().err
    manifest = read_manifest(data)
    assert manifest is not None and list(manifest.documents) == ["runbooks:cache"]
    assert main(["--data-dir", str(data), "ingest", str(root)]) == 0
    assert "unchanged 1" in capsys.readouterr().out
