"""Document identity: ``<source>:<path without suffix>`` (``payments:db/failover``).

Every document id names the source it came from, so several sources share one
index without their ids colliding, and each sync can tell its own documents from
the others'. The part after the source is the source's own stable id: a Markdown
file's path without its suffix, a Notion page's id. Ids written before sources had
names carry no prefix (:func:`source_of` gives None for them).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from core.markup import DOCUMENT_SUFFIXES

SEPARATOR = ":"
SOURCE_NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,62}$"
_SOURCE_NAME = re.compile(SOURCE_NAME_PATTERN)


def valid_source_name(name: str) -> bool:
    return bool(_SOURCE_NAME.match(name))


def document_id(source: str, local_id: str) -> str:
    """The id of the document ``local_id`` of ``source``."""
    if not valid_source_name(source):
        raise ValueError(f"{source!r} is not a source name (lowercase letters, digits, - and _)")
    return f"{source}{SEPARATOR}{local_id}"


def path_id(path: str) -> str:
    """A file's id within its source: its POSIX path without the suffix."""
    p = PurePosixPath(path)
    return str(p.with_suffix("")) if p.suffix else path


def source_of(doc_id: str) -> str | None:
    """The source a document id names; None for an id without one (an older index)."""
    head, sep, _rest = doc_id.partition(SEPARATOR)
    return head if sep and valid_source_name(head) else None


def local_id(doc_id: str) -> str:
    """The source's own part of a document id."""
    return doc_id.split(SEPARATOR, 1)[1] if source_of(doc_id) is not None else doc_id


def reference_id(reference: str, within: str | None, *, any_path: bool = False) -> str:
    """The id a path reference names (``adr/0012-redis.md`` -> ``adr/0012-redis``), in
    the source of the document ``within`` that makes it: a superseded-by note points to
    a file of its own repository. Unless ``any_path``, only a runbook file name
    (Markdown, AsciiDoc, reStructuredText) counts as a path; other text stays as it
    is and matches no document."""
    ref = reference.strip().removeprefix("./").lstrip("/")
    if not any_path and not ref.lower().endswith(DOCUMENT_SUFFIXES):
        return ref
    local = path_id(ref)
    source = source_of(within) if within is not None else None
    return document_id(source, local) if source is not None else local
