"""Each unanswered question's draft and where it stands, for the gaps report and the
App Home: a pull request still open, merged, and closed once its runbook is indexed."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bot.drafts.errors import PublishError
from bot.drafts.ledger import DraftLedger, DraftRecord, question_key
from bot.drafts.publishing import DraftState, Publisher
from bot.reports import GapGroup

log = logging.getLogger("runbook_bot.drafts")
STATE_TTL_SECONDS = 300.0


@dataclass(frozen=True)
class GapDraft:
    """The draft made for one unanswered question."""

    title: str
    path: str
    kind: str  # "pull_request" or "file"
    url: str | None
    state: DraftState
    number: int | None
    indexed: bool  # a runbook at its path is in the index now

    @property
    def closed(self) -> bool:
        """Merged and ingested: the question has its runbook."""
        return self.indexed and self.state != "closed"

    def label(self) -> str:
        if self.closed:
            return f"closed: answered by {self.path}"
        if self.kind == "pull_request":
            return f"pull request #{self.number} {self.state}"
        return f"draft {self.path} sent as a file"


class DraftTracker:
    def __init__(
        self,
        ledger: DraftLedger,
        publisher: Callable[[], Publisher],
        *,
        ttl_seconds: float = STATE_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        files: Path | None = None,
    ) -> None:
        self.ledger = ledger
        self.files = files  # where drafts handed over as files are kept
        self._publisher = publisher
        self._ttl = ttl_seconds
        self._clock = clock
        self._checked = -float("inf")
        self._lock = threading.Lock()

    def refresh(self, *, force: bool = False) -> None:
        """Ask the repository where each open pull request stands (at most every few
        minutes); a repository that cannot be asked leaves the states as they were."""
        with self._lock:
            now = self._clock()
            if not force and now - self._checked < self._ttl:
                return
            self._checked = now
        pending = [r for r in self.ledger.records() if r.state == "open"]
        if not pending:
            return
        try:
            publisher = self._publisher()
            states = [(r, publisher.state(r.published)) for r in pending]
        except PublishError as exc:
            log.warning("could not read the drafts' pull requests: %s", exc)
            return
        self.ledger.update_states(states)

    def for_gaps(self, indexed_paths: Collection[str]) -> dict[str, GapDraft]:
        """question key -> its latest draft (keys as :func:`question_key` makes them)."""
        self.refresh()
        return {key: _gap(r, indexed_paths) for key, r in self.ledger.by_question().items()}

    @staticmethod
    def key(question: str) -> str:
        return question_key(question)


def _gap(record: DraftRecord, indexed_paths: Collection[str]) -> GapDraft:
    p = record.published
    return GapDraft(
        title=record.title,
        path=p.path,
        kind=p.kind,
        url=p.url,
        state=p.state,
        number=p.number,
        indexed=p.path in indexed_paths,
    )


def with_drafts(groups: Sequence[GapGroup], drafts: Mapping[str, GapDraft]) -> list[GapGroup]:
    """The gaps report with each question's draft and its state (the question is closed
    once its runbook is merged and indexed)."""
    if not drafts:
        return list(groups)
    out = []
    for g in groups:
        questions = []
        for q in g.questions:
            d = drafts.get(question_key(q.question))
            questions.append(q if d is None else replace(q, draft=d.label(), draft_url=d.url))
        out.append(replace(g, questions=tuple(questions)))
    return out
