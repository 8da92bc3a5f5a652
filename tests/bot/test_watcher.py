"""The watcher syncs each source on its own: a folder's changes re-ingest that folder's
source only; a source without a folder is synced on a timer."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from bot.runtime import Runtime
from bot.settings import load_settings
from bot.watcher import RunbookWatcher
from ingest.sources.base import SourceRead
from ingest.sync import IngestReport
from retrieval.search.embeddings import FastEmbedder


@pytest.fixture()
def rt(tmp_path: Path, embedder: FastEmbedder) -> Iterator[Runtime]:
    runtime = Runtime(load_settings(data_dir=tmp_path / "data"), embedder=embedder)
    yield runtime
    runtime.close()


def folder(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    root.mkdir()
    (root / "a.md").write_text(f"# {name} a\n\n## Steps\n\nRestart {name}.\n", encoding="utf-8")
    return root


class CountingRemote:
    """A source without a folder (like Notion): counts how often it is read."""

    def __init__(self) -> None:
        self.reads = 0

    @property
    def name(self) -> str:
        return "remote"

    @property
    def watch_path(self) -> None:
        return None

    def read(self, known: Mapping[str, str]) -> SourceRead:
        self.reads += 1
        return SourceRead()


def wait_until(check: object, timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("polling", [True, False])
def test_a_change_reingests_only_its_folders_source(
    rt: Runtime, tmp_path: Path, polling: bool
) -> None:
    payments, checkout = folder(tmp_path, "payments"), folder(tmp_path, "checkout")
    remote = CountingRemote()
    reports: list[IngestReport] = []
    lock = threading.Lock()

    def seen(report: IngestReport) -> None:
        with lock:
            reports.append(report)

    sources = [rt.folder_source(payments, "payments"), rt.folder_source(checkout, "checkout")]
    watcher = RunbookWatcher(
        rt,
        [*sources, remote],
        interval=0.2,
        debounce_ms=100,
        force_polling=polling,
        on_ingest=seen,
        remote_interval=0.5,
    )
    watcher.start()
    try:
        assert watcher.wait_ready(60)
        assert [r.source for r in reports[:3]] == ["payments", "checkout", "remote"]
        assert set(rt.vector_index.manifest()) == {"payments:a", "checkout:a"}
        with lock:
            reports.clear()
        (checkout / "b.md").write_text("# b\n\n## Steps\n\nScale it.\n", encoding="utf-8")
        assert wait_until(lambda: any(r.added == ("checkout:b",) for r in list(reports)))
        assert wait_until(lambda: remote.reads >= 3)  # on its timer, without any change
        with lock:
            folders_synced = {r.source for r in reports if r.source != "remote"}
        assert folders_synced == {"checkout"}
    finally:
        watcher.stop()
    assert not watcher.running


@pytest.mark.parametrize("polling", [True, False])
def test_an_edit_made_while_the_watch_starts_is_not_lost(
    rt: Runtime, tmp_path: Path, polling: bool
) -> None:
    payments = folder(tmp_path, "payments")
    edited: list[IngestReport] = []

    def edit_after_first_ingest(report: IngestReport) -> None:
        # the first ingest has read the folder and the watch is not armed yet
        if not edited:
            edited.append(report)
            (payments / "b.md").write_text("# b\n\n## Steps\n\nScale it.\n", encoding="utf-8")

    watcher = RunbookWatcher(
        rt,
        [rt.folder_source(payments, "payments")],
        interval=0.2,
        debounce_ms=100,
        force_polling=polling,
        on_ingest=edit_after_first_ingest,
    ).start()
    try:
        assert watcher.wait_ready(60)
        assert edited and edited[0].added == ("payments:a",)
        assert wait_until(lambda: "payments:b" in rt.vector_index.manifest(), timeout=10)
    finally:
        watcher.stop()
