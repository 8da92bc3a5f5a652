"""Re-ingest sources in-process when they change (``serve --watch DIR``).

The watcher runs in a background thread next to the bot, so the re-ingest works on
the embedded index that the bot process already holds. Each source is synced on its
own: a change under one folder re-ingests that folder's source only, and sources
without a folder (Notion) are synced every ``remote_interval`` seconds. Changes are
debounced (an editor's save or a ``git pull`` is one burst, one ingest).
``watchfiles`` does the watching; when it cannot (no inotify, too many watches) the
watcher polls file modification times instead. Errors are logged and the watcher
carries on: a malformed runbook is reported and skipped by the ingest itself, the
rest is indexed; a source that cannot be read keeps its previous documents, and so
does a folder moved away or emptied (a sync never removes every document of a source
unless asked to, which the watcher never does).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import cast

from bot.runtime import Runtime
from ingest.sources.base import Source
from ingest.sync import IngestReport

log = logging.getLogger("runbook_bot.watcher")

DEFAULT_POLL_INTERVAL = 2.0
DEFAULT_DEBOUNCE_MS = 400
DEFAULT_REMOTE_INTERVAL = 300.0  # seconds between syncs of a source without a folder
_IGNORED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules"})

Fingerprint = dict[str, tuple[int, int]]


def fingerprint(root: Path) -> Fingerprint:
    """(mtime in ns, size) of every file under ``root`` (dot-directories skipped)."""
    found: Fingerprint = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in _IGNORED_DIRS and not d.startswith(".")]
        for name in filenames:
            path = os.path.join(dirpath, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            found[path] = (st.st_mtime_ns, st.st_size)
    return found


def _sources(runtime: Runtime, what: Path | str | Source | Sequence[Source]) -> tuple[Source, ...]:
    if isinstance(what, (Path, str)):
        return (runtime.folder_source(Path(what)),)
    if isinstance(what, Sequence):
        return tuple(cast(Sequence[Source], what))
    return (what,)


class RunbookWatcher:
    """Watches the sources' folders (a folder given as a path: the default source) and
    re-runs the ingest of a source after its changes settle."""

    def __init__(
        self,
        runtime: Runtime,
        sources: Path | str | Source | Sequence[Source],
        interval: float = DEFAULT_POLL_INTERVAL,
        *,
        debounce_ms: int = DEFAULT_DEBOUNCE_MS,
        initial_sync: bool = True,
        force_polling: bool = False,
        on_ingest: Callable[[IngestReport], None] | None = None,
        remote_interval: float = DEFAULT_REMOTE_INTERVAL,
    ) -> None:
        self.runtime = runtime
        self.sources = _sources(runtime, sources)
        self.interval = interval
        self.debounce_ms = debounce_ms
        self.initial_sync = initial_sync
        self.force_polling = force_polling
        self.on_ingest = on_ingest
        self.remote_interval = remote_interval
        self.last_report: IngestReport | None = None
        self.runs = 0
        self.errors = 0
        self._stop = threading.Event()
        self._ingest_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._remote_due = time.monotonic() + remote_interval

    @property
    def folders(self) -> dict[Path, Source]:
        """The folders watched, each with its source."""
        return {s.watch_path: s for s in self.sources if s.watch_path is not None}

    @property
    def remote(self) -> tuple[Source, ...]:
        return tuple(s for s in self.sources if s.watch_path is None)

    @property
    def directory(self) -> Path | None:
        """The first folder watched."""
        return next(iter(self.folders), None)

    # -- lifecycle ---------------------------------------------------------------

    def start(self) -> RunbookWatcher:
        if self._thread is not None:
            return self
        for folder in self.folders:
            if not folder.is_dir():
                raise NotADirectoryError(f"--watch: {folder} is not a directory")
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="runbook-watcher", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=timeout)
            self._thread = None

    def wait_ready(self, timeout: float | None = None) -> bool:
        """True once the initial sync is done and the watching has begun."""
        return self._ready.wait(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- work --------------------------------------------------------------------

    def ingest_now(self, sources: Iterable[Source] | None = None) -> IngestReport | None:
        """Run one ingest of each of ``sources`` (default: all); the last report, or None
        (logged) when one failed."""
        last: IngestReport | None = None
        failed = False
        for source in self.sources if sources is None else sources:
            report = self._ingest(source)
            failed = failed or report is None
            last = report or last
        return None if failed else last

    def _ingest(self, source: Source) -> IngestReport | None:
        with self._ingest_lock:
            try:
                report = self.runtime.ingest(source)
            except Exception as exc:  # never let one bad run kill the watcher
                self.errors += 1
                log.error(
                    "re-ingest of %s failed: %s: %s",
                    source.name,
                    type(exc).__name__,
                    exc,
                    exc_info=exc,
                )
                return None
            self.runs += 1
            self.last_report = report
        for skipped in report.skipped:
            log.warning("re-ingest of %s skipped %s", source.name, skipped)
        for warning in report.warnings:
            log.warning("re-ingest of %s: %s", source.name, warning)
        log.info("re-ingested %s: %s", source.name, report.summary())
        if self.on_ingest is not None:
            try:
                self.on_ingest(report)
            except Exception:
                log.exception("on_ingest callback failed")
        return report

    def _sync_remote_when_due(self) -> None:
        if self.remote and time.monotonic() >= self._remote_due:
            self._remote_due = time.monotonic() + self.remote_interval
            self.ingest_now(self.remote)

    def _changed_sources(self, paths: Iterable[str]) -> list[Source]:
        """The sources whose folders hold ``paths``, in their configured order."""
        hit: set[str] = set()
        for raw in paths:
            path = Path(raw)
            for folder, source in self.folders.items():
                if path.is_relative_to(folder) or path.is_relative_to(folder.resolve()):
                    hit.add(source.name)
        return [s for s in self.sources if s.name in hit]

    def _run(self) -> None:
        try:
            # what the folders held before the first ingest: an edit made while it runs, or
            # before the watch is armed, is caught up against this, never lost
            before = {folder: fingerprint(folder) for folder in self.folders}
            if self.initial_sync and not self._stop.is_set():
                self.ingest_now()
            if not self.folders:
                self._ready.set()
                while not self._stop.wait(min(self.interval, self.remote_interval)):
                    self._sync_remote_when_due()
            elif self.force_polling or not self._watch(before):
                self._poll(before)
        finally:
            self._ready.set()

    def _watch(self, before: dict[Path, Fingerprint]) -> bool:
        """Watch with watchfiles until stopped; False when it cannot (then poll). Ready
        once the watch is armed (its first yield), after catching up with any folder that
        changed since ``before``."""
        try:
            from watchfiles import watch
        except ImportError:
            return False
        armed = False
        try:
            for changes in watch(
                *self.folders,
                stop_event=self._stop,
                debounce=self.debounce_ms,
                rust_timeout=500,
                yield_on_timeout=True,
                raise_interrupt=False,
            ):
                if self._stop.is_set():
                    break
                if not armed:
                    armed = True
                    missed = [s for f, s in self.folders.items() if fingerprint(f) != before[f]]
                    if missed:
                        self.ingest_now(missed)
                    self._ready.set()
                if changes:
                    changed = self._changed_sources(path for _, path in changes)
                    log.info("%d change(s) in %s", len(changes), ", ".join(s.name for s in changed))
                    self.ingest_now(changed)
                self._sync_remote_when_due()
        except Exception as exc:
            if self._stop.is_set():
                return True
            folders = ", ".join(map(str, self.folders))
            log.warning("watchfiles failed (%s); polling %s instead", exc, folders)
            return False
        return True

    def _poll(self, before: dict[Path, Fingerprint]) -> None:
        folders = self.folders
        log.info("polling %s every %.1fs for changes", ", ".join(map(str, folders)), self.interval)
        seen = dict(before)  # a change since the first ingest began shows at the first tick
        self._ready.set()
        while not self._stop.wait(self.interval):
            self._sync_remote_when_due()
            for folder, source in folders.items():
                try:
                    now = fingerprint(folder)
                except Exception:
                    log.exception("scanning %s failed", folder)
                    continue
                if now == seen[folder]:
                    continue
                seen[folder] = self._settled(folder, now)
                if not self._stop.is_set():
                    self.ingest_now([source])

    def _settled(self, folder: Path, now: Fingerprint) -> Fingerprint:
        """Debounce: wait until a burst of writes has settled."""
        deadline = time.monotonic() + max(self.debounce_ms / 1000, 0.0)
        while time.monotonic() < deadline and not self._stop.is_set():
            time.sleep(0.05)
            later = fingerprint(folder)
            if later != now:
                now = later
                deadline = time.monotonic() + self.debounce_ms / 1000
        return now
