"""Turn a source file into a Document with metadata."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import get_args

from ingest.errors import MalformedDocumentError
from ingest.frontmatter import (
    as_list,
    first_h1,
    header_lines,
    parse_date,
    parse_duration_days,
    split_front_matter,
    superseded_by_text,
)
from ingest.git import GitInfo
from ingest.owners import OwnerResolver
from ingest.sources import SourceFile
from retrieval.types import DocType, Document, DocumentMetadata

_STATUS_SECTION = re.compile(
    r"^#{1,4}\s*status\s*$\n+\s*(?:\*\*)?(?P<status>[A-Za-z]+)", re.IGNORECASE | re.MULTILINE
)
_KNOWN_STATUSES = {"current", "superseded", "deprecated", "draft", "accepted", "proposed", "active"}
_DOC_TYPES: tuple[str, ...] = get_args(DocType)


@dataclass(frozen=True)
class DocumentConfig:
    default_access_group: str = "everyone"
    url_template: str | None = None  # {revision} {commit} {path} {repo_path} {line}


@dataclass(frozen=True)
class ParsedDocument:
    document: Document
    body_start: int


def source_id_for(rel: str) -> str:
    p = PurePosixPath(rel)
    return str(p.with_suffix("")) if p.suffix else rel


def _doc_type_alias(raw: str) -> str:
    raw = raw.strip().lower()
    if raw in ("postmortem", "post-mortem", "retro"):
        return "incident"
    return "adr" if raw == "decision" else raw


def _infer_doc_type(rel: str) -> DocType:
    low = rel.lower()
    parts = low.split("/")
    if any(k in low for k in ("incident", "postmortem", "post-mortem", "retro")):
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


def parse_document(
    src: SourceFile,
    git: GitInfo,
    owners: OwnerResolver,
    config: DocumentConfig,
) -> ParsedDocument:
    text = src.data.decode("utf-8")
    fm = split_front_matter(text, src.rel)
    f = fm.fields
    body = text[fm.body_start :]
    headers = header_lines(body)

    title = str(f.get("title") or "").strip() or first_h1(body) or PurePosixPath(src.rel).stem

    owner_raw = f.get("owner") or f.get("owners") or headers.get("owner") or headers.get("owners")
    owner = ", ".join(as_list(owner_raw)) if owner_raw else None
    owner = owner or owners.owner_for(src.rel)

    updated_raw = (
        f.get("updated")
        or f.get("last_reviewed")
        or f.get("last_updated")
        or f.get("date")
        or headers.get("updated")
        or headers.get("last_reviewed")
        or headers.get("last_updated")
    )
    updated = parse_date(updated_raw, src.rel, "updated")
    if updated is None:
        updated = git.last_commit.get(src.rel)
    if updated is None:
        updated = datetime.fromtimestamp(src.path.stat().st_mtime, tz=UTC).date()

    review = parse_duration_days(f.get("review_every") or headers.get("review_every"), src.rel)
    doc_type_raw = _doc_type_alias(str(f.get("doc_type") or headers.get("doc_type") or ""))
    if doc_type_raw and doc_type_raw not in _DOC_TYPES:
        raise MalformedDocumentError(
            src.rel, f"doc_type: {doc_type_raw!r} is not one of {', '.join(_DOC_TYPES)}"
        )
    if not doc_type_raw:
        # `type:` is shared with static-site generators (`type: learn`): only a known
        # document type counts, anything else leaves the type to the path.
        generic = _doc_type_alias(str(f.get("type") or ""))
        doc_type_raw = generic if generic in _DOC_TYPES else ""
    doc_type: DocType = doc_type_raw or _infer_doc_type(src.rel)  # type: ignore[assignment]

    access = tuple(a.lower() for a in as_list(f.get("access") or headers.get("access")))
    status = _status(f, headers, body)
    superseded_by = f.get("superseded_by") or headers.get("superseded_by")
    if superseded_by is None and status in ("superseded", "deprecated"):
        superseded_by = superseded_by_text(body)

    revision = git.revision(src.data)
    content_hash = hashlib.sha256(src.data).hexdigest()
    url = str(f["url"]) if f.get("url") else None
    if url is None and config.url_template:
        repo_path = src.rel
        if git.toplevel is not None:
            try:
                repo_path = src.path.resolve().relative_to(git.toplevel).as_posix()
            except ValueError:
                repo_path = src.rel
        url = (
            config.url_template.replace("{revision}", revision)
            .replace("{commit}", git.head or revision)
            .replace("{path}", src.rel)
            .replace("{repo_path}", repo_path)
        )
    service = f.get("service") or headers.get("service")
    meta = DocumentMetadata(
        service=str(service).strip() if service else None,
        owner=owner,
        updated=updated,
        review_every_days=review,
        status=status,
        doc_type=doc_type,
        access=access or (config.default_access_group,),
        tags=as_list(f.get("tags")),
        revision=revision,
        url=url,
        superseded_by=str(superseded_by).strip() if superseded_by else None,
    )
    doc = Document(
        source_id=source_id_for(src.rel),
        path=src.rel,
        title=title,
        text=text,
        content_hash=content_hash,
        metadata=meta,
    )
    return ParsedDocument(doc, fm.body_start)
