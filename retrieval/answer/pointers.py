"""A section that only points at a shared procedure: "See [Restarting the Policy
Propagator Pod](../../common/policy-propagator-restart.md)."

Teams that write one runbook per alert often keep the steps they share (check the
logs, restart the pod, replace a kubeconfig) in documents of their own, and each
alert's step only says when to take it and links there. Quoting that step alone shows
the engineer a link in place of the steps; the answer follows it and quotes the
procedure too.

A part is a pointer when its text is short, holds no steps or code of its own, and
links to exactly one other document of the same source: by a relative path that stays
inside the source, by the address the team's site serves it at (:mod:`site_pages`), by
a reference link whose ``[label]: url`` definition is elsewhere in the runbook, or by a
wiki link (``See [[Restart the pod]].``, :mod:`core.wiki_links`).

A pointer within the runbook works the same way: "Despite its name, this access no
longer grants admin rights. See [Temporary Production Admin access](#temporary-...)."
Quoting that alone shows where the answer is, not the answer; the section its one
``#anchor`` names is quoted after it. So is the one section with steps or a command
that such a step names in words, without a link: "you can use defrag to gain some
time" above ``### Defrag``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence

from core.doc_ids import reference_id
from core.heading_text import plain_heading
from core.link_references import inline_reference, sub_references
from core.markup import DOCUMENT_SUFFIXES, syntax_for
from core.wiki_links import WIKI_LINK, halves, resolve, target
from retrieval.answer.outline import Part
from retrieval.search import SCHEME, SitePages

POINTER_MAX_CHARS = 400  # longer text says more than where to look
MIN_NAMED_CHARS = 4  # a heading this short ("Fix") is a word of any sentence
_WORDS = re.compile(r"[a-z0-9]+(?:[-_.][a-z0-9]+)*")
_INLINE_LINK = re.compile(r"\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_STEPS_OR_CODE = re.compile(r"^\s*(?:\d+[.)]\s|```|~~~|\$ |    \S)", re.MULTILINE)


def _pointer_body(part: Part) -> str | None:
    """The part's text as Markdown when it is short and holds no steps or code."""
    body = syntax_for(part.chunk.path).as_markdown(part.body).strip()
    if not body or len(body) > POINTER_MAX_CHARS or _STEPS_OR_CODE.search(body):
        return None
    return body


def _links(
    part: Part, body: str, pages: SitePages | None, refs: Mapping[str, str]
) -> tuple[set[tuple[str, str]], set[str]]:
    """(other documents as (document id, anchor), anchors of the part's own runbook)
    that the part's links name: inline ones, and reference ones ``refs`` defines;
    ``pages`` reads links by site address too."""
    others: set[tuple[str, str]] = set()
    own: set[str] = set()
    for _target, doc, anchor in runbook_links(part, body, pages, refs):
        if doc == part.chunk.source_id:
            own.add(anchor)
        else:
            others.add((doc, anchor))
    own.discard("")
    return others, own


def runbook_links(
    part: Part, text: str, pages: SitePages | None, refs: Mapping[str, str]
) -> list[tuple[str, str, str]]:
    """(target as written, document id, anchor) of each link in ``text`` (Markdown, of
    ``part``'s document) that names a runbook of its source or a section of its own
    (``#anchor``: its own id): inline links, reference ones ``refs`` defines, by file
    path or by site address (``pages``), and wiki links (their target as written is the
    whole link, ``[[text|Page]]``)."""
    out = _wiki_links(part, text, pages)
    if refs:
        text = sub_references(text, lambda m: inline_reference(m, refs))
    for m in _INLINE_LINK.finditer(text):
        target = m.group(1)
        if target.startswith("#"):
            out.append((target, part.chunk.source_id, target[1:]))
            continue
        found = _document_target(target, part.chunk.path)
        if found is not None:
            path, anchor = found
            doc = reference_id(path, part.chunk.source_id, any_path=True)
        else:
            site_doc = pages.find(target, part.chunk.path, part.chunk.source_id) if pages else None
            if site_doc is None:
                continue
            doc, anchor = site_doc, target.partition("#")[2]
        out.append((target, doc, anchor))
    return out


def _wiki_links(part: Part, text: str, pages: SitePages | None) -> list[tuple[str, str, str]]:
    """(the link as written, document id, anchor) of each wiki link of ``text`` that names
    a page of the index, or a heading of its own page (``[[#Logs]]``)."""
    out: list[tuple[str, str, str]] = []
    own = part.chunk.source_id
    for m in WIKI_LINK.finditer(text):
        if m["embed"]:
            continue
        inner = m["inner"]
        first = target(halves(inner)[0])
        if not first.page:  # "[[#Logs]]": a heading of its own page
            out.append((m[0], own, first.anchor))
            continue
        if pages is None:
            continue
        found = resolve(inner, lambda name: pages.find_page(name, part.chunk.path, own))
        if found is not None:
            doc, _half, anchor = found
            out.append((m[0], doc, anchor))
    return out


def pointed_to(
    part: Part, pages: SitePages | None = None, refs: Mapping[str, str] | None = None
) -> tuple[str, str] | None:
    """(document id, #anchor or "") of the one document the part points at, when the
    part is a pointer; None otherwise. ``pages``: the index's documents by the address
    their site serves them at, for links written that way (:mod:`site_pages`); ``refs``:
    the link definitions of the part's document (``[restore]: ../restore.md``), for
    reference links (``See [restoring a backup][restore].``)."""
    body = _pointer_body(part)
    if body is None:
        return None
    others, _own = _links(part, body, pages, refs or {})
    return others.pop() if len(others) == 1 else None


def pointed_within(
    part: Part, pages: SitePages | None = None, refs: Mapping[str, str] | None = None
) -> str | None:
    """The #anchor of the one section of its own runbook the part points at, when the
    part is a pointer that links nowhere else; None otherwise."""
    body = _pointer_body(part)
    if body is None:
        return None
    others, own = _links(part, body, pages, refs or {})
    return own.pop() if not others and len(own) == 1 else None


def named_within(part: Part, parts: Sequence[Part]) -> tuple[str, ...] | None:
    """The heading path of the one other section of the part's runbook that the part,
    a pointer with no link, names in words and that holds the steps or commands: "In
    the meantime before migration happens, you can use defrag to gain some time." above
    ``### Defrag``; None when it names none or several, or is no pointer."""
    body = _pointer_body(part)
    if body is None or _INLINE_LINK.search(body) or WIKI_LINK.search(body):
        return None
    words = " ".join(_WORDS.findall(body.lower()))
    found: set[tuple[str, ...]] = set()
    for p in parts:
        if not p.heading_path or part.under(p.heading_path) or p.under(part.heading_path):
            continue  # the part itself, a section that holds it, or one inside it
        if not p.holds_answer or not _STEPS_OR_CODE.search(p.body):
            continue
        name = " ".join(_WORDS.findall(plain_heading(p.heading).lower()))
        if len(name) >= MIN_NAMED_CHARS and re.search(rf"\b{re.escape(name)}\b", words):
            found.add(p.heading_path)
    return found.pop() if len(found) == 1 else None


def _document_target(target: str, within: str) -> tuple[str, str] | None:
    """(path inside the source, anchor) of a relative link to a runbook file; None for
    an address, an anchor of the same page, another kind of file, or a path that
    leaves the source."""
    if SCHEME.match(target) or target.startswith(("#", "/")):
        return None
    path, _, anchor = target.partition("#")
    path = path.partition("?")[0]
    if not path.lower().endswith(DOCUMENT_SUFFIXES):
        return None
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(within), path))
    if resolved.startswith("../") or resolved == "..":
        return None
    return resolved, anchor
