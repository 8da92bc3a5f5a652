"""Wiki links in Markdown: ``[[Restart the pod]]``, ``[[Page#Heading]]`` and a link
with its text beside the page name.

Wikis written in Markdown put the two halves of ``[[a|b]]`` in either order: a GitHub
wiki (Gollum) writes ``[[text|Page-name]]``, Obsidian, Foam and MediaWiki habit
``[[Page name|text]]``. Which half is the page is told by the index: the half that
names an indexed runbook (:mod:`retrieval.search.site_pages`). A page name matches its file
whatever the case and whether words are joined by spaces, hyphens or underscores
(``Restart the pod`` is ``Restart-the-pod.md``). An embed (``![[diagram.png]]``) shows
as its name.

Shown without the index (the page is not indexed, or may not be linked), a link is its
first half: the text in a GitHub wiki, the page name elsewhere; both read as words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from core.markup import without_suffix

# "[[page]]", "[[a|b]]", "![[embed]]"; never across lines or around other brackets, and
# never with a space inside its brackets: "[[ -f /etc/hosts ]]" is a shell test
WIKI_LINK = re.compile(
    r"(?P<embed>!?)\[\[(?P<inner>(?!\s)[^\[\]\n|]+(?:\|[^\[\]\n|]+)?)(?<!\s)\]\]"
)
_JOINERS = re.compile(r"[\s_-]+")
# a table of contents the wiki renders in its place (GitLab, Azure DevOps): no link
_TOC = re.compile(r"_?toc_?", re.I)


class WikiTarget(NamedTuple):
    page: str  # as written, without its #heading
    anchor: str  # the heading after "#", or ""


def is_contents(inner: str) -> bool:
    """Is the link ``[[_TOC_]]``, the marker of a rendered table of contents?"""
    return bool(_TOC.fullmatch(inner.strip()))


def halves(inner: str) -> tuple[str, ...]:
    """The halves of a link's inside, trimmed: one, or two around ``|``."""
    return tuple(h.strip() for h in inner.split("|"))


def target(half: str) -> WikiTarget:
    """A half read as a page name with an optional ``#heading``."""
    page, _, anchor = half.partition("#")
    return WikiTarget(page.strip(), anchor.strip())


def page_key(name: str) -> str:
    """A page name (or a document path's file name) as pages match: lower case, no
    runbook suffix, words joined by one hyphen."""
    key = without_suffix(name.strip()).lower()
    return "/".join(_JOINERS.sub("-", part).strip("-") for part in key.split("/"))


def _shown(half: str) -> str:
    """A half as words: a page name's joiners as spaces when it has no spaces of its own,
    its heading after it ("Restart-the-pod#Logs" -> "Restart the pod > Logs")."""
    page, anchor = target(half)
    words = page if " " in page else page.replace("-", " ").replace("_", " ")
    words = words.rsplit("/", 1)[-1] or page
    return f"{words} > {anchor}" if words and anchor else words or anchor


def shown_text(inner: str, page: int | None = None) -> str:
    """What a reader sees of a link: the half that is not the page (``page``: the index of
    the half that names it); the first half when that is not known."""
    parts = halves(inner)
    if len(parts) == 1:
        return _shown(parts[0])
    if page is None:
        return _shown(parts[0])
    return parts[1 - page] or _shown(parts[page])


def page_half(inner: str, url: str) -> int | None:
    """Which half of a link names the page at ``url`` (a segment of its path: the file
    on a code host, the page of a wiki's ``/wiki/Page/<commit>``), if either."""
    path = url.partition("#")[0].partition("?")[0].split("://", 1)[-1]
    segments = {page_key(s) for s in path.split("/")[1:] if s}
    for i, half in enumerate(halves(inner)):
        if page_key(target(half).page).rsplit("/", 1)[-1] in segments:
            return i
    return None


def as_words(markdown: str) -> str:
    """``markdown`` with every wiki link as the words a reader sees; a table of contents
    marker (``[[_TOC_]]``) goes."""
    return WIKI_LINK.sub(
        lambda m: "" if is_contents(m["inner"]) else shown_text(m["inner"]), markdown
    )


def resolve(inner: str, find: Callable[[str], str | None]) -> tuple[str, int, str] | None:
    """(what ``find`` returns for the page, the index of the half naming it, its #heading)
    for the first half that names a page (``find``: a page name to what it names, or
    None); None when neither does, and for a table of contents marker."""
    if is_contents(inner):
        return None
    for i, half in enumerate(halves(inner)):
        page, anchor = target(half)
        found = find(page) if page else None
        if found is not None:
            return found, i, anchor
    return None
