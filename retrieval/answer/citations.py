"""Citations: a quoted span of an indexed document with its link, owner and age."""

from __future__ import annotations

from datetime import date
from urllib.parse import quote_plus

from core.heading_text import plain_section
from core.models import Chunk, Citation


def search_link(template: str | None, question: str) -> str | None:
    """The runbook repository's search for ``question`` (``{query}`` in the template)."""
    return template.replace("{query}", quote_plus(question)) if template else None


def chunk_url(chunk: Chunk, line: int | None = None) -> str | None:
    """The chunk's source link at its indexed revision, at ``line`` (else its first)."""
    url = chunk.metadata.url
    return url.replace("{line}", str(line or chunk.line)) if url else None


def make_citation(
    chunk: Chunk,
    start: int,
    end: int,
    quote: str,
    line: int,
    today: date,
    section: str | None = None,
    note: str | None = None,
    header: str | None = None,
) -> Citation:
    m = chunk.metadata
    return Citation(
        source_id=chunk.source_id,
        title=chunk.title,
        section=section or plain_section(chunk.section),
        path=chunk.path,
        url=chunk_url(chunk, line),
        revision=m.revision,
        start=start,
        end=end,
        line=line,
        quote=quote,
        owner=m.owner,
        updated=m.updated,
        age_days=(today - m.updated).days if m.updated else None,
        doc_type=m.doc_type,
        status=m.status,
        access=m.access,
        service=m.service,
        superseded_by=m.superseded_by,
        note=note,
        header=header,
    )


def lead_text(chunk: Chunk, section: str) -> str:
    """The line an answer opens with: which document and section its first quote is
    from ("From the runbook *Title*, section *Mitigation*:")."""
    kind = {"incident": "incident write-up", "adr": "decision record"}.get(
        chunk.metadata.doc_type, "runbook"
    )
    return f"From the {kind} *{chunk.title}*, section *{section}*:"
