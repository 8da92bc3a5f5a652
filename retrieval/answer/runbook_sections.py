"""Parts of cited runbooks that the bot shows besides the answer's quotes.

Derived from the live index (the per-generation search snapshot), verbatim like every
quote:

* :meth:`RunbookSections.escalation`: a document's Escalation section (who to call when
  the steps do not work), shown under the answer;
* :meth:`RunbookSections.action_first`: in an alert's thread the alert is right above,
  so an answer that would open by restating the alert's symptoms (or the runbook's
  introduction) opens with the runbook's first action section instead (the author's
  first step), quoted verbatim with offsets like any other citation;
* :meth:`RunbookSections.actions`: the document's action sections, linked under the
  answer so that the other fixes are one click away;
* :meth:`RunbookSections.preconditions`: what a quoted procedure needs in place first
  (its "Prerequisites"), named above it (:mod:`retrieval.answer.preconditions`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from core.models import Answer, Citation, normalize_name
from retrieval.answer.citations import chunk_url, lead_text, make_citation
from retrieval.answer.outline import Part, outline
from retrieval.answer.preconditions import with_preconditions
from retrieval.answer.quote_spans import quote_part, quote_parts
from retrieval.answer.topics import topic_of
from retrieval.reading import (
    AskContext,
    SectionKind,
    heading_kinds,
    leads_with_action,
    parse_alert_text,
    query_terms,
    tokenize,
)
from retrieval.search import Snapshot

#: sections that tell an on-call engineer something to do or check
USEFUL_FIRST: frozenset[SectionKind] = frozenset({"act", "diagnose", "escalate"})
MAX_ESCALATION_CHARS = 900


@dataclass(frozen=True)
class Section:
    """One section of a live document, verbatim."""

    source_id: str
    section: str  # heading path, as citations name it
    markdown: str  # the section's body, verbatim
    url: str | None  # the source at the indexed revision, at the section's line


#: sections that describe the problem rather than what to do about it
RESTATING: frozenset[SectionKind] = frozenset({"symptoms", "meaning"})


def citation_kinds(citation: Citation) -> frozenset[SectionKind]:
    return heading_kinds(tuple(citation.section.split(" > ")))


def restates(citation: Citation) -> bool:
    """Does the quote describe the problem (symptoms, impact, the runbook's introduction)
    rather than say what to do or check?"""
    if normalize_name(citation.section) == normalize_name(citation.title):
        return True  # the runbook's introduction
    kinds = citation_kinds(citation)
    return not kinds & USEFUL_FIRST and bool(kinds & RESTATING)


class RunbookSections:
    """Sections of live documents, from ``snapshot()`` (the current generation)."""

    def __init__(
        self,
        snapshot: Callable[[], Snapshot],
        today: Callable[[], date] = date.today,
    ) -> None:
        self._snapshot = snapshot
        self._today = today

    def _parts(self, snap: Snapshot, source_id: str, section: str | None = None) -> list[Part]:
        """The document's parts; in a file of several runbooks, only those of the runbook
        that ``section`` (a citation's) lies in."""
        return topic_of(outline(snap, source_id), section)

    def escalation(self, source_id: str, section: str | None = None) -> Section | None:
        """The document's Escalation section (its first part whose heading path is about
        escalating), or None; ``section`` is a cited section (see :meth:`_parts`)."""
        snap = self._snapshot()
        for part in self._parts(snap, source_id, section):
            if "escalate" in heading_kinds(part.heading_path) and part.body.strip():
                body = part.body.strip()
                if len(body) > MAX_ESCALATION_CHARS:
                    cut = body.rfind("\n", 0, MAX_ESCALATION_CHARS)
                    body = body[: cut if cut > 0 else MAX_ESCALATION_CHARS].rstrip()
                return Section(
                    source_id,
                    part.section,
                    body,
                    chunk_url(part.chunk, part.line_of(part.body_start)),
                )
        return None

    def lead(self, answer: Answer, question: str, context: AskContext) -> Answer:
        """``answer`` led as ``question`` asked in ``context`` wants it, the one rule every
        surface and ``make quality`` follow (:mod:`retrieval.reading.leading`)."""
        if not leads_with_action(question, context):
            return answer
        return self.action_first(answer, question)

    def action_first(self, answer: Answer, question: str) -> Answer:
        """``answer`` opening with something to do: when its lead quote describes the
        problem (symptoms, impact, the runbook's introduction), the lead document's first
        action section (or else its first diagnosis section) is quoted instead of the
        document's quotes, which were chosen for a description; its other action
        sections are linked under the answer (:meth:`actions`)."""
        if answer.state != "answer" or not answer.citations:
            return answer
        lead = answer.citations[0]
        if not restates(lead):
            return answer
        snap = self._snapshot()
        parts = self._parts(snap, lead.source_id, lead.section)
        best = self._best(parts, ("act", "diagnose"))
        if best is None:
            return answer
        quote = quote_part(best, _terms(question), snap.term_stats)
        first = make_citation(
            best.chunk,
            quote.start,
            quote.end,
            quote.text,
            best.line_of(quote.start),
            self._today(),
            best.section,
            quote.note or _steps_note(parts, best, quote.text),
        )
        kept = [c for c in answer.citations if c.source_id != lead.source_id]
        text = lead_text(best.chunk, best.section)
        return answer.model_copy(update={"citations": (first, *kept), "text": text})

    def continue_after(
        self, answer: Answer, shown: Sequence[str], *, escalate: bool, question: str = ""
    ) -> Answer | None:
        """A follow-up in a thread about ``answer``'s lead runbook, which has shown the
        sections ``shown``: the runbook's next action section after the last one shown
        (``escalate``: its Escalation section; also when no action follows), quoted
        whole and verbatim; None when the runbook has neither. In a file of several
        runbooks the thread stays with the runbook it has shown, whichever runbook of
        the file the follow-up's own words are closest to."""
        if answer.state != "answer" or not answer.citations:
            return None
        lead = answer.citations[0]
        snap = self._snapshot()
        parts = self._parts(snap, lead.source_id, shown[0] if shown else lead.section)
        pick: Part | None = None
        if not escalate:
            seen = [i for i, p in enumerate(parts) if _is_shown(p.section, shown)]
            after = parts[seen[-1] + 1 :] if seen else parts
            pick = next(
                (
                    p
                    for p in after
                    if "act" in heading_kinds(p.heading_path)
                    and "escalate" not in heading_kinds(p.heading_path)
                    and not _is_shown(p.section, shown)
                ),
                None,
            )
        if pick is None:
            pick = next((p for p in parts if "escalate" in heading_kinds(p.heading_path)), None)
        if pick is None:
            return None
        pick = _section_start(parts, pick)
        today = self._today()
        citations = tuple(
            make_citation(
                q.part.chunk,
                q.start,
                q.end,
                q.text,
                q.part.line_of(q.start),
                today,
                q.part.section,
                q.note,
            )
            for q in quote_parts(pick, parts, _terms(question), snap.term_stats)
        )
        nxt = answer.model_copy(update={"citations": citations, "related": ()})
        return self.preconditions(nxt, shown)

    def preconditions(self, answer: Answer, shown: Sequence[str] = ()) -> Answer:
        """``answer`` with each quoted procedure's precondition section (the nearest
        "Prerequisites" or "Before you begin" that governs it) named on its first quote,
        read from the live documents' outlined parts; ``shown``: sections a thread has
        shown already (:func:`retrieval.answer.preconditions.with_preconditions`)."""
        snap = self._snapshot()
        return with_preconditions(answer, lambda source_id: outline(snap, source_id), shown)

    def actions(self, source_id: str, section: str | None = None) -> list[Section]:
        """The document's action sections, in the document's order (one per heading);
        ``section`` is a cited section (see :meth:`_parts`)."""
        snap = self._snapshot()
        out: dict[tuple[str, ...], Section] = {}
        for part in self._parts(snap, source_id, section):
            if "act" in heading_kinds(part.heading_path) and part.heading_path not in out:
                url = chunk_url(part.chunk, part.line_of(part.body_start))
                out[part.heading_path] = Section(source_id, part.section, part.body, url)
        return list(out.values())

    def _best(self, parts: Sequence[Part], kinds: Sequence[SectionKind]) -> Part | None:
        """The first section of the first of ``kinds`` in the document's order: the
        runbook's own first step (the others are linked under the answer)."""
        for kind in kinds:
            for part in parts:
                if kind in heading_kinds(part.heading_path):
                    return _section_start(parts, part)
        return None


def _is_shown(section: str, shown: Sequence[str]) -> bool:
    """Was ``section`` shown, itself or as part of a section shown whole?"""
    return any(section == s or section.startswith(s + " > ") for s in shown)


def _terms(question: str) -> list[str]:
    """The question's terms without the alert's name: a runbook names its alert in its
    symptoms and in "watch the alert resolve", which says nothing about which fix fits."""
    alert = parse_alert_text(question).alert_name
    named = set(tokenize(alert)) if alert else set()
    return [t for t in query_terms(question) if t not in named]


def _section_start(parts: Sequence[Part], part: Part) -> Part:
    """The first piece of ``part``'s section (a long section is indexed in pieces): a
    procedure is read from its first step."""
    for candidate in parts:
        if candidate.heading_path == part.heading_path:
            return candidate
    return part


_STEP = re.compile(r"^(\d+)[.)]\s", re.MULTILINE)


def _steps_note(parts: Sequence[Part], part: Part, quoted: str) -> str | None:
    """ "steps 1-3 of 5" when the quote shows the first steps of a section whose later
    steps lie in a further piece."""
    total = sum(len(_STEP.findall(p.body)) for p in parts if p.heading_path == part.heading_path)
    shown = len(_STEP.findall(quoted))
    if shown == 0 or total <= shown:
        return None
    return f"steps 1-{shown} of {total}" if shown > 1 else f"step 1 of {total}"
