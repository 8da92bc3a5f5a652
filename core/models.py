"""The values that flow between ingest, retrieval and the bot.

Every value is an immutable pydantic model with ``extra="forbid"`` so that it
serializes to JSON (cache, CLI ``--json``, Slack) and rejects unknown fields.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.heading_text import without_title_label

DocType = Literal["runbook", "incident", "adr", "doc"]
AnswerState = Literal["answer", "unsure", "abstain"]
AbstainReason = Literal[
    "no-match",
    "low-confidence",
    "no-command",
    "no-value",
    "no-steps",
    "access-denied",
    "only-superseded-sources",
    "unwritten",
]
# no runbook shows the detail the question asked for (a command, a value, the steps of
# the operation asked for): the closest runbooks are on the topic, and offered
# (retrieval.reading.asked_detail, retrieval.reading.asked_operation)
MISSING_DETAIL: tuple[AbstainReason, ...] = ("no-command", "no-value", "no-steps")
WarningKind = Literal[
    "stale",
    "superseded",
    "deprecated",
    "ownerless",
    "restricted-omitted",
    "unverified-llm-fallback",
    "scope-incomplete",
    "unwritten-section",
    "detail-not-shown",
]

DEFAULT_ACCESS_GROUP = "everyone"


_NOT_ALNUM = re.compile(r"[^a-z0-9]")


def normalize_name(text: str) -> str:
    """A name for matching: lowercase letters and digits only (``KubeProxy Down`` ->
    ``kubeproxydown``)."""
    return _NOT_ALNUM.sub("", text.lower())


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class EmptySection(Frozen):
    """A heading with nothing under it: no text and no subsection."""

    heading_path: tuple[str, ...]
    start: int  # offset of the heading in the original document text


class DocumentMetadata(Frozen):
    """What a document says about itself (front matter) plus what ingest derived."""

    service: str | None = None
    owner: str | None = None
    updated: date | None = None
    review_every_days: int | None = None
    status: str = "current"
    doc_type: DocType = "runbook"
    access: tuple[str, ...] = (DEFAULT_ACCESS_GROUP,)
    tags: tuple[str, ...] = ()
    revision: str = ""
    url: str | None = None
    superseded_by: str | None = None
    alerts: tuple[str, ...] = ()  # alert names this runbook answers (front matter ``alerts:``)
    # who is on call for it: a PagerDuty service or escalation policy id (front matter)
    pagerduty_service: str | None = None
    pagerduty_escalation_policy: str | None = None
    # heading paths of the sections with nothing under them (``## Mitigation`` then the
    # next heading): no chunk holds them, yet an answer says they are not written
    empty_sections: tuple[EmptySection, ...] = ()


class Document(Frozen):
    source_id: str
    path: str  # relative to the ingested root, POSIX separators
    title: str
    text: str  # the original file text, unmodified
    content_hash: str
    metadata: DocumentMetadata


def section_name(path: tuple[str, ...], title: str) -> str:
    """A heading path as a section's name: without a top heading that merely repeats the
    title; the title when there is no heading."""
    if len(path) > 1 and normalize_name(without_title_label(path[0])) == normalize_name(title):
        path = path[1:]
    return " > ".join(path) if path else title


class Chunk(Frozen):
    chunk_id: str
    source_id: str
    path: str
    title: str
    heading_path: tuple[str, ...]
    text: str  # as indexed: title and heading path prepended
    start: int  # offsets into the ORIGINAL document text
    end: int
    content_hash: str  # of the document the chunk came from
    line: int  # 1-based line of ``start`` in the original text
    metadata: DocumentMetadata

    @property
    def section(self) -> str:
        """The heading path without a top heading that merely repeats the title."""
        return section_name(self.heading_path, self.title)

    @property
    def link(self) -> str:
        """The source link at this chunk's line ("" when the document has none)."""
        return (self.metadata.url or "").replace("{line}", str(self.line))


class Hit(Frozen):
    chunk: Chunk
    dense_rank: int | None = None
    dense_score: float | None = None
    keyword_rank: int | None = None
    keyword_score: float | None = None
    fused_score: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The section as ``search --json`` lists it: where it is, its ranks, its link."""
        c, m = self.chunk, self.chunk.metadata
        return {
            "section": c.section,
            "start": c.start,
            "end": c.end,
            "line": c.line,
            "dense_rank": self.dense_rank,
            "keyword_rank": self.keyword_rank,
            "url": c.link,
            "owner": m.owner,
            "updated": m.updated.isoformat() if m.updated else None,
        }


class DocumentHits(Frozen):
    """One document in a result list, with its best sections, best first."""

    source_id: str
    path: str
    title: str
    score: float
    hits: tuple[Hit, ...]

    @property
    def best(self) -> Hit:
        return self.hits[0]

    def to_json(self) -> dict[str, Any]:
        """The document as ``search --json`` lists it, with its best sections."""
        return {
            "path": self.path,
            "title": self.title,
            "score": round(self.score, 5),
            "sections": [h.to_json() for h in self.hits],
        }


class SearchFilter(Frozen):
    groups: tuple[str, ...] | None = None  # None = no access filtering (admin)
    doc_types: tuple[str, ...] | None = None
    services: tuple[str, ...] | None = None
    # answer from these documents only (an alert's runbook_url, a thread's runbook)
    sources: tuple[str, ...] | None = None
    # the heading the link to a pinned document points at (runbook_url's #anchor): in a
    # file of several runbooks, the one to answer from
    anchor: str | None = None


class Precondition(Frozen):
    """A section of the cited runbook that says what must be in place before the quoted
    steps ("Prerequisites", "Before you begin"), named and linked above them."""

    heading: str  # its own heading, as written without decoration ("Prerequisites")
    section: str  # its heading path, as citations name sections
    url: str | None  # the source at the indexed revision, at its heading's line
    line: int


class Citation(Frozen):
    source_id: str
    title: str
    section: str
    path: str
    url: str | None
    revision: str
    start: int
    end: int
    line: int
    quote: str
    owner: str | None
    updated: date | None
    age_days: int | None
    doc_type: str = "runbook"
    status: str = "current"
    access: tuple[str, ...] = (DEFAULT_ACCESS_GROUP,)
    service: str | None = None
    superseded_by: str | None = None
    note: str | None = None  # what part of a cut procedure is shown: "steps 1-3 of 7"
    # a quoted table row's header and separator lines, verbatim from the same table
    header: str | None = None
    # the quote's links to other runbooks, as written, with that runbook's URL (a site
    # address such as "/manual/purge-cache" does not resolve on the code host); and its
    # reference links by "[label]", with the target their definition elsewhere in the
    # document gives (the runbook's URL when it names one)
    links: tuple[tuple[str, str], ...] = ()
    # what the runbook says must be in place before these steps (the nearest
    # "Prerequisites" before them), shown above the quote; on the first quote it governs
    before: Precondition | None = None

    @property
    def shown_text(self) -> str:
        """The quote as shown: a table's row under the table's header."""
        return f"{self.header}\n{self.quote}" if self.header else self.quote


class Suggestion(Frozen):
    """A runbook close to the question that may not answer it: linked, never quoted."""

    source_id: str
    title: str
    section: str
    path: str
    url: str | None
    line: int
    owner: str | None
    access: tuple[str, ...] = (DEFAULT_ACCESS_GROUP,)
    service: str | None = None
    doc_type: str = "runbook"
    # the linked section sends the reader elsewhere for the steps ("see the rotation
    # docs"): that pointer, verbatim, quoted with its link
    pointer: str | None = None


class AnswerWarning(Frozen):
    kind: WarningKind
    message: str
    source_id: str | None = None


class Answer(Frozen):
    state: AnswerState
    text: str
    question: str = ""
    citations: tuple[Citation, ...] = ()
    related: tuple[Citation, ...] = Field(default=(), description="related incidents")
    suggestions: tuple[Suggestion, ...] = Field(
        default=(),
        description="closest runbooks when not sure (state 'unsure'); beside a best guess "
        "(an answer not sure), the next closest runbooks",
    )
    warnings: tuple[AnswerWarning, ...] = ()
    reason: AbstainReason | None = None
    search_link: str | None = None
    generation: int = 0
    confidence: float = 0.0
    # within the fitted "sure" band; False: a best guess, to check against the runbook
    # before acting on it (labelled so, and never offered for posting to the channel)
    sure: bool = True
    mode: str = "extractive"
    closest_owner: str | None = None
    closest_service: str | None = None
    read_as: tuple[tuple[str, str], ...] = Field(
        default=(), description="typos in the question and the words they were read as"
    )
