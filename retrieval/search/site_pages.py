"""Links written as the documentation site serves a page, read as the runbook they name.

A runbook site built with Hugo, MkDocs, Docusaurus or Middleman links its pages by
address, not by file: ``[purge the cache](/manual/purge-cache)`` for
``source/manual/purge-cache.html.md``, ``[Restart](./restart)`` for ``restart.md``,
``/runbooks/node/noderaiddegraded/`` for ``content/runbooks/node/NodeRAIDDegraded.md``.
:class:`SitePages` finds the indexed document such a link names in the linking
document's source:

- a relative address names the file beside the linking one, with any runbook suffix
  (or the folder's ``index``, ``_index`` or ``README``), letter case aside;
- an address from the site's root names the one document whose path ends with it (a
  site is often served from a folder of the repository: ``source/``, ``content/``);
  two or more such documents name none.

A wiki link (``[[Restart the pod]]``, :mod:`core.wiki_links`) names a page by its file
name, wherever in the source it lies; of two pages of that name, the one in the linking
page's folder.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable

from core.doc_ids import local_id, source_of
from core.markup import without_suffix
from core.wiki_links import page_key

_FOLDER_PAGES = ("index", "_index", "readme")
_PAGE_SUFFIX = re.compile(r"\.html?$", re.I)  # "purge-cache.html.md" is served as a page
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # "https:", "mailto:": an address elsewhere


def _stem(path: str) -> str:
    """A document path as the site serves it: lowercase, no runbook or page suffix, a
    folder's index page as the folder."""
    p = _PAGE_SUFFIX.sub("", without_suffix(path).lower())
    head, _, last = p.rpartition("/")
    return head if last in _FOLDER_PAGES and head else p


class SitePages:
    """The indexed documents of each source by the address their site serves them at."""

    def __init__(self, doc_ids: Iterable[str]) -> None:
        self._by_stem: dict[tuple[str | None, str], set[str]] = defaultdict(set)
        self._by_tail: dict[tuple[str | None, str], set[str]] = defaultdict(set)
        self._by_page: dict[tuple[str | None, str], set[str]] = defaultdict(set)
        for doc in doc_ids:
            source = source_of(doc)
            path = local_id(doc)
            key = page_key(path)
            self._by_page[(source, key.rsplit("/", 1)[-1])].add(doc)
            if "/" in key:
                self._by_page[(source, key)].add(doc)
            stem = _stem(path)
            self._by_stem[(source, stem)].add(doc)
            parts = stem.split("/")
            for i in range(len(parts)):
                self._by_tail[(source, "/".join(parts[i:]))].add(doc)

    def find(self, target: str, within: str, within_id: str) -> str | None:
        """The id of the document the link ``target`` names, written in the document at
        path ``within`` (id ``within_id``); None for an address elsewhere, a file that is
        no runbook, or a link that names no indexed document, or several."""
        if SCHEME.match(target) or target.startswith(("#", "//")):
            return None
        path = target.partition("#")[0].partition("?")[0].strip()
        if not path or path in ("/", ".", "./"):
            return None
        source = source_of(within_id)
        if path.startswith("/"):
            found = self._by_tail.get((source, _stem(path.strip("/"))), set())
        else:
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(within), path))
            if joined.startswith("../") or joined == "..":
                return None
            found = self._by_stem.get((source, _stem(joined)), set())
        return next(iter(found)) if len(found) == 1 else None

    def find_page(self, name: str, within: str, within_id: str) -> str | None:
        """The id of the document a wiki link's page ``name`` names, written in the
        document at path ``within`` (id ``within_id``); None when none or several do."""
        key = page_key(name).strip("/")
        if not key or key.startswith("."):
            return None
        source = source_of(within_id)
        found = self._by_page.get((source, key), set())
        if len(found) > 1:  # the page beside the linking one
            folder = posixpath.dirname(within)
            found = {d for d in found if posixpath.dirname(local_id(d)) == folder}
        return next(iter(found)) if len(found) == 1 else None
