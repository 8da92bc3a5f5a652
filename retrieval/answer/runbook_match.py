"""Which indexed runbook an alert names: by its ``runbook_url``, else by its alert name.

* :meth:`RunbookMatcher.by_url`: the path of an alert's ``runbook_url`` against the
  indexed documents' paths and source URLs, tolerant of a forge's ``blob/<ref>/`` (any
  prefix, really: the document's path is matched from the end), a rendered site's
  lowercased names without ``.md``, ``README``/``index`` pages and ``#anchors``. The
  document whose trailing path segments match most wins (its whole path, or at least
  its folder and file name); a tie is no match.
* :meth:`RunbookMatcher.by_alert_name`: an exact alert-name match (case and
  punctuation aside) with front matter ``alerts:``, else the title, else the file name.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote, urlsplit

from core.markup import DOCUMENT_SUFFIXES
from core.models import normalize_name
from retrieval.search import Snapshot

MatchedBy = Literal["runbook_url", "alert_name"]
_PAGE_SUFFIXES = (*DOCUMENT_SUFFIXES, ".html", ".htm")
_INDEX_PAGES = frozenset({"readme", "index", "_index"})
_INACTIVE = frozenset({"superseded", "deprecated"})
_LINE_ANCHOR = re.compile(r"^L\d+(-L?\d+)?$")


@dataclass(frozen=True)
class IndexedDocument:
    """What matching needs to know about one live document."""

    source_id: str
    path: str
    title: str
    url: str | None
    alerts: tuple[str, ...]
    doc_type: str
    status: str

    @property
    def segments(self) -> tuple[str, ...]:
        return path_segments(self.path)


@dataclass(frozen=True)
class RunbookMatch:
    """The document an alert names (``source_id``), how it was found, and the alert's
    ``runbook_url`` when it names no indexed document."""

    source_id: str | None = None
    matched_by: MatchedBy | None = None
    unindexed_url: str | None = None
    # the heading the runbook_url points at (its #anchor): in a file of several
    # runbooks, the one the alert is about
    anchor: str | None = None


def path_segments(path: str) -> tuple[str, ...]:
    """A page's path as comparable segments: normalized names, the page suffix and an
    index page (``README``, ``index``) dropped."""
    parts = [p for p in path.split("/") if p and p not in (".", "-")]
    if parts:
        last = parts[-1]
        lowered = last.lower()
        for suffix in _PAGE_SUFFIXES:
            if lowered.endswith(suffix):
                last = last[: -len(suffix)]
                break
        parts[-1] = last
        if normalize_name(last) in _INDEX_PAGES and len(parts) > 1:
            parts.pop()
    return tuple(n for n in (normalize_name(p) for p in parts) if n)


def url_parts(url: str) -> tuple[str, tuple[str, ...]]:
    """(host, path segments) of a URL, without query and anchor."""
    split = urlsplit(url.strip().strip("<>"))
    return split.netloc.lower(), path_segments(unquote(split.path))


def url_anchor(url: str) -> str | None:
    """The heading anchor of a URL (``#kubeproxydown``), or None; a line anchor such
    as ``#L42`` names no heading."""
    fragment = unquote(urlsplit(url.strip().strip("<>")).fragment).strip()
    if not fragment or _LINE_ANCHOR.match(fragment):
        return None
    return fragment


def _trailing_match(a: Sequence[str], b: Sequence[str]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def documents_of(snapshot: Snapshot) -> tuple[IndexedDocument, ...]:
    out = []
    for sid, chunks in snapshot.chunks_by_source.items():
        if not chunks:
            continue
        c = chunks[0]
        m = c.metadata
        out.append(IndexedDocument(sid, c.path, c.title, m.url, m.alerts, m.doc_type, m.status))
    return tuple(sorted(out, key=lambda d: d.path))


def match_url(url: str, documents: Sequence[IndexedDocument]) -> str | None:
    """The source id of the document ``url`` shows, or None (no match, or a tie)."""
    host, wanted = url_parts(url)
    if not wanted:
        return None
    best: list[tuple[int, int, IndexedDocument]] = []
    for doc in documents:
        own = doc.segments
        if not own:
            continue
        matched = _trailing_match(own, wanted)
        if matched == 0 or (matched < len(own) and matched < 2):
            continue  # a shared file name under different folders is another page
        doc_host = url_parts(doc.url)[0] if doc.url else ""
        best.append((matched, int(bool(host) and doc_host == host), doc))
    if not best:
        return None
    best.sort(key=lambda t: (-t[0], -t[1]))
    top = [t for t in best if t[:2] == best[0][:2]]
    return top[0][2].source_id if len(top) == 1 else None


# a link or a document path a person pasted into a question
_LINK = re.compile(
    r"https?://[^\s<>|\"'`)]+|(?<![\w/.])[\w.-]+(?:/[\w.-]+)*\.[A-Za-z]+(?:#[\w.-]+)?"
)


def linked_document(text: str, documents: Sequence[IndexedDocument]) -> RunbookMatch:
    """The indexed document a link (or a document's path) in ``text`` shows: "what do I
    do per https://github.com/acme/runbooks/blob/main/platform/disk-full.md#mitigation".

    Stricter than an alert's ``runbook_url``, which is a runbook link by definition: a
    link in a question is taken only when it ends in a document's file name (its page
    suffix) or matches the document's folder and name, so a dashboard link whose last
    segment happens to be a runbook's name names no runbook."""
    for found in _LINK.findall(text):
        link = found.rstrip(".,;:!?")
        path = unquote(urlsplit(link).path)
        is_page = path.lower().endswith(_PAGE_SUFFIXES)
        wanted = url_parts(link)[1]
        if not is_page and len(wanted) < 2:
            continue
        sid = match_url(link, documents)
        if sid is None:
            continue
        own = next(d.segments for d in documents if d.source_id == sid)
        if is_page or _trailing_match(own, wanted) >= 2:
            return RunbookMatch(sid, "runbook_url", anchor=url_anchor(link))
    return RunbookMatch()


def match_alert_name(name: str, documents: Sequence[IndexedDocument]) -> str | None:
    """The source id of the document that names this alert: in front matter ``alerts:``,
    else as its title, else as its file name; None when no one document does."""
    wanted = normalize_name(name)
    if not wanted:
        return None
    tiers: tuple[Callable[[IndexedDocument], bool], ...] = (
        lambda d: wanted in {normalize_name(a) for a in d.alerts},
        lambda d: normalize_name(d.title) == wanted,
        lambda d: bool(d.segments) and d.segments[-1] == wanted,
    )
    for named in tiers:
        found = [d for d in documents if named(d)]
        current = [d for d in found if d.status not in _INACTIVE] or found
        runbooks = [d for d in current if d.doc_type == "runbook"] or current
        if len(runbooks) == 1:
            return runbooks[0].source_id
        if runbooks:
            return None  # several documents claim the name: let search decide
    return None


class RunbookMatcher:
    """Matches alerts to documents of the live index (``snapshot()``), the document list
    kept per index generation."""

    def __init__(self, snapshot: Callable[[], Snapshot]) -> None:
        self._snapshot = snapshot
        self._lock = threading.Lock()
        self._cached: tuple[int, tuple[IndexedDocument, ...]] | None = None

    def documents(self) -> tuple[IndexedDocument, ...]:
        snap = self._snapshot()
        with self._lock:
            cached = self._cached
        if cached is not None and cached[0] == snap.generation:
            return cached[1]
        docs = documents_of(snap)
        with self._lock:
            self._cached = (snap.generation, docs)
        return docs

    def linked(self, text: str) -> RunbookMatch:
        """The indexed document a link in ``text`` shows (:func:`linked_document`)."""
        return linked_document(text, self.documents())

    def find(self, runbook_url: str | None, alert_name: str | None) -> RunbookMatch:
        """The runbook an alert names: its ``runbook_url`` first, then its name."""
        docs = self.documents()
        unindexed = None
        if runbook_url:
            sid = match_url(runbook_url, docs)
            if sid is not None:
                return RunbookMatch(sid, "runbook_url", anchor=url_anchor(runbook_url))
            unindexed = runbook_url
        if alert_name:
            sid = match_alert_name(alert_name, docs)
            if sid is not None:
                return RunbookMatch(sid, "alert_name", unindexed)
        return RunbookMatch(unindexed_url=unindexed)
