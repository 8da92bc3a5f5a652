"""The answers below a confident one: "not sure" (the closest runbooks, each linked at
its best part, no quote) and "no runbook covers this", with the reason shown; and the
runbooks a best guess names beside its own, in case it quoted the wrong one."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date

from core.heading_text import plain_section
from core.models import (
    MISSING_DETAIL,
    AbstainReason,
    Answer,
    AnswerWarning,
    Suggestion,
)
from retrieval.answer.answer_config import AnswerConfig
from retrieval.answer.citations import chunk_url
from retrieval.answer.doc_warnings import superseded_note
from retrieval.answer.outline import Part
from retrieval.answer.quoting import Quoter
from retrieval.answer.retrieved import Candidate, Retrieval
from retrieval.answer.runbook_parts import RunbookParts

UNSURE_TEXT = "Not sure these answer it: the closest runbooks."
# a runbook is offered beside the closest one only when its confidence is at least this
# share of the closest one's (and above the "not sure" bar): no unrelated runbook fills a slot
SUGGEST_SHARE = 0.6
MAX_POINTER_CHARS = 400  # a section this short that links elsewhere and shows no steps
_LINK = re.compile(r"\]\([^)\s]+\)|<https?://|https?://\S")
REASON_TEXT: dict[str, str] = {
    "no-match": "No runbook covers this.",
    "low-confidence": "No runbook covers this.",
    "no-command": "No runbook shows a command for this.",
    "no-value": "No runbook gives the value or setting asked for.",
    "no-steps": "No runbook says how to do this.",
    "access-denied": "A runbook you cannot read may cover this; ask its owners for access.",
    "only-superseded-sources": "Only superseded or deprecated documents mention this.",
    "unwritten": "The runbook for this is not written yet.",
}


class NotAnswered:
    def __init__(self, config: AnswerConfig, parts: RunbookParts, quoter: Quoter) -> None:
        self._config = config
        self._parts = parts
        self._quoter = quoter

    def answer(
        self,
        r: Retrieval,
        confident: Sequence[Candidate],
        warnings: list[AnswerWarning],
        link: str | None,
        today: date,
        hidden_answer: Callable[[], bool],
        *,
        missing: AbstainReason | None = None,  # the detail asked for is not shown
        checked: float | None = None,
    ) -> Answer:
        """The "not sure" tier (closest runbooks, no quote) or an abstention.
        ``confident``: superseded documents that alone answer; ``hidden_answer``: does a
        runbook the asker cannot read answer (asked only when it matters)? ``checked``:
        the lead's confidence once its quotes were checked, when they took it below the
        bar: what the answer reports; whether the runbook is offered ("not sure") still
        goes by how close it came before the checks, as it is on the question's topic."""
        model = self._config.model
        reason: AbstainReason
        if confident:
            reason = "only-superseded-sources"
            warnings.append(superseded_note(confident[0].chunk, None))
        elif not r.runbooks and not r.incidents:
            reason = "no-match"
        else:
            reason = missing or "low-confidence"
        if reason != "only-superseded-sources" and hidden_answer():
            reason = "access-denied"
        best = max((c.confidence for c in r.runbooks), default=0.0)
        # the closest runbooks are offered only when they may help: below the "not sure"
        # bar they are the nearest of unrelated runbooks, and listing them would read as
        # an answer where the honest one is that no runbook covers this
        offers = reason == "low-confidence" or reason in MISSING_DETAIL
        unsure = offers and best >= model.suggest_at
        closest = (r.runbooks or r.incidents or (None,))[0]
        return Answer(
            state="unsure" if unsure else "abstain",
            text=(UNSURE_TEXT if reason == "low-confidence" else REASON_TEXT[reason])
            if unsure
            else REASON_TEXT[reason],
            question=r.question.text,
            reason=reason,
            warnings=tuple(warnings),
            related=tuple(
                self._quoter.cite(c, r, today)[0]
                for c in confident[:1]
                if reason == "only-superseded-sources"
            ),
            suggestions=self.suggest(r) if unsure else (),
            search_link=link,
            generation=r.generation,
            confidence=round(best if checked is None else checked, 4),
            closest_owner=closest.chunk.metadata.owner if closest is not None else None,
            closest_service=closest.chunk.metadata.service if closest is not None else None,
        )

    def unwritten(
        self,
        r: Retrieval,
        cand: Candidate,
        runbook: Sequence[Part],
        warnings: Sequence[AnswerWarning],
        link: str | None,
    ) -> Answer:
        """The runbook asked about (``runbook``: the candidate's parts) is only a
        placeholder: say so and link it, never quote another one."""
        offered = self.suggestion(cand, runbook, r)
        return Answer(
            state="abstain",
            text=REASON_TEXT["unwritten"],
            question=r.question.text,
            reason="unwritten",
            warnings=tuple(warnings),
            suggestions=(offered,),
            search_link=link,
            generation=r.generation,
            confidence=round(max((c.confidence for c in r.runbooks), default=0.0), 4),
            closest_owner=offered.owner,
            closest_service=offered.service,
        )

    def suggest(self, r: Retrieval) -> tuple[Suggestion, ...]:
        """The closest runbooks, each linked to its best-matching part. A file of runbooks
        offers the one the question is about, and its next ones where places are left."""
        limit = self._config.max_suggestions
        best = max((c.confidence for c in r.runbooks[:limit]), default=0.0)
        floor = max(self._config.model.suggest_at, best * SUGGEST_SHARE)
        offered = [
            c
            for n, c in enumerate(r.runbooks[:limit])
            if c.active and (n == 0 or c.confidence >= floor)
        ]
        runbooks = [self._parts.runbooks(c, r) for c in offered]
        picks = [(c, found[0]) for c, found in zip(offered, runbooks, strict=True) if found]
        for c, found in zip(offered, runbooks, strict=True):
            picks += [(c, more) for more in found[1:]]
        return tuple(self.suggestion(c, parts, r) for c, parts in picks[:limit])

    def alternatives(self, r: Retrieval, quoted: frozenset[str]) -> tuple[Suggestion, ...]:
        """The next closest runbooks beside a best guess's (``quoted``: the source ids it
        quotes), each linked at the part the search matched best: a runbook of one
        template among many (one alert of a family) is easily taken for its sibling, and
        the reader who finds the quote wrong has the next candidates at hand. Held to the
        bar the "not sure" runbooks meet, so no unrelated runbook is named."""
        limit = self._config.max_alternatives
        best = max((c.confidence for c in r.runbooks), default=0.0)
        floor = max(self._config.model.suggest_at, best * SUGGEST_SHARE)
        named: list[Suggestion] = []
        for c in r.runbooks[: self._config.candidates_considered]:
            if len(named) >= limit:
                break  # each one named costs reading its parts: no more than are shown
            if not c.active or c.doc.source_id in quoted or c.confidence < floor:
                continue
            found = self._parts.runbooks(c, r)
            if found:  # linked where the search found it best, not ranked again
                hit = c.chunk.chunk_id
                part = next((p for p in found[0] if p.chunk.chunk_id == hit), found[0][0])
                named.append(self.linked(c, part))
        return tuple(named)

    def suggestion(self, c: Candidate, parts: Sequence[Part], r: Retrieval) -> Suggestion:
        """The runbook (``parts`` of the candidate's document) linked at its best part."""
        ranked = self._parts.rank(parts, r, c)
        return self.linked(c, ranked[0].part if ranked else None)

    def linked(self, c: Candidate, part: Part | None) -> Suggestion:
        """The candidate's runbook, linked at ``part`` (None: at its best hit's chunk)."""
        chunk = part.chunk if part is not None else c.chunk
        line = part.line_of(part.body_start) if part is not None else chunk.line
        m = chunk.metadata
        return Suggestion(
            source_id=chunk.source_id,
            title=chunk.title,
            section=part.section if part is not None else plain_section(chunk.section),
            path=chunk.path,
            url=chunk_url(chunk, line),
            line=line,
            owner=m.owner,
            access=m.access,
            service=m.service,
            doc_type=m.doc_type,
            pointer=part.body.strip() if part is not None and _points_elsewhere(part) else None,
        )


def _points_elsewhere(part: Part) -> bool:
    """Does the part only send the reader elsewhere for the steps: short, a link, no
    steps or code of its own ("Rotation: see the [rotation docs](…)")?"""
    body = part.body.strip()
    return len(body) <= MAX_POINTER_CHARS and bool(_LINK.search(body)) and not part.shows_steps
