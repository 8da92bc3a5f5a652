"""Which unanswered question got which draft, and where that draft stands.

A small JSON file in the data dir (0600), written whole on each change, so the gaps
report (CLI, Slack, web) and the App Home show each question's draft or pull request.
Questions are stored redacted; people only as the query log's user hashes.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from bot.drafts.publishing import DraftState, Published
from core.redact import redact
from state.private_file import open_private

log = logging.getLogger("runbook_bot.drafts")
LEDGER_FILE = "drafts.json"


def question_key(question: str) -> str:
    """The same question however it is spaced or capitalized (as the gaps report)."""
    return " ".join(redact(question).casefold().split())


@dataclass(frozen=True)
class DraftRecord:
    question: str  # redacted; "" for a draft not made for an asked question
    title: str
    service: str | None
    published: Published
    thread_url: str | None
    user_hash: str
    created: float

    @property
    def key(self) -> str:
        return question_key(self.question)

    @property
    def state(self) -> DraftState:
        return self.published.state


class DraftLedger:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / LEDGER_FILE
        self._lock = threading.Lock()

    def records(self) -> list[DraftRecord]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            log.warning("the drafts ledger %s could not be read: %s", self.path, exc)
            return []
        return [r for r in (_record(item) for item in raw) if r is not None]

    def add(self, record: DraftRecord) -> None:
        with self._lock:
            self._write([*self.records(), record])

    def update_states(self, states: Iterable[tuple[DraftRecord, DraftState]]) -> None:
        changed = {(r.published.path, r.created): s for r, s in states if s != r.state}
        if not changed:
            return
        with self._lock:
            out = []
            for r in self.records():
                state = changed.get((r.published.path, r.created))
                out.append(
                    r if state is None else replace(r, published=replace(r.published, state=state))
                )
            self._write(out)

    def by_question(self) -> dict[str, DraftRecord]:
        """The latest draft of each question."""
        out: dict[str, DraftRecord] = {}
        for r in sorted(self.records(), key=lambda r: r.created):
            if r.question:
                out[r.key] = r
        return out

    def _write(self, records: list[DraftRecord]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        data = json.dumps([asdict(r) for r in records], indent=1)
        with os.fdopen(
            open_private(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "w", encoding="utf-8"
        ) as fh:
            fh.write(data)
        os.replace(tmp, self.path)


def _record(item: Any) -> DraftRecord | None:
    try:
        published = Published(**item["published"])
        return DraftRecord(**{**item, "published": published})
    except (TypeError, KeyError):
        return None


def new_record(
    question: str | None,
    title: str,
    service: str | None,
    published: Published,
    thread_url: str | None,
    user_hash: str,
) -> DraftRecord:
    return DraftRecord(
        question=redact(question or ""),
        title=title,
        service=service,
        published=published,
        thread_url=thread_url,
        user_hash=user_hash,
        created=time.time(),
    )
