"""Pages of Notion databases, and single pages: the ``notion`` source.

Read through the official SDK (``notion-client``) with the integration token of
``RUNBOOK_NOTION_TOKEN``. Each page becomes the Markdown of
:mod:`ingest.sources.notion_markdown`, the text its quotes and offsets refer to;
its link is the page URL with the anchor of the cited heading, its date the page's
``last_edited_time``, its owner the configured property (people or text). A page's
metadata come only from its properties and the source's configuration: front matter
or ``Owner:`` lines typed into its text stay text.

A page's content hash is its id and ``last_edited_time`` (plus the rendering and the
settings that shape it), so a sync fetches the blocks of new and edited pages only.
Pages gone from the databases (archived, deleted, no longer shared with the
integration) and configured pages that are archived or not found are removed. A whole
database not found (404: deleted, or no longer shared) fails the read, keeping its
pages, until the same 404 on ``retire_after_syncs`` syncs in a row
(:mod:`ingest.sources.notion_absences`) retires them with a warning. A failing API
call (a bad token, rate limits past the SDK's retries, server errors) fails the whole
read: nothing is changed and the previous index stays live.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, SecretStr, model_validator

from core.doc_ids import document_id
from ingest.documents import (
    PARSE_VERSION,
    DocumentConfig,
    DocumentFacts,
    ParsedDocument,
    parse_document,
)
from ingest.errors import MalformedDocumentError, SourceConfigError, SourceUnavailableError
from ingest.sources.base import (
    DEFAULT_MAX_FILE_BYTES,
    Skipped,
    SourceConfig,
    SourceDefaults,
    SourceRead,
)
from ingest.sources.notion_absences import ABSENCES_FILE, DEFAULT_RETIRE_AFTER_SYNCS, Absences
from ingest.sources.notion_markdown import RENDERING_VERSION, compact_id, render_page

KIND = "notion"
PAGE_SIZE = 100
MAX_DEPTH = 8  # nested blocks deeper than this are left out
DEFAULT_TIMEOUT_SECONDS = 30.0
DEFAULT_RETRIES = 2
_NOT_FOUND = "object_not_found"
#: Where a page's metadata come from; a change re-reads every page (see ``_shape``).
METADATA_RULE = "properties only"
log = logging.getLogger("runbook_bot.notion")
T = TypeVar("T")


class NotionConfig(SourceConfig):
    """``kind: notion``: the ``databases`` whose pages are runbooks and/or single
    ``pages``; ``owner_property`` and ``service_property`` name page properties."""

    kind: Literal["notion"] = "notion"
    databases: tuple[str, ...] = ()
    pages: tuple[str, ...] = ()
    owner_property: str | None = None
    service_property: str | None = None

    @model_validator(mode="after")
    def _something_to_read(self) -> NotionConfig:
        if not self.databases and not self.pages:
            raise ValueError("a notion source needs databases or pages")
        return self


class NotionSettings(BaseModel):
    """What a Notion source takes from the environment (``Settings.source_settings``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    token: SecretStr | None = None
    base_url: str | None = None  # the API's address (tests and proxies only)
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    retries: int = DEFAULT_RETRIES  # of a rate-limited (429) or failed (5xx) read
    # a database not found (404) on this many syncs in a row has its pages removed
    retire_after_syncs: int = DEFAULT_RETIRE_AFTER_SYNCS


def _text_of(prop: Mapping[str, Any]) -> str:
    """A property's value as text: people by name, selects by option, texts plain."""
    kind = prop.get("type")
    value = prop.get(str(kind))
    if kind in ("title", "rich_text"):
        return "".join(str(t.get("plain_text") or "") for t in value or []).strip()
    if kind == "people":
        return ", ".join(str(p.get("name") or p.get("id")) for p in value or [] if p)
    if kind == "select" or kind == "status":
        return str((value or {}).get("name") or "")
    if kind == "multi_select":
        return ", ".join(str(o.get("name")) for o in value or [] if o.get("name"))
    if kind in ("email", "url", "phone_number") and value:
        return str(value)
    if kind == "formula" and isinstance(value, Mapping):
        return str(value.get("string") or "")
    return ""


def page_title(page: Mapping[str, Any]) -> str:
    for prop in (page.get("properties") or {}).values():
        if isinstance(prop, Mapping) and prop.get("type") == "title":
            return _text_of(prop)
    return ""


def _slug(title: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-") or "Untitled"


def _edited(page: Mapping[str, Any]) -> date | None:
    raw = str(page.get("last_edited_time") or "")
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00")).date() if raw else None
    except ValueError:
        return None


class NotionSource:
    """The pages of ``config``, read with a ``notion_client.Client``."""

    def __init__(
        self,
        config: NotionConfig,
        client: Any,
        documents: DocumentConfig | None = None,
        max_bytes: int = DEFAULT_MAX_FILE_BYTES,
        absences: Absences | None = None,
        retire_after_syncs: int = DEFAULT_RETIRE_AFTER_SYNCS,
    ) -> None:
        self.config = config
        self._client = client
        self.absences = absences or Absences()
        self.retire_after_syncs = max(1, retire_after_syncs)
        self.documents = documents or DocumentConfig()
        self.max_bytes = max_bytes
        # what else shapes a page's document: a change re-renders every page
        self._shape = repr(
            (
                RENDERING_VERSION,
                METADATA_RULE,
                PARSE_VERSION,
                config.owner_property,
                config.service_property,
                self.documents,
            )
        )

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def watch_path(self) -> None:
        return None

    def __repr__(self) -> str:
        return f"NotionSource({self.name!r})"

    # -- API calls -----------------------------------------------------------------

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        from notion_client.errors import APIResponseError, NotionClientErrorBase

        try:
            return fn()
        except APIResponseError as exc:
            code = getattr(exc.code, "value", exc.code)
            raise SourceUnavailableError(
                f"Notion source {self.name!r}: {what}: HTTP {exc.status} {code}: {exc}"
            ) from exc
        except NotionClientErrorBase as exc:
            raise SourceUnavailableError(f"Notion source {self.name!r}: {what}: {exc}") from exc
        except Exception as exc:  # the transport's errors (httpx)
            raise SourceUnavailableError(
                f"Notion source {self.name!r}: {what}: {type(exc).__name__}: {exc}"
            ) from exc

    def _paginate(self, what: str, fn: Callable[..., Any], **kwargs: Any) -> list[Any]:
        out: list[Any] = []
        cursor: str | None = None
        while True:
            args = {**kwargs, "page_size": PAGE_SIZE}
            if cursor:
                args["start_cursor"] = cursor
            resp = self._call(what, lambda a=args: fn(**a))  # type: ignore[misc]
            out.extend(resp.get("results") or [])
            cursor = resp.get("next_cursor")
            if not resp.get("has_more") or not cursor:
                return out

    def _database_pages(self, database_id: str) -> list[Mapping[str, Any]] | None:
        """The database's pages; None when Notion does not find it (404)."""
        from notion_client.errors import APIResponseError

        def fetch() -> dict[str, Any] | None:
            try:
                return dict(self._client.databases.retrieve(database_id=database_id))
            except APIResponseError as exc:
                if exc.code == _NOT_FOUND:
                    return None
                raise

        db = self._call(f"database {database_id}", fetch)
        if db is None:
            return None
        sources = [str(d["id"]) for d in db.get("data_sources") or [] if d.get("id")]
        pages: list[Mapping[str, Any]] = []
        for ds in sources or [database_id]:
            pages += self._paginate(
                f"query of database {database_id}",
                self._client.data_sources.query,
                data_source_id=ds,
            )
        return [p for p in pages if p.get("object", "page") == "page"]

    def _single_page(self, page_id: str, warnings: list[str]) -> Mapping[str, Any] | None:
        from notion_client.errors import APIResponseError

        def fetch() -> dict[str, Any] | None:
            try:
                return dict(self._client.pages.retrieve(page_id=page_id))
            except APIResponseError as exc:
                if exc.code == _NOT_FOUND:
                    return None
                raise

        page = self._call(f"page {page_id}", fetch)
        if page is None:
            warnings.append(
                f"Notion page {page_id} was not found (deleted, or not shared with the "
                "integration); its indexed version is removed"
            )
        return page

    def _blocks(self, block_id: str, depth: int = 0) -> list[dict[str, Any]]:
        blocks = [
            dict(b)
            for b in self._paginate(
                f"blocks of {block_id}", self._client.blocks.children.list, block_id=block_id
            )
        ]
        for b in blocks:
            nested = b.get("type") not in ("child_page", "child_database")
            if b.get("has_children") and nested and depth < MAX_DEPTH:
                b["children"] = self._blocks(str(b["id"]), depth + 1)
        return blocks

    # -- reading -------------------------------------------------------------------

    def _absent(self, database: str, warnings: list[str], retired: list[str]) -> None:
        """``database`` was not found: fail the read, or after ``retire_after_syncs``
        syncs in a row, read on without it (its pages are removed) and say so."""
        limit = self.retire_after_syncs
        syncs = self.absences.missing(self.name, database, limit)
        if syncs < limit:
            raise SourceUnavailableError(
                f"Notion source {self.name!r}: database {database}: HTTP 404 not found "
                f"(deleted, or no longer shared with the integration) on {syncs} of {limit} "
                f"syncs in a row; its pages are removed after {limit}"
            )
        warnings.append(
            f"Notion database {database} was not found (HTTP 404) on {syncs} syncs in a row "
            "(deleted, or no longer shared with the integration): its pages are removed"
        )
        retired.append(database)

    def pages(
        self, warnings: list[str], retired: list[str] | None = None
    ) -> list[Mapping[str, Any]]:
        """Every live page of the configured databases and pages, once each; the
        databases retired after repeated 404s are added to ``retired``."""
        found: dict[str, Mapping[str, Any]] = {}
        for database in self.config.databases:
            listed = self._database_pages(database)
            if listed is None:
                self._absent(database, warnings, [] if retired is None else retired)
                continue
            self.absences.found(self.name, database)
            for page in listed:
                found.setdefault(compact_id(str(page["id"])), page)
        for page_id in self.config.pages:
            single = self._single_page(page_id, warnings)
            if single is not None:
                found.setdefault(compact_id(str(single["id"])), single)
        return [p for p in found.values() if not (p.get("archived") or p.get("in_trash"))]

    def version(self, page: Mapping[str, Any]) -> str:
        """The page's content hash, known without fetching its blocks."""
        key = f"{self._shape}\n{page.get('id')}\n{page.get('last_edited_time')}"
        return hashlib.sha256(key.encode("utf-8")).hexdigest()

    def read(self, known: Mapping[str, str]) -> SourceRead:
        warnings: list[str] = []
        retired: list[str] = []
        docs: list[ParsedDocument] = []
        unchanged: list[str] = []
        skipped: list[Skipped] = []
        for page in self.pages(warnings, retired):
            sid = document_id(self.name, compact_id(str(page["id"])))
            version = self.version(page)
            if known.get(sid) == version:
                unchanged.append(sid)
                continue
            parsed = self._document(page, sid, version)
            if isinstance(parsed, Skipped):
                skipped.append(parsed)
            else:
                docs.append(parsed)
        return SourceRead(
            tuple(docs), tuple(unchanged), tuple(skipped), tuple(warnings), tuple(retired)
        )

    def _property(self, page: Mapping[str, Any], name: str | None) -> str | None:
        if not name:
            return None
        prop = (page.get("properties") or {}).get(name)
        return (_text_of(prop) or None) if isinstance(prop, Mapping) else None

    def _document(
        self, page: Mapping[str, Any], sid: str, version: str
    ) -> ParsedDocument | Skipped:
        title = page_title(page)
        path = f"{_slug(title)}-{compact_id(str(page['id']))}"
        rendered = render_page(self._blocks(str(page["id"])))
        size = len(rendered.text.encode("utf-8"))
        if size > self.max_bytes:
            return Skipped(path, f"too large ({size} bytes > {self.max_bytes})", source_id=sid)
        if not rendered.text.strip():
            return Skipped(path, "empty page", source_id=sid)
        url = str(page.get("url") or "") or None
        facts = DocumentFacts(
            source_id=sid,
            path=path,
            revision=hashlib.sha256(rendered.text.encode("utf-8")).hexdigest(),
            content_hash=version,
            owner=self._property(page, self.config.owner_property),
            updated=_edited(page),
            url=f"{url}#{{anchor}}" if url else None,
            title=title or None,
            service=self._property(page, self.config.service_property),
            anchors=rendered.anchors,
        )
        try:
            # a page's metadata are its properties and the source's settings: never
            # front matter or header lines typed into its text
            return parse_document(rendered.text, facts, self.documents, text_metadata=False)
        except MalformedDocumentError as exc:
            return Skipped(path, exc.reason, exc.line, source_id=sid)


def make_client(settings: NotionSettings) -> Any:
    """The SDK client; its log lines go to the ``runbook_bot.notion`` logger."""
    if settings.token is None:
        raise SourceConfigError("a notion source needs RUNBOOK_NOTION_TOKEN")
    from notion_client import Client
    from notion_client.client import ClientOptions, RetryOptions

    options = ClientOptions(
        auth=settings.token.get_secret_value(),
        timeout_ms=int(settings.timeout_seconds * 1000),
        logger=log,
        log_level=logging.WARNING,
        retry=RetryOptions(max_retries=settings.retries) if settings.retries else False,
    )
    if settings.base_url:
        options.base_url = settings.base_url.rstrip("/")
    return Client(options=options)


def build(config: NotionConfig, defaults: SourceDefaults, env: Mapping[str, Any]) -> NotionSource:
    settings = NotionSettings.model_validate(dict(env))
    if settings.token is None:
        raise SourceConfigError(f"source {config.name!r} (notion) needs RUNBOOK_NOTION_TOKEN")
    docs = defaults.documents_for(config)
    # a Markdown folder's link template means nothing for a page: it links to Notion
    documents = DocumentConfig(docs.default_access_group, None, docs.extra_keys)
    absences = Absences(defaults.state_dir / ABSENCES_FILE if defaults.state_dir else None)
    return NotionSource(
        config,
        make_client(settings),
        documents,
        defaults.max_file_bytes,
        absences,
        settings.retire_after_syncs,
    )
