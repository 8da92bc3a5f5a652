"""A source folder that is missing, not a folder, or empty while the index holds its
documents is an error for that source: its documents stay live, the other sources are
still synced, and only ``--allow-empty`` removes every document of a source."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.runtime import Runtime
from bot.settings import load_settings
from bot.watcher import RunbookWatcher
from ingest.errors import EmptySourceError, SourceUnavailableError
from ingest.manifest import read_manifest
from retrieval.search.embeddings import FastEmbedder


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def repo(root: Path, svc: str) -> Path:
    write(root, "db/failover.md", f"# {svc} DB failover\n\n## Mitigation\n\n1. Promote it.\n")
    write(root, "cache.md", f"# {svc} cache\n\n## Steps\n\nFlush the {svc} cache.\n")
    return root


@pytest.fixture()
def rt(tmp_path: Path, embedder: FastEmbedder) -> Iterator[Runtime]:
    runtime = Runtime(load_settings(data_dir=tmp_path / "data"), embedder=embedder)
    yield runtime
    runtime.close()


def live_ids(rt: Runtime) -> set[str]:
    return set(rt.vector_index.manifest())


PAYMENTS = {"payments:db/failover", "payments:cache"}


@pytest.mark.parametrize("accident", ["moved away", "replaced by a file", "emptied"])
def test_an_absent_or_empty_folder_leaves_its_documents_live(
    rt: Runtime, tmp_path: Path, accident: str
) -> None:
    root = repo(tmp_path / "payments", "payments")
    source = rt.folder_source(root, "payments")
    assert set(rt.ingest(source).added) == PAYMENTS
    generation = rt.vector_index.generation()
    shutil.rmtree(root)
    if accident == "replaced by a file":
        root.write_text("not a folder\n", encoding="utf-8")
    elif accident == "emptied":
        root.mkdir()
    with pytest.raises(SourceUnavailableError, match="payments") as raised:
        rt.ingest(source)
    if accident == "emptied":
        assert isinstance(raised.value, EmptySourceError)
        assert "2 documents" in str(raised.value)
    assert live_ids(rt) == PAYMENTS
    assert rt.vector_index.generation() == generation


def test_allow_empty_removes_every_document_of_the_source(rt: Runtime, tmp_path: Path) -> None:
    root = repo(tmp_path / "payments", "payments")
    source = rt.folder_source(root, "payments")
    rt.ingest(source)
    shutil.rmtree(root)
    root.mkdir()
    options = rt.ingest_options(allow_empty=True)
    assert set(rt.ingest(source, options).removed) == PAYMENTS
    assert live_ids(rt) == set()
    # an empty folder the index holds nothing of is no error
    assert rt.ingest(source).removed == ()


def test_cli_reports_the_missing_source_and_still_syncs_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    payments = repo(tmp_path / "payments", "payments")
    checkout = repo(tmp_path / "checkout", "checkout")
    config = tmp_path / "sources.yaml"
    config.write_text(
        "sources:\n"
        "  - {name: payments, kind: markdown_dir, path: payments}\n"
        "  - {name: checkout, kind: markdown_dir, path: checkout}\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("RUNBOOK_SOURCES_PATH", str(config))
    data = tmp_path / "data"

    def run(*more: str) -> int:
        return main(["--data-dir", str(data), "ingest", *more])

    assert run() == 0
    shutil.rmtree(payments)
    write(checkout, "new.md", "# checkout new\n\n## Steps\n\nDo it.\n")
    capsys.readouterr()
    assert run() == 1
    captured = capsys.readouterr()
    assert "payments" in captured.err and "does not exist" in captured.err
    assert "stay" in captured.err
    assert "checkout: added 1" in captured.out
    manifest = read_manifest(data)
    assert manifest is not None
    assert PAYMENTS | {"checkout:new"} <= set(manifest.documents)

    payments.mkdir()
    assert run() == 1
    assert "--allow-empty" in capsys.readouterr().err
    assert run("--allow-empty") == 0
    assert "payments: added 0, changed 0, removed 2" in capsys.readouterr().out
    manifest = read_manifest(data)
    assert manifest is not None and not PAYMENTS & set(manifest.documents)


def test_a_folder_named_on_the_command_line_that_is_missing_fails_only_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = repo(tmp_path / "checkout", "checkout")
    data = str(tmp_path / "data")
    missing = tmp_path / "paymnets"
    code = main(["--data-dir", data, "ingest", f"payments={missing}", f"checkout={checkout}"])
    assert code == 1
    captured = capsys.readouterr()
    assert str(missing) in captured.err and "checkout: added 2" in captured.out


def test_the_watcher_never_applies_a_folder_moved_away(rt: Runtime, tmp_path: Path) -> None:
    root = repo(tmp_path / "payments", "payments")
    source = rt.folder_source(root, "payments")
    rt.ingest(source)
    generation = rt.vector_index.generation()
    watcher = RunbookWatcher(rt, [source], initial_sync=False)
    parked = tmp_path / "parked"
    root.rename(parked)
    assert watcher.ingest_now() is None and watcher.errors == 1
    root.mkdir()
    assert watcher.ingest_now() is None and watcher.errors == 2
    root.rmdir()
    parked.rename(root)
    back = watcher.ingest_now()
    assert back is not None and back.unchanged == 2 and back.chunks_embedded == 0
    assert live_ids(rt) == PAYMENTS and rt.vector_index.generation() == generation
