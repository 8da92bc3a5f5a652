"""A document's title: front matter ``title:``, else its first real H1, else the
heading it opens with when the rest of the document lies below it (an alert runbook
that starts at ``## ManagedClusterConditionUnknown``), else its name.

Generic headings ("README", "Quick start", "Overview"...) and tables of contents
say nothing about what a runbook is for, and a numbered heading ("1. Overview") is one
of its sections, so they give way to a better candidate:
a specific front matter title, the first specific H1, or the humanized file name
(the parent folder's name for ``README.md`` and ``index.md``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePosixPath

from core.heading_text import plain_heading, without_title_label
from core.markdown import MARKDOWN
from core.markup import Syntax, syntax_for
from core.models import normalize_name

_SPACE = re.compile(r"\s+")
_NOT_WORD = re.compile(r"[^a-z0-9]+")
_WEB_SUFFIXES = (".html", ".htm", ".erb")

# Headings of a table of contents: never a title.
TOC_HEADINGS = frozenset(
    {"contents", "table of contents", "toc", "on this page", "in this page", "in this document"}
)
# Names a file or folder index carries: they say nothing at all.
FILE_LIKE = frozenset({"readme", "read me", "index", "home", "main", "untitled"})
# Headings that name a kind of page or a section, not what the page is about.
GENERIC = FILE_LIKE | frozenset(
    {
        "quick start",
        "quickstart",
        "getting started",
        "overview",
        "introduction",
        "intro",
        "summary",
        "about",
        "background",
        "notes",
        "documentation",
        "docs",
        "runbook",
        "runbooks",
        "guide",
        "description",
        "details",
        "context",
        "symptoms",
        "diagnosis",
        "impact",
        "mitigation",
        "remediation",
        "resolution",
        "steps",
        "procedure",
        "escalation",
        "definitions",
        "references",
        "related links",
        "links",
        "see also",
        "appendix",
    }
)


def _key(text: str) -> str:
    return _NOT_WORD.sub(" ", text.lower()).strip()


# A template's placeholder left in place: "(Title: Name of alert)", "<Alert name>", "TODO"
_PLACEHOLDER = re.compile(r"^\s*(\(.*\)|\[.*\]|<.*>|\{.*\}|(todo|tbd)\b.*)\s*$", re.I)


# A numbered section ("1. Overview", "2.3 Restoring", "Step 1: Stop writes"): a part of
# the document, never its title, even written as an H1
_NUMBERED = re.compile(r"^\s*(?:\d+[.)]|\d+(?:\.\d+)+\.?|step\s+\d+\s*[:.)-]?)\s+\S", re.I)


def numbered_section(heading: str) -> bool:
    return bool(_NUMBERED.match(heading))


def is_generic(title: str) -> bool:
    key = _key(title)
    return not key or key in GENERIC or key in TOC_HEADINGS or bool(_PLACEHOLDER.match(title))


def h1_headings(body: str, syntax: Syntax | None = None) -> Iterator[str]:
    """The H1 headings of ``body`` (``# x`` or ``x`` over ``===``, AsciiDoc's ``= x``,
    reStructuredText's first title style), outside code."""
    for _start, _end, level, title in (syntax or MARKDOWN).headings(body, 0):
        text = plain_heading(title) if level == 1 else ""
        if text:
            yield text


def first_h1(body: str) -> str | None:
    """The first H1 outside code fences that is not a table of contents heading."""
    for heading in h1_headings(body):
        if _key(heading) not in TOC_HEADINGS:
            return heading
    return None


def opening_heading(body: str, rel: str) -> str | None:
    """The heading the body opens with, taken as the title written one level down: every
    later heading is below it, and either there are such subsections or the heading
    is the file's own name (``## ManagedClusterClientCertRotationFailed`` in
    ``managedcluster_client_cert_rotation_failed.md``)."""
    heads = syntax_for(rel).headings(body, 0)
    if not heads or body[: heads[0][0]].strip():
        return None
    level = heads[0][2]
    if any(h[2] <= level for h in heads[1:]):
        return None
    text = plain_heading(heads[0][3])
    if len(heads) == 1 and normalize_name(text) != normalize_name(_name_of(rel)[0]):
        return None
    return text or None


def humanize(name: str) -> str:
    """``add-a-best-bet`` -> ``Add a best bet``; identifiers (``KubePodCrashLooping``,
    ``cert_rotation_failed``) stay as they are, so they still match exactly."""
    if "_" in name.strip("_"):
        return name
    words = _SPACE.sub(" ", name.replace("-", " ")).strip()
    if words and (" " in words or words.islower()) and words[0].islower():
        words = words[0].upper() + words[1:]
    return words


def _name_of(rel: str) -> tuple[str, bool]:
    """A readable name from the path, and whether it came from the parent folder."""
    path = PurePosixPath(rel)
    stem = path.name
    for suffix in (path.suffix, *_WEB_SUFFIXES):
        if suffix and stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    stem = stem.strip("_") or stem
    if _key(stem) in GENERIC and path.parent.name:
        return humanize(path.parent.name), True
    return humanize(stem), False


def choose_title(front_matter_title: object, body: str, rel: str) -> str:
    """The best title for the document at ``rel`` (see the module docstring)."""
    candidates: list[str] = []
    if front_matter_title is not None and not isinstance(front_matter_title, dict | list):
        text = plain_heading(str(front_matter_title))
        if text:
            candidates.append(text)
    titles = [
        without_title_label(h)
        for h in h1_headings(body, syntax_for(rel))
        if _key(h) not in TOC_HEADINGS and not numbered_section(h)
    ]
    if not titles:  # no H1: the title may be written one level down
        titles = [
            h
            for h in [opening_heading(body, rel)]
            if h and _key(h) not in TOC_HEADINGS and not numbered_section(h)
        ]
    candidates.extend(titles)
    for title in candidates:
        if not is_generic(title):
            return title
    name, from_folder = _name_of(rel)
    generic = next((t for t in candidates if _key(t) not in FILE_LIKE), None)
    if name and not is_generic(name):
        return f"{name}: {generic}" if from_folder and generic else name
    return generic or name or rel
