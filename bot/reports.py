"""Runbook health reports: stale, ownerless, unwritten and retired-but-linked documents;
answer gaps.

Pure functions over document metadata and query-log records (no I/O): the ``report``
command gathers the inputs, these functions rank and format them.

* :func:`stale_report` lists documents past their review date (their own ``review_every``
  wins over the global ``stale_after_days``), documents without an owner, and superseded
  or deprecated documents that current documents still link to, and runbooks whose
  sections are not written yet (a "TODO", or a heading with nothing under it: the
  answer says so to the engineer who needed it). Rows are ranked by how
  often answers cited the document recently, then by age: the stale runbook people keep
  reading comes first.
* :func:`gaps_report` groups the questions the bot could not answer (abstentions) or
  answered unhelpfully (``not_helpful`` feedback) by service. For one reader
  (:class:`GapReader`) it keeps only the rows whose cited runbooks and service they may
  read: a question answered from a restricted runbook is not shown to people outside it.

Every report has three renderings: fixed-width text and JSON here, and a Slack Block Kit
message in :mod:`bot.slack.report_view`.
"""

from __future__ import annotations

import dataclasses
import json
import posixpath
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import unquote

from core.heading_text import SECTION_SEPARATOR, plain_heading
from core.models import Chunk, DocumentMetadata, section_name
from core.redact import redact
from retrieval.answer import chunk_url, document_parts, stale_limit, stub
from retrieval.reading import heading_kinds
from state.querylog import Feedback, QueryRecord

RowKind = Literal["stale", "ownerless", "superseded", "deprecated", "unwritten"]
RETIRED_STATUSES = frozenset({"superseded", "deprecated"})
UNKNOWN_SERVICE = "unknown"
NOT_HELPFUL = "not_helpful"
#: Abstentions that say nothing about missing documentation: the bot failed, or the
#: answer exists but the asker may not read it.
DEFAULT_GAP_EXCLUDED_REASONS: tuple[str, ...] = ("error", "access-denied")
# the answers that quote nothing: no runbook covers it, or none surely does
UNANSWERED_STATES = frozenset({"abstain", "unsure"})

_KIND_ORDER: dict[str, int] = {
    "superseded": 0,
    "deprecated": 1,
    "stale": 2,
    "unwritten": 3,
    "ownerless": 4,
}


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class DocInfo:
    """What the reports need to know about one document."""

    source_id: str
    path: str
    title: str
    owner: str | None
    updated: date | None
    review_every_days: int | None
    status: str
    superseded_by: str | None
    doc_type: str
    service: str | None
    links: tuple[str, ...] = ()  # root-relative POSIX paths this document links to
    url: str | None = None
    access: tuple[str, ...] = ()  # groups that may read it
    # the runbook's sections not written yet (Meaning, Diagnosis, Mitigation, …: a TODO
    # or nothing under the heading), in document order; every one of them: ``whole``
    unwritten: tuple[str, ...] = ()
    whole_unwritten: bool = False


@dataclass(frozen=True)
class ReportRow:
    kind: RowKind
    source_id: str
    path: str
    title: str
    owner: str | None
    age_days: int | None
    detail: str
    citations: int | None  # None: the query log was not available
    updated: date | None = None
    limit_days: int | None = None  # stale rows: the review interval that applied
    linked_from: tuple[str, ...] = ()  # superseded/deprecated rows: paths of linking docs
    url: str | None = None


@dataclass(frozen=True)
class GapQuestion:
    question: str  # redacted
    count: int
    # the runbook drafted for it and where that stands ("pull request #3 open"), its link
    draft: str | None = None
    draft_url: str | None = None


@dataclass(frozen=True)
class GapGroup:
    service: str
    count: int
    questions: tuple[GapQuestion, ...]  # distinct questions, most asked first
    reasons: tuple[tuple[str, int], ...] = field(default=())  # ("no-match", 3), ...


# --------------------------------------------------------------------------- documents

_FENCED_CODE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.M | re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_INLINE_LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)\n]*)?\)")
_REFERENCE_DEF = re.compile(r"^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*<?([^\s>]+)>?", re.M)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _link_targets(text: str) -> Iterable[str]:
    text = _INLINE_CODE.sub("", _FENCED_CODE.sub("", text))
    for pattern in (_INLINE_LINK, _REFERENCE_DEF):
        for m in pattern.finditer(text):
            yield m.group(1)


def resolve_link(target: str, doc_path: str) -> str | None:
    """A Markdown link target as a root-relative POSIX path; None for external links,
    in-page anchors and paths that leave the ingested root."""
    target = target.strip()
    if not target or target.startswith(("#", "//")) or _SCHEME.match(target):
        return None
    target = unquote(target.split("#", 1)[0].split("?", 1)[0])
    if not target:
        return None
    if target.startswith("/"):
        joined = target.lstrip("/")
    else:
        joined = posixpath.join(posixpath.dirname(doc_path), target)
    norm = posixpath.normpath(joined)
    if norm in (".", "") or norm == ".." or norm.startswith("../"):
        return None
    return norm


def documents_from_chunks(chunks: Iterable[Chunk]) -> list[DocInfo]:
    """One :class:`DocInfo` per source id (in path order), links parsed from the chunks."""
    links: dict[str, dict[str, None]] = {}  # ordered sets
    by_doc: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_doc.setdefault(chunk.source_id, []).append(chunk)
        found = links.setdefault(chunk.source_id, {})
        for target in _link_targets(chunk.text):
            resolved = resolve_link(target, chunk.path)
            if resolved is not None and resolved != chunk.path:
                found[resolved] = None
    docs = [_doc_info(doc, tuple(links[sid])) for sid, doc in by_doc.items()]
    return sorted(docs, key=lambda d: d.path)


# the App Home and the Stale page list every document on each view: a document's chunks
# (frozen, the live snapshot's own) are read once, not on every view
@lru_cache(maxsize=1 << 16)
def _unwritten(chunks: tuple[Chunk, ...]) -> tuple[tuple[str, ...], bool]:
    """A runbook's sections not written yet, in document order, and whether that is all
    of it: a placeholder ("TODO", a template's prompts, a comment), or a section of the
    usual kinds (Meaning, Diagnosis, Mitigation, …) with nothing under its heading (a
    heading over a rule, or of no such kind, is a label between sections, not one left
    empty)."""
    meta = chunks[0].metadata
    if meta.doc_type != "runbook":
        return (), False
    parts = document_parts(chunks)
    # named below the heading every section sits under (``# KubeletPlegDurationHigh``)
    tops = {p.heading_path[:1] for p in parts}
    top = next(iter(tops)) if len(tops) == 1 and len(parts) > 1 else ()

    def name(path: tuple[str, ...]) -> str:
        plain = tuple(plain_heading(h) or h for h in path)
        below = plain[len(top) :] if plain[: len(top)] == top and len(plain) > len(top) else plain
        return section_name(below, chunks[0].title)

    found = [
        (p.start, name(p.heading_path))
        for p, after in zip(parts, [*parts[1:], None], strict=True)
        # a section's own heading, not the title's lead-in; nor a heading over subsections
        if p.own_path
        and stub(p.body)
        and (_says_something(p.body) or (not p.body.strip() and heading_kinds(p.own_path)))
        and not (after and after.under(p.heading_path) and after.heading_path != p.heading_path)
    ]
    for empty in meta.empty_sections:
        named = name(empty.heading_path)
        if heading_kinds(tuple(named.split(SECTION_SEPARATOR))):
            found.append((empty.start, named))
    names = tuple(dict.fromkeys(n for _, n in sorted(found)))
    whole = bool(parts) and all(stub(p.body) for p in parts)
    return names, whole


def unwritten_sections(chunks: Sequence[Chunk]) -> tuple[str, ...]:
    """A runbook's sections not written yet, as the Stale page and the App Home list
    them (the runbook's page warns of the same)."""
    return _unwritten(tuple(chunks))[0]


def _says_something(body: str) -> bool:
    return any(ch.isalnum() for ch in body)


def _doc_info(chunks: Sequence[Chunk], links: tuple[str, ...]) -> DocInfo:
    chunk = chunks[0]
    m = chunk.metadata
    url = chunk_url(chunk, 1)
    unwritten, whole = _unwritten(tuple(chunks))
    return DocInfo(
        source_id=chunk.source_id,
        path=chunk.path,
        title=chunk.title,
        owner=m.owner or None,
        updated=m.updated,
        review_every_days=m.review_every_days,
        status=m.status,
        superseded_by=m.superseded_by,
        doc_type=m.doc_type,
        service=m.service,
        links=links,
        url=url,
        access=m.access,
        unwritten=unwritten,
        whole_unwritten=whole,
    )


# --------------------------------------------------------------------------- stale report


def readable_by(docs: Iterable[DocInfo], group: str) -> list[DocInfo]:
    """The documents members of ``group`` may read (for a report posted to a channel)."""
    return [d for d in docs if group in d.access]


def citation_counts(records: Iterable[QueryRecord]) -> dict[str, int]:
    """How many answers cited each source id (a record citing a document twice counts once)."""
    counts: Counter[str] = Counter()
    for rec in records:
        counts.update(set(rec.cited))
    return dict(counts)


def _refers_to(ref: str, base_path: str, doc: DocInfo) -> bool:
    """Does ``ref`` (a path, source id or link written in ``base_path``) name ``doc``?"""
    names = {doc.path, doc.source_id}
    ref = ref.strip()
    if ref in names:
        return True
    resolved = resolve_link(ref, base_path)
    return resolved is not None and resolved in names


def _links_to(doc: DocInfo, target: DocInfo) -> bool:
    names = {target.path, target.source_id}
    return any(link in names for link in doc.links)


def stale_report(
    docs: Sequence[DocInfo],
    today: date,
    stale_after_days: int,
    citations_by_source: Mapping[str, int] | None = None,
) -> list[ReportRow]:
    """Stale, ownerless and retired-but-linked documents, most cited first, then oldest.

    Superseded and deprecated documents are reported only while a current document still
    links to them (their successor linking back to them does not count); they get no
    stale or ownerless rows, because nobody should review a retired document.
    ``citations_by_source`` None means the query log was unavailable: rows carry
    ``citations=None`` and rank by age alone.
    """
    rows: list[ReportRow] = []
    current = [d for d in docs if d.status not in RETIRED_STATUSES]

    def cited(doc: DocInfo) -> int | None:
        if citations_by_source is None:
            return None
        return int(citations_by_source.get(doc.source_id, 0))

    def row(doc: DocInfo, kind: RowKind, detail: str, **extra: Any) -> ReportRow:
        age = (today - doc.updated).days if doc.updated is not None else None
        return ReportRow(
            kind=kind,
            source_id=doc.source_id,
            path=doc.path,
            title=doc.title,
            owner=doc.owner,
            age_days=age,
            detail=detail,
            citations=cited(doc),
            updated=doc.updated,
            url=doc.url,
            **extra,
        )

    for doc in docs:
        if doc.status in RETIRED_STATUSES:
            linkers = [
                d.path
                for d in current
                if d.source_id != doc.source_id
                and _links_to(d, doc)
                and not (doc.superseded_by and _refers_to(doc.superseded_by, doc.path, d))
            ]
            if linkers:
                by = f" by {doc.superseded_by}" if doc.superseded_by else ""
                kind: RowKind = "deprecated" if doc.status == "deprecated" else "superseded"
                rows.append(
                    row(
                        doc,
                        kind,
                        f"{doc.status}{by}; still linked from {', '.join(sorted(linkers))}",
                        linked_from=tuple(sorted(linkers)),
                    )
                )
            continue
        meta = DocumentMetadata(updated=doc.updated, review_every_days=doc.review_every_days)
        limit = stale_limit(meta, stale_after_days)
        if doc.updated is not None and (today - doc.updated).days > limit:
            age = (today - doc.updated).days
            source = "its review_every" if doc.review_every_days else "stale_after_days"
            rows.append(
                row(
                    doc,
                    "stale",
                    f"last updated {doc.updated.isoformat()}, {_days(age)} ago; "
                    f"review every {_days(limit)} ({source})",
                    limit_days=limit,
                )
            )
        if doc.whole_unwritten or doc.unwritten:
            rows.append(
                row(
                    doc,
                    "unwritten",
                    "nothing written yet: every section is a placeholder"
                    if doc.whole_unwritten
                    else f"not written yet: {', '.join(doc.unwritten)}",
                )
            )
        if not doc.owner:
            rows.append(
                row(
                    doc,
                    "ownerless",
                    "no owner in front matter, an Owner: line, CODEOWNERS or OWNERS",
                )
            )

    rows.sort(
        key=lambda r: (
            -(r.citations or 0),
            -(r.age_days if r.age_days is not None else -1),
            _KIND_ORDER[r.kind],
            r.path,
        )
    )
    return rows


def _days(n: int) -> str:
    return "1 day" if n == 1 else f"{n} days"


# --------------------------------------------------------------------------- gaps report


@dataclass(frozen=True)
class GapReader:
    """Who a gaps report is for: their access groups, the access groups of every indexed
    runbook, and the services of the runbooks they may read.

    A row stemming from an answer is theirs to see only when they may read every runbook
    it cited, by the index now and by the groups recorded when it was answered (either
    one known is enough; neither: not shown), and when its service is one of a runbook
    they may read (an abstention names its closest runbook's service).
    """

    groups: frozenset[str]
    access: Mapping[str, tuple[str, ...]]  # source id -> groups that may read it
    services: frozenset[str]  # services of the runbooks ``groups`` may read

    @classmethod
    def of(cls, groups: Collection[str], chunks: Iterable[Chunk]) -> GapReader:
        mine = frozenset(groups)
        access: dict[str, tuple[str, ...]] = {}
        services: set[str] = set()
        for chunk in chunks:
            access.setdefault(chunk.source_id, tuple(chunk.metadata.access))
            if chunk.metadata.service and mine & set(chunk.metadata.access):
                services.add(chunk.metadata.service)
        return cls(mine, access, frozenset(services))

    def may_read(
        self,
        service: str | None,
        cited: Iterable[str],
        recorded: Mapping[str, Sequence[str]],
    ) -> bool:
        for source in cited:
            known = [g for g in (self.access.get(source), recorded.get(source)) if g is not None]
            if not known or not all(self.groups & set(g) for g in known):
                return False
        return service is None or service in self.services


def _question_key(question: str) -> str:
    return " ".join(question.casefold().split())


def gaps_report(
    records: Sequence[QueryRecord],
    feedback: Sequence[Feedback],
    *,
    exclude_reasons: Iterable[str] = DEFAULT_GAP_EXCLUDED_REASONS,
    reader: GapReader | None = None,
) -> list[GapGroup]:
    """Questions that ended in an abstention, a "not sure" or ``not_helpful`` feedback, by
    service.

    A request that abstained and was also marked not helpful counts once. Feedback without
    a service takes it from its query record. With a ``reader``, only the rows they may
    read (:meth:`GapReader.may_read`; feedback by what it and its record cited). Questions
    are redacted again (redaction is idempotent), so a hand-built record cannot leak a
    secret into a report. Groups are ordered by count, most frequent first; questions
    inside a group likewise.
    """
    excluded = frozenset(exclude_reasons)
    by_request = {r.request_id: r for r in records}
    seen: set[str] = set()
    entries: list[tuple[str, str, str]] = []  # (service, question, reason)
    for rec in records:
        # "not sure" answered no more than an abstention did: it offers the closest
        # runbooks and a draft of the missing one, as an abstention does
        if rec.state not in UNANSWERED_STATES or (rec.reason or rec.state) in excluded:
            continue
        seen.add(rec.request_id)
        if reader is not None and not reader.may_read(rec.service, rec.cited, rec.cited_access):
            continue
        entries.append((rec.service or UNKNOWN_SERVICE, rec.question, rec.reason or "abstain"))
    for fb in feedback:
        if fb.value != NOT_HELPFUL or fb.request_id in seen:
            continue
        seen.add(fb.request_id)
        source = by_request.get(fb.request_id)
        service = fb.service or (source.service if source else None)
        if reader is not None:
            cited = (*fb.cited, *(source.cited if source else ()))
            recorded = {**(source.cited_access if source else {}), **fb.cited_access}
            if not reader.may_read(service, cited, recorded):
                continue
        entries.append((service or UNKNOWN_SERVICE, fb.question, NOT_HELPFUL))

    groups: dict[str, list[tuple[str, str]]] = {}
    for service, question, reason in entries:
        groups.setdefault(service, []).append((redact(question), reason))

    out: list[GapGroup] = []
    for service, items in groups.items():
        counts: Counter[str] = Counter()
        shown: dict[str, str] = {}  # key -> first spelling
        for question, _ in items:
            key = _question_key(question)
            counts[key] += 1
            shown.setdefault(key, question.strip())
        order = {key: i for i, key in enumerate(shown)}
        questions = tuple(
            GapQuestion(shown[key], n)
            for key, n in sorted(counts.items(), key=lambda kv: (-kv[1], order[kv[0]]))
        )
        reasons = Counter(reason for _, reason in items)
        out.append(
            GapGroup(
                service=service,
                count=len(items),
                questions=questions,
                reasons=tuple(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
            )
        )
    out.sort(key=lambda g: (-g.count, g.service == UNKNOWN_SERVICE, g.service))
    return out


# --------------------------------------------------------------------------- text tables


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _one_line(text: str) -> str:
    """One line without control characters (no terminal escapes from runbook text)."""
    return " ".join(_CONTROL.sub(" ", text).split())


def _fixed_width(header: Sequence[str], body: Sequence[Sequence[str]], caps: Sequence[int]) -> str:
    """Columns padded to their widest cell (capped); the last column is not padded."""
    widths = [
        min(cap, max([len(header[i]), *(len(r[i]) for r in body)])) for i, cap in enumerate(caps)
    ]

    def fit(cell: str, width: int) -> str:
        return cell if len(cell) <= width else cell[: max(width - 1, 0)] + "…"

    lines = []
    for cells in [header, *body]:
        parts = [fit(c, w).ljust(w) for c, w in zip(cells[:-1], widths, strict=False)]
        lines.append("  ".join([*parts, _one_line(cells[-1])]).rstrip())
    return "\n".join(lines)


def format_table(rows: Sequence[ReportRow]) -> str:
    if not rows:
        return "no stale, ownerless or retired-but-linked documents"
    header = ("KIND", "CITED", "AGE", "OWNER", "PATH", "DETAIL")
    body = [
        (
            r.kind,
            "-" if r.citations is None else str(r.citations),
            "-" if r.age_days is None else f"{r.age_days}d",
            _one_line(r.owner or "(none)"),
            r.path,
            r.detail,
        )
        for r in rows
    ]
    return _fixed_width(header, body, (10, 6, 6, 28, 80, 0))


def format_gaps_table(groups: Sequence[GapGroup]) -> str:
    if not groups:
        return "no unanswered or unhelpful questions"
    header = ("SERVICE", "COUNT", "ASKED", "QUESTION")
    body: list[tuple[str, str, str, str]] = []
    for g in groups:
        for i, q in enumerate(g.questions):
            draft = f"  [draft: {q.draft}{' ' + q.draft_url if q.draft_url else ''}]"
            body.append(
                (
                    g.service if i == 0 else "",
                    str(g.count) if i == 0 else "",
                    str(q.count),
                    _one_line(q.question + (draft if q.draft else "")),
                )
            )
    return _fixed_width(header, body, (24, 6, 6, 0))


# --------------------------------------------------------------------------- JSON


def _json_default(value: object) -> object:
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def rows_as_dicts(rows: Sequence[ReportRow]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(r) for r in rows]


def format_json(rows: Sequence[ReportRow]) -> str:
    return json.dumps(rows_as_dicts(rows), indent=2, default=_json_default)


def format_gaps_json(groups: Sequence[GapGroup]) -> str:
    data = [
        {
            "service": g.service,
            "count": g.count,
            "questions": [{"question": q.question, "count": q.count} for q in g.questions],
            "reasons": dict(g.reasons),
        }
        for g in groups
    ]
    return json.dumps(data, indent=2)
