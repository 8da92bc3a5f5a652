"""The quotes an answer shows from one document: the parts that answer the question,
each with the lead-in that introduces it, and the procedure a pointer step names
(another runbook's section, or a section of its own) quoted after it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from core.link_references import REFERENCE_LINK, ref_key
from core.markup import syntax_for
from core.models import Citation, SearchFilter
from retrieval.answer.citations import chunk_url, make_citation
from retrieval.answer.composer import (
    action_elsewhere,
    choose_parts,
    fact_given,
    from_the_first_step,
    names_the_procedure,
    procedure_step,
    step_note,
    steps_below,
    whole_procedure,
)
from retrieval.answer.outline import Part, within
from retrieval.answer.part_ranking import SectionWeights, anchored_heading, lead_in, lead_with
from retrieval.answer.pointers import named_within, pointed_to, pointed_within, runbook_links
from retrieval.answer.quote_spans import quote_parts
from retrieval.answer.retrieved import Candidate, Retrieval, current
from retrieval.answer.runbook_parts import RunbookParts
from retrieval.permissions import readable
from retrieval.reading import (
    Detail,
    Intent,
)

# asked what to do (or nothing but the alert): the quotes show the steps
STEPS_WANTED: tuple[Intent, ...] = ("act", "procedure", "unspecified")


class Quoter:
    def __init__(self, parts: RunbookParts, sections: SectionWeights) -> None:
        self._parts = parts
        self._sections = sections

    def cite(
        self, cand: Candidate, r: Retrieval, today: date, *, follow: SearchFilter | None = None
    ) -> tuple[Citation, ...]:
        """Quotes of the parts of the candidate's document that answer the question.
        ``follow``: the first quoted part that only points at a shared procedure (see
        :mod:`pointers`) is followed, and the procedure quoted after it, when the filter
        lets the asker read it."""
        intent = r.question.intent
        ranked = self._parts.ranked(cand, r)
        parts = [s.part for s in ranked]
        out: list[Citation] = []
        detail = r.question.detail
        acting = intent in STEPS_WANTED
        what_to_do = r.question.what_to_do
        named_only = intent in ("unspecified", "act") and self._parts.bare(cand, r)
        chosen = choose_parts(ranked, intent, self._sections, detail, what_to_do, named_only)
        if r.question.where_to_start:
            chosen = from_the_first_step(chosen, ranked)
        elif (
            chosen
            and detail is None
            and names_the_procedure(r.question.terms, chosen[0].part, cand.chunk.title)
            and (intent in ("procedure", "act") or named_only)
        ):
            # "how do i drain a node": the whole procedure, not "Step 2: Drain the node";
            # "drain a node", the runbook's name alone, asks for it too
            chosen = whole_procedure(chosen, ranked)
        below = None  # the steps a lead that only introduces them lays out below it
        if chosen and not fact_given(detail, chosen[0]) and intent in (*STEPS_WANTED, "diagnose"):
            below = steps_below(chosen[0], ranked)
        if below is not None and any(
            s.part.heading_path == below.part.heading_path for s in chosen
        ):
            below = None  # quoted already (one section may be indexed in pieces)
        if below is not None:
            chosen = [chosen[0], below, *chosen[1:]]
        whole = sorted(self._parts.parts(cand.doc.source_id, cand.chunk, r), key=lambda p: p.start)
        shown = [s.part for s in chosen]
        for sp in chosen:
            intro = _introduced_by(sp.part, whole)  # a lead-in is never chosen itself
            if intro is not None:
                out.extend(self._quotes(intro, whole, r, today, acting))
            quotes = self._quotes(sp.part, parts, r, today, acting)
            # a numbered step quoted for what to do says which of the steps it is
            stepped = sp is below or (acting and procedure_step(sp.part))
            note = step_note(sp.part, whole, shown) if stepped else None
            if note is not None and quotes and quotes[-1].note is None:
                quotes[-1] = quotes[-1].model_copy(update={"note": note})
            out.extend(quotes)
            linked = None
            if follow is not None:
                linked = self._followed(sp.part, r, follow.groups, intent, detail, what_to_do)
            if linked is not None and any(
                c.part.under(linked[0].heading_path)
                and c.part.chunk.source_id == linked[0].chunk.source_id
                for c in chosen
            ):
                linked = None  # the section pointed at is quoted already
            if linked is not None:
                out.extend(self._quotes(*linked, r, today, acting))
                follow = None  # one procedure followed: the answer stays short
        elsewhere = action_elsewhere(chosen, whole) if intent in STEPS_WANTED else None
        if elsewhere is not None and not any(
            c.source_id == elsewhere.chunk.source_id and elsewhere.start <= c.start < elsewhere.end
            for c in out
        ):
            out.extend(self._quotes(elsewhere, whole, r, today, acting))  # where the steps are
        return _once(out)

    def _quotes(
        self, part: Part, parts: Sequence[Part], r: Retrieval, today: date, acting: bool
    ) -> list[Citation]:
        out = []
        for q in quote_parts(part, parts, r.question.terms, r.snapshot.term_stats, acting=acting):
            p = q.part
            line = p.line_of(q.start)
            cited = make_citation(
                p.chunk, q.start, q.end, q.text, line, today, p.section, q.note, q.header
            )
            links = self._quote_links(p, q.text, r)
            out.append(cited.model_copy(update={"links": links}) if links else cited)
        return out

    def _quote_links(self, part: Part, text: str, r: Retrieval) -> tuple[tuple[str, str], ...]:
        """The quote's links to other runbooks (by file path, site address or reference),
        each with the URL of that runbook at its indexed revision (of the section its
        #anchor names): a site address would not resolve on the code host. Only runbooks
        that whoever may read the quoting one may read too. And its reference links
        whose ``[label]: url`` definition is elsewhere in the document (often at its
        end), by their label: they link as the inline link they stand for would."""
        body = syntax_for(part.chunk.path).as_markdown(text)
        # the document's definitions, read only when the quote may use one
        refs = self._parts.link_definitions(part, r) if REFERENCE_LINK.search(body) else {}
        access = set(part.chunk.metadata.access)
        out: dict[str, str] = {}
        for target, doc, anchor in runbook_links(part, body, r.snapshot.site_pages, refs):
            chunks = r.snapshot.chunks_by_source.get(doc)
            if target.startswith("#") or not chunks or target in out:
                continue
            if not access <= set(chunks[0].metadata.access):
                continue
            parts = self._parts.parts(doc, chunks[0], r)
            heading = anchored_heading(parts, anchor) if anchor else None
            section = next((p for p in parts if p.heading_path == heading), None)
            url = chunk_url(section.chunk) if section else chunk_url(chunks[0], 1)
            if url:
                out[target] = url
        # a reference link ("[the restore][restore]") by its label, in brackets: to the
        # runbook its definition names, else to the definition's target as written
        for m in REFERENCE_LINK.finditer(body):
            label = ref_key(m["ref"] or m["text"])
            defined = refs.get(label)
            if defined is not None:
                out[f"[{label}]"] = out.get(defined, defined)
        return tuple(out.items())

    def _followed(
        self,
        part: Part,
        r: Retrieval,
        groups: tuple[str, ...] | None,
        intent: Intent,
        detail: Detail | None,
        what_to_do: bool,
    ) -> tuple[Part, list[Part]] | None:
        """The part of the shared procedure ``part`` points at to quote (the linked
        #anchor's section, else the one the question asks for) and the procedure's
        parts: None when ``part`` is no pointer, or the procedure is not indexed,
        readable or current. A pointer to a section of its own runbook: that section,
        unless it is ``part`` itself or holds it."""
        refs = self._parts.link_definitions(part, r)
        target = pointed_to(part, r.snapshot.site_pages, refs)
        if target is None:
            return self._followed_within(part, r, refs)
        source_id, anchor = target
        chunks = r.snapshot.chunks_by_source.get(source_id)
        if not chunks:
            return None
        if not readable(chunks[0], groups) or not current(chunks[0]):
            return None
        parts = self._parts.parts(source_id, chunks[0], r)
        heading = anchored_heading(parts, anchor) if anchor else None
        ranked = lead_with(self._parts.rank(parts, r), heading)
        chosen = choose_parts(ranked, intent, self._sections, detail, what_to_do)
        return (chosen[0].part, parts) if chosen else None

    def _followed_within(
        self, part: Part, r: Retrieval, refs: Mapping[str, str]
    ) -> tuple[Part, list[Part]] | None:
        """The section of ``part``'s own runbook that its one ``#anchor`` link names
        (``refs``: the runbook's link definitions), or that it names in words."""
        anchor = pointed_within(part, r.snapshot.site_pages, refs)
        parts = self._parts.parts(part.chunk.source_id, part.chunk, r)
        # a pointer by #anchor, or one that names the section in words
        heading = anchored_heading(parts, anchor) if anchor else named_within(part, parts)
        if heading is None:
            return None
        if part.under(heading) or within(heading, part.heading_path):
            return None  # the part itself, or a section that holds it
        target = next((p for p in parts if p.heading_path == heading and p.holds_answer), None)
        return (target, parts) if target is not None else None


def _introduced_by(part: Part, ordered: Sequence[Part]) -> Part | None:
    """The lead-in right before ``part`` that introduces it ("If the pod is running, the
    problem might be with Prometheus. Check the following:"), when ``part`` is its first
    subsection."""
    i = next((i for i, p in enumerate(ordered) if p.start == part.start), None)
    if not i:
        return None
    before = ordered[i - 1]
    return before if lead_in(before, part) else None


def _once(quotes: Sequence[Citation]) -> tuple[Citation, ...]:
    """Each quoted span once: two chosen pieces of one section quote it whole each."""
    seen: set[tuple[str, int, int]] = set()
    out = []
    for c in quotes:
        key = (c.source_id, c.start, c.end)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return tuple(out)
