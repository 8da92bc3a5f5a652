"""Turn a Markdown text (front matter, headings) into a Document with metadata.

Sources supply the text and what they know besides it (:class:`DocumentFacts`: the
document's id and path, its revision, and fallbacks for owner, date and link); what
the front matter says wins over those fallbacks.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from datetime import date
from pathlib import PurePosixPath
from typing import get_args

from core.markdown import empty_sections
from core.markup import syntax_for
from core.models import DocType, Document, DocumentMetadata, EmptySection
from ingest.errors import MalformedDocumentError
from ingest.frontmatter import (
    FrontMatter,
    as_list,
    header_lines,
    header_names,
    parse_date,
    parse_duration_days,
    split_front_matter,
    superseded_by_text,
)
from ingest.titles import choose_title

_STATUS_SECTION = re.compile(
    r"^#{1,4}\s*status\s*$\n+\s*(?:\*\*)?(?P<status>[A-Za-z]+)", re.IGNORECASE | re.MULTILINE
)
_KNOWN_STATUSES = {"current", "superseded", "deprecated", "draft", "accepted", "proposed", "active"}
_DOC_TYPES: tuple[str, ...] = get_args(DocType)


# Placed in ``access`` when the document's own access is broken: no scope holds it,
# so nobody (rather than everyone) can read the document until it is fixed.
UNREADABLE_GROUP = "!invalid-access"

# the first of these a document sets names its owner ("team: data-platform" too)
_OWNER_KEYS = ("owner", "owners", "owner_slack", "maintainer", "maintainers", "team", "owning_team")
# ... and of the header lines near the top of the body ("**Team**: payments-oncall", as
# wiki exports and alert templates write it)
_OWNER_LINES = ("owner", "owners", "owned_by", "owning_team", "team", "maintainer", "maintainers")
# Front matter keys the bot reads.
KNOWN_KEYS = frozenset(
    {
        "title",
        "service",
        *_OWNER_KEYS,
        "updated",
        "last_reviewed",
        "last_updated",
        "date",
        "review_every",
        "doc_type",
        "type",
        "access",
        "status",
        "superseded_by",
        "tags",
        "url",
        "alerts",
        "pagerduty_service",
        "pagerduty_escalation_policy",
    }
)
# Keys of common static site generators (Hugo, Jekyll, MkDocs, Docusaurus, Middleman):
# a runbook repository that is also a web site carries them, and they are harmless.
SITE_KEYS = frozenset(
    {
        "layout",
        "weight",
        "draft",
        "aliases",
        "description",
        "summary",
        "slug",
        "permalink",
        "lastmod",
        "categories",
        "keywords",
        "author",
        "authors",
        "menu",
        "toc",
        "parent",
        "section",
        "nav_order",
        "sidebar_position",
        "sidebar_label",
        "hide",
        "template",
        "redirect_from",
        "linktitle",
        "published",
    }
)
# Keys that can only mean "who may read this": an author who wrote one meant to restrict
# the document, so it fails closed like a misspelled ``access``.
_ACCESS_LIKE = frozenset(
    {"groups", "acl", "permissions", "visibility", "audience", "readers", "access_groups"}
)
_DOC_TYPE_ALIASES = {
    "postmortem": "incident",
    "post-mortem": "incident",
    "retro": "incident",
    "decision": "adr",
    "docs": "doc",
    "documentation": "doc",
}


@dataclass(frozen=True)
class DocumentConfig:
    default_access_group: str = "everyone"
    # {commit} {revision} {path} {repo_path} {page} {name} {line}; a link needing a commit
    # or git blob id is left out when the file is not in a git checkout
    url_template: str | None = None
    extra_keys: frozenset[str] = frozenset()  # more front matter keys to accept silently


@dataclass(frozen=True)
class Problem:
    """Something wrong in a document that was still indexed (``--check`` fails on it)."""

    reason: str
    line: int | None = None
    key: str | None = None  # the unknown front matter key, if that is the problem
    restricted: bool = False  # the document was made readable by nobody


# Bump when parsing or chunking would give an unchanged file other chunks or metadata
# (setext headings, TOML front matter, titles, empty sections, bold labels, headings read
# by the parser): sources fold it into each document's content hash, so the next ingest
# re-chunks every document instead of keeping the old chunks.
PARSE_VERSION = "19"


@dataclass(frozen=True)
class DocumentFacts:
    """What a source knows about a document besides its text."""

    source_id: str  # see core.doc_ids
    path: str  # as the source names it: a file's path in its folder, a page's slug
    revision: str  # the version the source has (a git blob id, a content digest)
    content_hash: str  # changes whenever the indexed document would
    owner: str | None = None  # when the front matter names none (CODEOWNERS, a property)
    updated: date | None = None  # when the front matter gives no date (git, an API)
    url: str | None = None  # the link, unless the front matter has ``url``
    title: str | None = None  # the source's own title (a page's), unless the front matter's
    service: str | None = None  # when the front matter names none (a page property)
    # (offset of a heading in the text, its anchor): fills ``{anchor}`` in the link
    anchors: tuple[tuple[int, str], ...] = ()
    # the access groups, when the source knows them (a page's restrictions) and the
    # front matter names none; None: the configured default group
    access: tuple[str, ...] | None = None
    alerts: tuple[str, ...] = ()  # when the front matter names none (a page's labels)


@dataclass(frozen=True)
class ParsedDocument:
    document: Document
    body_start: int
    problems: tuple[Problem, ...] = ()
    anchors: tuple[tuple[int, str], ...] = ()


# Folders that hold write-ups of past incidents; a file elsewhere is one when its name says
# so: a postmortem, retro or incident by number or date ("postmortem-2024-01-12",
# "incident-4211", "2024-03-01-checkout-outage"). A page *about* incidents
# ("incident_commander", "security_incident_response", "incident-what-to-do",
# "post_mortem_template") is no write-up: it is read as a runbook.
WRITE_UP_FOLDERS = frozenset(
    {
        "incident",
        "incidents",
        "incident-reports",
        "postmortem",
        "postmortems",
        "post-mortem",
        "post-mortems",
        "retros",
        "retrospectives",
    }
)
_WRITE_UP_FILE = re.compile(
    r"^(?:post[-_ ]?mortem|retro(?:spective)?|incident)[-_ ]?(?:report[-_ ]?)?#?\d"
    r"|^\d{4}-?\d{2}(?:-?\d{2})?[-_ ].*(?:incident|post[-_ ]?mortem|outage|retro)"
)


def _infer_doc_type(rel: str) -> DocType:
    low = rel.lower()
    parts = low.split("/")
    stem = PurePosixPath(parts[-1]).stem
    folders = (p.replace("_", "-") for p in parts[:-1])
    if any(f in WRITE_UP_FOLDERS for f in folders) or _WRITE_UP_FILE.search(stem):
        return "incident"
    if "adr" in parts or "adrs" in parts or "decisions" in parts or re.search(r"/adr-?\d", low):
        return "adr"
    return "runbook"


def _status(fields: dict[str, object], headers: dict[str, str], body: str) -> str:
    raw = fields.get("status") or headers.get("status")
    if raw is None:
        m = _STATUS_SECTION.search(body)
        raw = m.group("status") if m else None
    if raw is None:
        return "current"
    word = str(raw).strip().split()[0].lower().strip(".,:;*")
    if word in ("accepted", "active", "approved"):
        return "current"
    return word if word in _KNOWN_STATUSES else "current"


def _doc_type(fields: dict[str, object], headers: dict[str, str], rel: str) -> DocType:
    """``doc_type`` must name a known type; the generic ``type`` (which site generators
    also use, e.g. ``type: docs``) counts only when it does."""
    strict = fields.get("doc_type") or headers.get("doc_type")
    raw = str(strict if strict is not None else fields.get("type") or "").strip().lower()
    raw = _DOC_TYPE_ALIASES.get(raw, raw)
    if raw in _DOC_TYPES:
        return raw  # type: ignore[return-value]
    if raw and strict is not None:
        choices = ", ".join(_DOC_TYPES)
        raise MalformedDocumentError(rel, f"doc_type: {raw!r} is not one of {choices}")
    return _infer_doc_type(rel)


def _access(
    fm: FrontMatter, headers: dict[str, str], config: DocumentConfig
) -> tuple[tuple[str, ...], tuple[Problem, ...]]:
    """The access groups, and what is wrong with them: an ``access`` that is present but
    empty, or a key that looks like a misspelled ``access``, makes the document
    readable by nobody instead of falling back to the default group."""
    f = fm.fields
    problems: list[Problem] = []
    if "access" in f:
        groups = as_list(f["access"])
        if not groups:
            problems.append(
                Problem(
                    "access: is empty; the document is readable by nobody until it lists groups",
                    fm.lines.get("access"),
                    restricted=True,
                )
            )
    else:
        groups = as_list(headers.get("access"))
    for key in f:
        if key in KNOWN_KEYS or key in config.extra_keys:
            continue
        if key in _ACCESS_LIKE or difflib.get_close_matches(key, ["access"], 1, 0.7):
            problems.append(
                Problem(
                    f"unknown front matter key {key!r} (did you mean 'access'?); "
                    "the document is readable by nobody until it is fixed",
                    fm.lines.get(key),
                    key=key,
                    restricted=True,
                )
            )
    if any(p.restricted for p in problems):
        return (UNREADABLE_GROUP,), tuple(problems)
    return tuple(a.lower() for a in groups) or (config.default_access_group,), tuple(problems)


def _unknown_keys(fm: FrontMatter, config: DocumentConfig, reported: set[str]) -> list[Problem]:
    out: list[Problem] = []
    for key in fm.fields:
        if key in KNOWN_KEYS or key in SITE_KEYS or key in config.extra_keys or key in reported:
            continue
        close = difflib.get_close_matches(key, sorted(KNOWN_KEYS), 1, 0.75)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        out.append(Problem(f"unknown front matter key {key!r}{hint}", fm.lines.get(key), key=key))
    return out


def parse_document(
    text: str, facts: DocumentFacts, config: DocumentConfig, *, text_metadata: bool = True
) -> ParsedDocument:
    """``text`` as a document. ``text_metadata=False``: the text declares nothing about
    itself (no front matter, no ``Owner:`` lines, no status section), for a source whose
    text anybody who may edit a page writes; its metadata are the ``facts`` and the
    ``config`` alone, and all of the text is body, indexed and quotable."""
    rel = facts.path
    fm = split_front_matter(text, rel) if text_metadata else FrontMatter({}, 0)
    f = fm.fields
    start = syntax_for(rel).body_start(text, fm.body_start)
    body = text[start:]
    headers = header_lines(body) if text_metadata else {}

    title = choose_title(f.get("title") or facts.title, body, rel)

    owner_raw = next((f[k] for k in _OWNER_KEYS if f.get(k)), None)
    owner_line = next((headers[k] for k in _OWNER_LINES if headers.get(k)), None)
    if owner_raw:
        owner: str | None = ", ".join(as_list(owner_raw))
    else:
        owner = ", ".join(header_names(owner_line)) if owner_line else None
    owner = owner or facts.owner

    updated_raw = (
        f.get("updated")
        or f.get("last_reviewed")
        or f.get("last_updated")
        or f.get("date")
        or headers.get("updated")
        or headers.get("last_reviewed")
        or headers.get("last_updated")
    )
    updated = parse_date(updated_raw, rel, "updated")
    if updated is None:
        # unknown without git or a date in the file: a file's mtime is when it was
        # copied or checked out, not when anybody reviewed it
        updated = facts.updated

    review = parse_duration_days(f.get("review_every") or headers.get("review_every"), rel)
    doc_type = _doc_type(f, headers, rel)
    access, problems = _access(fm, headers, config)
    if facts.access is not None and "access" not in f and not headers.get("access"):
        access = tuple(a.lower() for a in facts.access) or (UNREADABLE_GROUP,)
    problems += tuple(_unknown_keys(fm, config, {p.key for p in problems if p.key}))
    status = _status(f, headers, body if text_metadata else "")
    superseded_by = f.get("superseded_by") or headers.get("superseded_by")
    if superseded_by is None and status in ("superseded", "deprecated"):
        superseded_by = superseded_by_text(body)

    url = str(f["url"]) if f.get("url") else facts.url
    service = f.get("service") or headers.get("service") or facts.service
    meta = DocumentMetadata(
        service=str(service).strip() if service else None,
        owner=owner,
        updated=updated,
        review_every_days=review,
        status=status,
        doc_type=doc_type,
        access=access,
        tags=as_list(f.get("tags")),
        revision=facts.revision,
        url=url,
        superseded_by=str(superseded_by).strip() if superseded_by else None,
        alerts=as_list(f.get("alerts")) or facts.alerts,
        pagerduty_service=_text(f.get("pagerduty_service")),
        pagerduty_escalation_policy=_text(f.get("pagerduty_escalation_policy")),
        empty_sections=tuple(
            EmptySection(heading_path=s.heading_path, start=s.start)
            for s in empty_sections(text, start, syntax_for(rel))
        ),
    )
    doc = Document(
        source_id=facts.source_id,
        path=rel,
        title=title,
        text=text,
        content_hash=facts.content_hash,
        metadata=meta,
    )
    return ParsedDocument(doc, start, problems, facts.anchors)


def _text(value: object) -> str | None:
    """A front matter value as one trimmed string; None when blank."""
    text = str(value).strip() if value is not None else ""
    return text or None
