"""Re-ingest a runbook folder in-process when its files change (``serve --watch DIR``).

The watcher runs in a background thread next to the bot, so the re-ingest works on
the embedded index that the bot process already holds. Changes are debounced (an
editor's save or a ``git pull`` is one burst, one ingest). ``watchfiles`` does the
watching; when it cannot (no inotify, too many watches) the watcher polls file
modification times instead. Errors are logged and the watcher carries on: a malformed
runbook is reported and skipped by the ingest itself, the rest is indexed.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bot.runtime import Runtime
from ingest.sync import IngestReport

log = logging.getLogger("runbook_bot.watcher")

DEFAULT_POLL_INTERVAL = 2.0
DEFAULT_DEBOUNCE_MS = 400
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


class RunbookWatcher:
    """Watches ``directory`` and re-runs the ingest after changes settle."""

    def __init__(
        self,
        runtime: Runtime,
        directory: Path,
        interval: float = DEFAULT_POLL_INTERVAL,
        *,
        debounce_ms: int = DEFAULT_DEBOUNCE_MS,
        initial_sync: bool = True,
        force_polling: bool = False,
        on_ingest: Callable[[IngestReport], None] | None = None,
    ) -> None:
        self.runtime = runtime
        self.directory = Path(directory)
        self.interval = interval
        self.debounce_ms = debounce_ms
        self.initial_sync = initial_sync
        self.force_polling = force_polling
        self.on_ingest = on_ingest
        self.last_report: IngestReport | None = None
        self.runs = 0
        self.errors = 0
        self._stop = threading.Event()
        self._ingest_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    # -- lifecycle ---------------------------------------------------------------

    def start(self) -> RunbookWatcher:
        if self._thread is not None:
            return self
        if not self.directory.is_dir():
            raise NotADirectoryError(f"--watch: {self.directory} is not a directory")
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

    def ingest_now(self) -> IngestReport | None:
        """Run one ingest of the directory; None (logged) when it failed."""
        with self._ingest_lock:
            try:
                report = self.runtime.ingest(self.directory)
            except Exception as exc:  # never let one bad run kill the watcher
                self.errors += 1
                log.error(
                    "re-ingest of %s failed: %s: %s",
                    self.directory,
                    type(exc).__name__,
                    exc,
                    exc_info=exc,
                )
                return None
            self.runs += 1
            self.last_report = report
        for skipped in report.skipped:
            log.warning("re-ingest skipped %s", skipped)
        for warning in report.warnings:
            log.warning("re-ingest: %s", warning)
        log.info("re-ingested %s: %s", self.directory, report.summary())
        if self.on_ingest is not None:
            try:
                self.on_ingest(report)
            except Exception:
                log.exception("on_ingest callback failed")
        return report

    def _run(self) -> None:
        try:
            if self.initial_sync and not self._stop.is_set():
                self.ingest_now()
            if self.force_polling or not self._watch():
                self._poll()
        finally:
            self._ready.set()

    def _watch(self) -> bool:
        """Watch with watchfiles until stopped; False when it cannot (then poll)."""
        try:
            from watchfiles import watch
        except ImportError:
            return False
        try:
            self._ready.set()
            for changes in watch(
                self.directory,
                stop_event=self._stop,
                debounce=self.debounce_ms,
                rust_timeout=500,
                yield_on_timeout=False,
                raise_interrupt=False,
            ):
                if self._stop.is_set():
                    break
                log.info("%d change(s) under %s", len(changes), self.directory)
                self.ingest_now()
        except Exception as exc:
            if self._stop.is_set():
                return True
            log.warning("watchfiles failed (%s); polling %s instead", exc, self.directory)
            return False
        return True

    def _poll(self) -> None:
        log.info("polling %s every %.1fs for changes", self.directory, self.interval)
        seen = fingerprint(self.directory)
        self._ready.set()
        while not self._stop.wait(self.interval):
            try:
                now = fingerprint(self.directory)
            except Exception:
                log.exception("scanning %s failed", self.directory)
                continue
            if now == seen:
                continue
            # debounce: wait until a burst of writes has settled
            deadline = time.monotonic() + max(self.debounce_ms / 1000, 0.0)
            while time.monotonic() < deadline and not self._stop.is_set():
                time.sleep(0.05)
                later = fingerprint(self.directory)
                if later != now:
                    now = later
                    deadline = time.monotonic() + self.debounce_ms / 1000
            seen = now
            if not self._stop.is_set():
                self.ingest_now()
