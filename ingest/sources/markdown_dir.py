"""A folder of Markdown runbooks: the ``markdown_dir`` source.

A root that is missing, not a folder, or unreadable fails the read
(:class:`~ingest.errors.SourceUnavailableError`) instead of reading as empty.
It owns what only a checkout knows: git blob ids and last commit dates, CODEOWNERS
and OWNERS files, ``.runbookignore``. Nothing outside the folder is read (see
:mod:`ingest.sources.files`). A document's id is its path without the suffix.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from core.doc_ids import document_id, path_id
from core.markup import without_suffix
from ingest.documents import (
    PARSE_VERSION,
    DocumentConfig,
    DocumentFacts,
    ParsedDocument,
    parse_document,
)
from ingest.errors import MalformedDocumentError, SourceUnavailableError
from ingest.sources.base import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_SOURCE,
    Skipped,
    SourceConfig,
    SourceDefaults,
    SourceRead,
)
from ingest.sources.files import SourceFile, scan
from ingest.sources.git import GitInfo, read_git_info
from ingest.sources.owners import OwnerResolver

KIND = "markdown_dir"


class MarkdownDirConfig(SourceConfig):
    """``kind: markdown_dir``: ``path`` (relative to the sources file), ``exclude`` globs."""

    kind: Literal["markdown_dir"] = "markdown_dir"
    path: Path
    exclude: tuple[str, ...] = ()


def file_url(src: SourceFile, git: GitInfo, revision: str, template: str | None) -> str | None:
    """The source link, built only from what is known: a template that needs the
    commit or the git blob id gives no link for a file outside a git checkout."""
    if not template:
        return None
    if not git.in_repo and ("{commit}" in template or "{revision}" in template):
        return None
    commit = git.head
    if commit is None and "{commit}" in template:
        return None
    repo_path = src.rel
    if git.toplevel is not None:
        try:
            repo_path = src.path.resolve().relative_to(git.toplevel).as_posix()
        except ValueError:
            repo_path = src.rel
    page = without_suffix(src.rel)  # a wiki or a site serves the page without it
    return (
        template.replace("{revision}", revision)
        .replace("{commit}", commit or "")
        .replace("{path}", src.rel)
        .replace("{repo_path}", repo_path)
        .replace("{page}", page)
        .replace("{name}", page.rsplit("/", 1)[-1])
    )


def parse_file(
    src: SourceFile,
    git: GitInfo,
    owners: OwnerResolver,
    config: DocumentConfig,
    source: str = DEFAULT_SOURCE,
) -> ParsedDocument:
    """One file of the folder as a document of ``source``."""
    revision = git.revision(src.data)
    facts = DocumentFacts(
        source_id=document_id(source, path_id(src.rel)),
        path=src.rel,
        revision=revision,
        content_hash=hashlib.sha256(PARSE_VERSION.encode() + b"\n" + src.data).hexdigest(),
        owner=owners.owner_for(src.rel),
        updated=git.last_commit.get(src.rel),
        url=file_url(src, git, revision, config.url_template),
    )
    return parse_document(src.data.decode("utf-8"), facts, config)


class MarkdownDirSource:
    """Every Markdown file under ``root``, read anew on each sync (a hash decides
    what changed)."""

    def __init__(
        self,
        name: str,
        root: Path,
        documents: DocumentConfig | None = None,
        excludes: Sequence[str] = (),
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ) -> None:
        self._name = name
        self.root = Path(root)
        self.documents = documents or DocumentConfig()
        self.excludes = tuple(excludes)
        self.max_file_bytes = max_file_bytes

    @property
    def name(self) -> str:
        return self._name

    @property
    def watch_path(self) -> Path:
        return self.root

    def __repr__(self) -> str:
        return f"MarkdownDirSource({self._name!r}, {str(self.root)!r})"

    def _check_root(self) -> None:
        """A root that is missing, not a folder, or unreadable fails the read: listing
        nothing there would remove every document of the source."""
        where = f"source {self._name!r}: {self.root}"
        if not self.root.exists():
            raise SourceUnavailableError(f"{where} does not exist")
        if not self.root.is_dir():
            raise SourceUnavailableError(f"{where} is not a folder")
        try:
            with os.scandir(self.root) as entries:
                next(entries, None)
        except OSError as exc:
            raise SourceUnavailableError(f"{where} cannot be read: {exc.strerror}") from exc

    def read(self, known: Mapping[str, str]) -> SourceRead:
        self._check_root()
        found = scan(self.root, self.excludes, self.max_file_bytes)
        git = read_git_info(self.root)
        owners = OwnerResolver(self.root)
        docs: list[ParsedDocument] = []
        skipped = [self._with_id(s) for s in found.skipped]
        for src in found.files:
            try:
                docs.append(parse_file(src, git, owners, self.documents, self._name))
            except MalformedDocumentError as exc:
                skipped.append(self._with_id(Skipped(src.rel, exc.reason, exc.line)))
        return SourceRead(documents=tuple(docs), skipped=tuple(skipped))

    def _with_id(self, skipped: Skipped) -> Skipped:
        sid = document_id(self._name, path_id(skipped.rel))
        return Skipped(skipped.rel, skipped.reason, skipped.line, skipped.keep_previous, sid)


def build(
    config: MarkdownDirConfig, defaults: SourceDefaults, env: Mapping[str, Any]
) -> MarkdownDirSource:
    root = config.path if config.path.is_absolute() else defaults.base_dir / config.path
    return MarkdownDirSource(
        config.name,
        root,
        defaults.documents_for(config),
        config.exclude,
        defaults.max_file_bytes,
    )
