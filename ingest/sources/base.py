"""The Source protocol and the values a source yields.

A source has a name (the prefix of its documents' ids, see :mod:`core.doc_ids`)
and reads its documents, given the versions the index already holds of them, so a
remote source can leave unchanged documents unfetched. A sync touches only the
documents of the source it syncs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from core.doc_ids import SOURCE_NAME_PATTERN, source_of
from ingest.documents import DocumentConfig, ParsedDocument
from retrieval.permissions import AccessMap

#: The name of a folder given to ``runbook-bot ingest DIR`` without one. Ids of an index
#: built before sources had names (no prefix) belong to it: its next sync replaces them.
DEFAULT_SOURCE = "runbooks"
DEFAULT_MAX_FILE_BYTES = 1_000_000


@dataclass(frozen=True)
class Skipped:
    """A document that could not be indexed, and why."""

    rel: str  # where it is, as the source names it (a file's path, a page's title)
    reason: str
    line: int | None = None
    # False when the document must not stay searchable at all (e.g. a link out of the
    # root): its previously indexed version is removed instead of kept
    keep_previous: bool = True
    source_id: str = ""  # the document's id, when known: its indexed version is kept

    def __str__(self) -> str:
        where = f"{self.rel}:{self.line}" if self.line is not None else self.rel
        return f"{where}: {self.reason}"


@dataclass(frozen=True)
class SourceRead:
    """What one read of a source found."""

    documents: tuple[ParsedDocument, ...] = ()  # new, changed, or (for a local source) all
    unchanged: tuple[str, ...] = ()  # ids the index holds in the version the source has
    skipped: tuple[Skipped, ...] = ()
    warnings: tuple[str, ...] = ()
    # what the source withdrew on purpose (e.g. a Notion database gone for good): an
    # empty read is then no accident and its documents are removed
    retired: tuple[str, ...] = ()


class Source(Protocol):
    """Something documents come from."""

    @property
    def name(self) -> str: ...

    @property
    def watch_path(self) -> Path | None:
        """A local folder whose changes mean the source changed (None: poll it)."""
        ...

    def read(self, known: Mapping[str, str]) -> SourceRead:
        """Every current document of the source. ``known`` maps the ids the index holds
        of this source to their content hashes: a document whose hash the source can
        tell is unchanged may be listed in ``unchanged`` instead of being read. Raises
        :class:`~ingest.errors.SourceUnavailableError` when the source cannot be read."""
        ...


class SourceConfig(BaseModel):
    """One entry of the sources file; each kind extends it with its own fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=SOURCE_NAME_PATTERN)
    kind: str
    # links to documents of this source; unset: the deployment's default template
    url_template: str | None = None
    default_access_group: str | None = None  # unset: the deployment's default


@dataclass(frozen=True)
class SourceDefaults:
    """What every source gets from the deployment's settings."""

    documents: DocumentConfig = field(default_factory=DocumentConfig)
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    base_dir: Path = Path()  # relative paths in the sources file start here
    state_dir: Path | None = None  # where a source keeps what it counts across syncs
    access_map: AccessMap = field(default_factory=AccessMap)  # who reads restricted pages

    def documents_for(self, config: SourceConfig) -> DocumentConfig:
        """The document settings of ``config``'s source: its own link template and
        default access group where it sets them."""
        docs = self.documents
        return DocumentConfig(
            config.default_access_group or docs.default_access_group,
            docs.url_template if config.url_template is None else config.url_template or None,
            docs.extra_keys,
        )


def owns(source: str, doc_id: str) -> bool:
    """Is ``doc_id`` a document of ``source``? Ids without a source (an index built
    before sources had names) belong to the default source."""
    named = source_of(doc_id)
    return named == source if named is not None else source == DEFAULT_SOURCE


def owned(source: str, documents: Mapping[str, str]) -> dict[str, str]:
    """The part of ``documents`` (id -> content hash) that belongs to ``source``."""
    return {k: v for k, v in documents.items() if owns(source, k)}
