"""Pages of a Confluence space, of a page tree, or with a label: the ``confluence`` source.

Read through ``atlassian-python-api`` (the REST API, version 1, which Confluence Cloud
and Data Center both serve) at ``RUNBOOK_CONFLUENCE_BASE_URL``: Cloud with an account's
email and API token (``RUNBOOK_CONFLUENCE_EMAIL``, ``RUNBOOK_CONFLUENCE_TOKEN``), Data
Center with a personal access token alone. Each page becomes the Markdown of
:mod:`ingest.sources.confluence_markdown`, the text its quotes and offsets refer to.

A page's metadata come only from the page's properties and the source's configuration,
never from its text: its title; its labels as alerts or service (``alert_label_prefix``,
``service_label_prefix``); its owner from a content property (``owner_property``) or a
label (``owner_label_prefix``), else its creator; ``updated`` from its version's date;
its link to the page at the indexed version, with the cited heading's anchor. Who may
read it comes from its view restrictions and its ancestors' (:mod:`.confluence_access`).

A page's content hash folds in its version number, labels, owner, restrictions and
title, all of which the listing carries: a sync fetches the bodies of new and edited
pages only, and a restriction added or removed reaches the index on the next sync.
Pages no longer listed (deleted, archived, moved out of the tree, label removed) are
removed. Rate limits (429) are retried after their ``Retry-After`` (at most
``retries`` times, each wait at most ``max_retry_wait_seconds``); a refused token, a
server error or rate limits past the retries fail the whole read: nothing is changed
and the previous index stays live.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

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
from ingest.sources.confluence_access import (
    PageAccess,
    Restriction,
    RestrictionMap,
    restriction_of,
)
from ingest.sources.confluence_markdown import RENDERING_VERSION, AnchorStyle, render_page

KIND = "confluence"
PAGE_SIZE = 50
DEFAULT_TIMEOUT_SECONDS = 30.0
DEFAULT_RETRIES = 3
DEFAULT_MAX_RETRY_WAIT_SECONDS = 60.0
#: Where a page's metadata come from; a change re-reads every page (see ``_shape``).
METADATA_RULE = "properties and labels only"
_RESTRICTIONS = "restrictions.read.restrictions.user,restrictions.read.restrictions.group"
log = logging.getLogger("runbook_bot.confluence")
T = TypeVar("T")


class ConfluenceConfig(SourceConfig):
    """``kind: confluence``: the pages of a ``space``, the tree under a ``page`` (the
    page and its descendants), or the pages of a ``space`` with a ``label``."""

    kind: Literal["confluence"] = "confluence"
    space: str | None = Field(default=None, pattern=r"^~?[A-Za-z0-9_-]+$")
    page: str | None = Field(default=None, pattern=r"^[0-9]+$")
    label: str | None = Field(default=None, pattern=r"^[^\s\"]+$")
    # owner: this content property, else a label with this prefix, else the creator
    owner_property: str | None = Field(default=None, pattern=r"^[\w.-]+$")
    owner_label_prefix: str | None = None
    service_label_prefix: str | None = None  # "service-payments" -> service payments
    alert_label_prefix: str | None = None  # "alert-kubepodcrashlooping" -> an alert
    # link to the page at the indexed version (?pageVersion=N); off for sites without it
    version_links: bool = True

    @model_validator(mode="after")
    def _something_to_read(self) -> ConfluenceConfig:
        if self.page is None and self.space is None:
            raise ValueError("a confluence source needs a space, or a page (its tree)")
        if self.label is not None and self.space is None:
            raise ValueError("a label is read within a space: set space too")
        if self.page is not None and self.label is not None:
            raise ValueError("a confluence source reads a page tree or a label, not both")
        return self

    def cql(self) -> str:
        """The query listing the source's pages."""
        if self.page is not None:
            scope = f"(id = {self.page} OR ancestor = {self.page})"
            if self.space is not None:
                scope += f' AND space = "{self.space}"'
        else:
            scope = f'space = "{self.space}"'
            if self.label is not None:
                scope += f' AND label = "{self.label}"'
        return f"type = page AND {scope}"


class ConfluenceSettings(BaseModel):
    """What a Confluence source takes from the environment (``Settings.source_settings``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str | None = None  # the site: https://acme.atlassian.net/wiki, or Data Center's
    email: str | None = None  # Cloud: the API token's account; unset: a personal access token
    token: SecretStr | None = None
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    retries: int = DEFAULT_RETRIES  # of a rate-limited (429) request
    max_retry_wait_seconds: float = DEFAULT_MAX_RETRY_WAIT_SECONDS

    @property
    def cloud(self) -> bool:
        return bool(self.email)


def _slug(title: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-") or "Untitled"


def _date(raw: object) -> date | None:
    text = str(raw or "")
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date() if text else None
    except ValueError:
        return None


def _labels(content: Mapping[str, Any]) -> tuple[str, ...]:
    found = ((content.get("metadata") or {}).get("labels") or {}).get("results") or []
    return tuple(sorted({str(label.get("name")) for label in found if label.get("name")}))


def _property_text(value: Any) -> str:
    """A content property's value as text: a string, or a person or option by name."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, Mapping):
        for key in ("displayName", "name", "value", "owner", "text"):
            if isinstance(value.get(key), str) and value[key].strip():
                return str(value[key]).strip()
    if isinstance(value, list):
        return ", ".join(t for t in (_property_text(v) for v in value) if t)
    return ""


def _after_prefix(labels: Iterable[str], prefix: str | None) -> tuple[str, ...]:
    if not prefix:
        return ()
    return tuple(x[len(prefix) :] for x in labels if x.startswith(prefix) and len(x) > len(prefix))


class ConfluenceSource:
    """The pages of ``config``, read with an ``atlassian.Confluence`` client."""

    def __init__(
        self,
        config: ConfluenceConfig,
        client: Any,
        site_url: str,
        documents: DocumentConfig | None = None,
        max_bytes: int = DEFAULT_MAX_FILE_BYTES,
        restrictions: RestrictionMap | None = None,
        anchors: AnchorStyle = "cloud",
    ) -> None:
        self.config = config
        self._client = client
        self.site_url = site_url.rstrip("/")
        self.documents = documents or DocumentConfig()
        self.max_bytes = max_bytes
        self.restrictions = restrictions or RestrictionMap()
        self.anchors: AnchorStyle = anchors
        # what else shapes a page's document: a change re-renders every page
        self._shape = repr(
            (
                RENDERING_VERSION,
                METADATA_RULE,
                PARSE_VERSION,
                config.owner_property,
                config.owner_label_prefix,
                config.service_label_prefix,
                config.alert_label_prefix,
                config.version_links,
                anchors,
                self.site_url,
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
        return f"ConfluenceSource({self.name!r})"

    # -- API calls -----------------------------------------------------------------

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        """``fn()``, its failures as SourceUnavailableError (never with the token: the
        library's messages carry the status and Confluence's own message only)."""
        from requests import RequestException
        from requests.exceptions import RetryError

        try:
            return fn()
        except RetryError as exc:
            raise SourceUnavailableError(
                f"Confluence source {self.name!r}: {what}: HTTP 429 rate limited past its retries"
            ) from exc
        except RequestException as exc:
            response = getattr(exc, "response", None)
            status = getattr(response, "status_code", None)
            if status is not None:
                reason = {401: "unauthorized (check the token)", 429: "rate limited"}.get(
                    status, getattr(response, "reason", "") or "error"
                )
                raise SourceUnavailableError(
                    f"Confluence source {self.name!r}: {what}: HTTP {status} {reason}"
                ) from exc
            raise SourceUnavailableError(
                f"Confluence source {self.name!r}: {what}: {type(exc).__name__}"
            ) from exc
        except Exception as exc:  # the library's own errors (ApiError, ...)
            status = getattr(getattr(exc, "response", None), "status_code", None)
            code = f"HTTP {status} " if status else ""
            raise SourceUnavailableError(
                f"Confluence source {self.name!r}: {what}: {code}{type(exc).__name__}"
            ) from exc

    def _listing_expand(self) -> str:
        fields = [
            "version",
            "ancestors",
            "history",
            "metadata.labels",
            *_RESTRICTIONS.split(","),
        ]
        if self.config.owner_property:
            fields.append(f"metadata.properties.{self.config.owner_property}")
        return ",".join(f"content.{f}" for f in fields)

    def pages(self) -> list[Mapping[str, Any]]:
        """Every current page the source lists, once each (the search's results)."""
        cql = self.config.cql()

        def listing() -> list[Mapping[str, Any]]:
            found = self._client.iter_cql(cql, limit=PAGE_SIZE, expand=self._listing_expand())
            return [r.get("content") or r for r in found]

        pages: dict[str, Mapping[str, Any]] = {}
        for content in self._call("listing pages", listing):
            if content.get("type", "page") != "page":
                continue
            if content.get("status", "current") != "current":
                continue  # archived, trashed, a draft
            pages.setdefault(str(content["id"]), content)
        return list(pages.values())

    def _restriction_of_page(self, page_id: str, warnings: list[str]) -> Restriction | None:
        """The view restriction of a page the listing does not hold (an ancestor)."""
        from atlassian.errors import ApiError

        def fetch() -> Mapping[str, Any] | None:
            try:
                return dict(self._client.get_page_by_id(page_id, expand=_RESTRICTIONS))
            except ApiError:  # not found, or not visible to the token
                return None

        content = self._call(f"restrictions of page {page_id}", fetch)
        if content is None:
            warnings.append(
                f"Confluence page {page_id} (an ancestor) could not be read: the pages "
                "under it are readable by nobody"
            )
            return Restriction(page_id)
        return restriction_of(content)

    def _access(
        self,
        page: Mapping[str, Any],
        listed: Mapping[str, Mapping[str, Any]],
        outside: dict[str, Restriction | None],
        warnings: list[str],
    ) -> PageAccess:
        levels: list[Restriction] = []
        for ancestor in page.get("ancestors") or []:
            aid = str(ancestor.get("id"))
            if aid in listed:
                found = restriction_of(listed[aid])
            else:
                if aid not in outside:
                    outside[aid] = self._restriction_of_page(aid, warnings)
                found = outside[aid]
            if found is not None:
                levels.append(found)
        own = restriction_of(page)
        if own is not None:
            levels.append(own)
        return self.restrictions.access(levels)

    def _owner(self, page: Mapping[str, Any], labels: tuple[str, ...]) -> str | None:
        key = self.config.owner_property
        if key:
            props = (page.get("metadata") or {}).get("properties") or {}
            prop = props.get(key)
            text = _property_text(prop.get("value") if isinstance(prop, Mapping) else None)
            if text:
                return text
        owners = _after_prefix(labels, self.config.owner_label_prefix)
        if owners:
            return ", ".join(owners)
        creator = (page.get("history") or {}).get("createdBy") or {}
        name = creator.get("displayName") or creator.get("publicName") or creator.get("username")
        return str(name) if name else None

    def version(self, page: Mapping[str, Any], access: PageAccess) -> str:
        """The page's content hash, known without fetching its body."""
        labels = _labels(page)
        key = "\n".join(
            (
                self._shape,
                str(page.get("id")),
                str((page.get("version") or {}).get("number")),
                str(page.get("title")),
                ",".join(labels),
                str(self._owner(page, labels)),
                repr(access.groups),
            )
        )
        return hashlib.sha256(key.encode("utf-8")).hexdigest()

    def read(self, known: Mapping[str, str]) -> SourceRead:
        warnings: list[str] = []
        docs: list[ParsedDocument] = []
        unchanged: list[str] = []
        skipped: list[Skipped] = []
        pages = self.pages()
        listed = {str(p["id"]): p for p in pages}
        outside: dict[str, Restriction | None] = {}
        for page in pages:
            sid = document_id(self.name, str(page["id"]))
            access = self._access(page, listed, outside, warnings)
            if access.readable_by_nobody:
                who = "; ".join(r.names for r in access.restrictions)
                warnings.append(
                    f"Confluence page {page.get('title')!r} ({page['id']}) is restricted "
                    f"({who}) and no access group maps those restrictions: it is readable "
                    "by nobody (add confluence_groups or confluence_users to the access map)"
                )
            version = self.version(page, access)
            if known.get(sid) == version:
                unchanged.append(sid)
                continue
            parsed = self._document(page, sid, version, access)
            if parsed is None:
                continue
            if isinstance(parsed, Skipped):
                skipped.append(parsed)
            else:
                docs.append(parsed)
        return SourceRead(tuple(docs), tuple(unchanged), tuple(skipped), tuple(warnings))

    def _body(self, page_id: str) -> Mapping[str, Any] | None:
        from atlassian.errors import ApiError

        def fetch() -> Mapping[str, Any] | None:
            try:
                return dict(self._client.get_page_by_id(page_id, expand="body.storage,version"))
            except ApiError:  # deleted since it was listed: gone from the index too
                return None

        return self._call(f"page {page_id}", fetch)

    def _link(self, page: Mapping[str, Any], number: object) -> str:
        page_id = page["id"]
        if self.config.version_links and number is not None:
            return (
                f"{self.site_url}/pages/viewpage.action?pageId={page_id}&pageVersion={number}"
                "#{anchor}"
            )
        webui = str((page.get("_links") or {}).get("webui") or "")
        if webui.startswith("/"):
            return f"{self.site_url}{webui}#{{anchor}}"
        return f"{self.site_url}/pages/viewpage.action?pageId={page_id}#{{anchor}}"

    def _document(
        self, page: Mapping[str, Any], sid: str, version: str, access: PageAccess
    ) -> ParsedDocument | Skipped | None:
        title = str(page.get("title") or "")
        path = f"{_slug(title)}-{page['id']}"
        full = self._body(str(page["id"]))
        if full is None:
            return None
        storage = str(((full.get("body") or {}).get("storage") or {}).get("value") or "")
        rendered = render_page(storage, title, self.anchors)
        size = len(rendered.text.encode("utf-8"))
        if size > self.max_bytes:
            return Skipped(path, f"too large ({size} bytes > {self.max_bytes})", source_id=sid)
        if not rendered.text.strip():
            return Skipped(path, "empty page", source_id=sid)
        labels = _labels(page)
        number = (full.get("version") or page.get("version") or {}).get("number")
        services = _after_prefix(labels, self.config.service_label_prefix)
        facts = DocumentFacts(
            source_id=sid,
            path=path,
            revision=str(number) if number is not None else version,
            content_hash=version,
            owner=self._owner(page, labels),
            updated=_date((full.get("version") or page.get("version") or {}).get("when")),
            url=self._link(page, number),
            title=title or None,
            service=services[0] if services else None,
            anchors=rendered.anchors,
            access=access.groups if access.restricted else None,
            alerts=_after_prefix(labels, self.config.alert_label_prefix),
        )
        try:
            # a page's metadata are its properties, labels and the source's settings:
            # never front matter or header lines typed into its text
            return parse_document(rendered.text, facts, self.documents, text_metadata=False)
        except MalformedDocumentError as exc:
            return Skipped(path, exc.reason, exc.line, source_id=sid)


def make_client(settings: ConfluenceSettings) -> Any:
    """The library's client: Cloud with email and API token, Data Center with a
    personal access token; 429s retried after their Retry-After, nothing else."""
    if settings.base_url is None or settings.token is None:
        raise SourceConfigError(
            "a confluence source needs RUNBOOK_CONFLUENCE_BASE_URL and RUNBOOK_CONFLUENCE_TOKEN"
        )
    import requests
    from atlassian import Confluence
    from requests.adapters import HTTPAdapter
    from urllib3.util.retry import Retry

    retry = Retry(
        total=settings.retries,
        connect=0,
        read=0,
        status=settings.retries,
        status_forcelist=(429,),
        allowed_methods=None,
        respect_retry_after_header=True,
        retry_after_max=int(settings.max_retry_wait_seconds),
        backoff_factor=0.5,
        backoff_max=settings.max_retry_wait_seconds,
        raise_on_status=True,
    )
    # the library logs whole responses at DEBUG: page text a restriction may hide
    logging.getLogger("atlassian").setLevel(logging.WARNING)
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=retry)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    token = settings.token.get_secret_value()
    common: dict[str, Any] = {
        "session": session,
        "timeout": settings.timeout_seconds,
        "cloud": False,  # the version 1 REST API, which Cloud serves too
        "retry_with_header": False,  # the session retries
        "backoff_and_retry": False,
    }
    if settings.email:
        return Confluence(
            settings.base_url.rstrip("/"), username=settings.email, password=token, **common
        )
    return Confluence(settings.base_url.rstrip("/"), token=token, **common)


def build(
    config: ConfluenceConfig, defaults: SourceDefaults, env: Mapping[str, Any]
) -> ConfluenceSource:
    settings = ConfluenceSettings.model_validate(dict(env))
    if settings.token is None or not settings.base_url:
        raise SourceConfigError(
            f"source {config.name!r} (confluence) needs RUNBOOK_CONFLUENCE_BASE_URL and "
            "RUNBOOK_CONFLUENCE_TOKEN"
        )
    docs = defaults.documents_for(config)
    # a Markdown folder's link template means nothing for a page: it links to Confluence
    documents = DocumentConfig(docs.default_access_group, None, docs.extra_keys)
    return ConfluenceSource(
        config,
        make_client(settings),
        settings.base_url,
        documents,
        defaults.max_file_bytes,
        RestrictionMap(defaults.access_map),
        "cloud" if settings.cloud else "data_center",
    )
