"""A heading as a reader sees it, without its Markdown decoration.

Runbooks decorate headings: ``## [Common dashboard SOPs](./sop.md)``,
``##### **Primary SLO**``, ``### If `ManagedClusterJoined` exists``. Titles and the
section names citations carry (``Mitigation > Restart pgbouncer``) are shown as
link labels in Slack and on the answer page, where that decoration would show as
written; the quotes themselves stay verbatim.
"""

from __future__ import annotations

import re

SECTION_SEPARATOR = " > "

_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[(?P<text>[^\]]*)\]\([^)]*\)")
_REF_LINK = re.compile(r"\[(?P<text>[^\]]*)\]\[[^\]]*\]")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_ANCHOR = re.compile(r"\s*\{#[^}]*\}\s*$")
_EMPHASIS = re.compile(r"(\*\*|__|`)")
_SPACE = re.compile(r"\s+")


def without_anchor(text: str) -> str:
    """A heading's text without the anchor a site gives it (``Persistent storage {#wal}``,
    Hugo's, kramdown's and Pandoc's heading attribute): no reader sees it."""
    return _ANCHOR.sub("", text)


def plain_heading(text: str) -> str:
    """Heading text without Markdown decoration: links, images, emphasis, code, anchors."""
    text = _IMAGE.sub("", text)
    text = _LINK.sub(lambda m: m.group("text"), text)
    text = _REF_LINK.sub(lambda m: m.group("text"), text)
    text = _TAG.sub("", text)
    text = _ANCHOR.sub("", text)
    text = _EMPHASIS.sub("", text)
    return _SPACE.sub(" ", text).strip()


# a site generator's expression in place of the heading's text: ERB's
# ``# <%= current_page.data.title %>``, Hugo's or Jinja's ``# {{ .Title }}``
_TEMPLATE = re.compile(r"\s*(?:<%[=-]?.*?-?%>|\{\{.*?\}\})\s*")


def only_a_template(text: str) -> bool:
    """Is the heading nothing but a template expression (the page's title, filled in when
    the site is built)? Shown as written it would read ``<%= current_page.data.title %>``."""
    return bool(text.strip()) and not _TEMPLATE.sub("", text).strip()


def only_a_link(text: str) -> bool:
    """Is the heading nothing but a link (``## [Fleet dashboard SOPs](./fleet.md)``): a
    pointer to another page, not a section of this one?"""
    return bool(text.strip()) and not (_LINK.sub("", _REF_LINK.sub("", text))).strip(" *_")


_TITLE_LABEL = re.compile(r"^\s*title\s*:\s*", re.I)


def without_title_label(text: str) -> str:
    """A heading without a template's label in front of the title: ``# Title:
    SidekiqQueueTooLarge`` is the runbook's own top heading, repeating its title."""
    return _TITLE_LABEL.sub("", text)


def plain_section(section: str) -> str:
    """A heading path (``A > B``) with each heading plain; a heading that is nothing but
    decoration keeps its text as written."""
    return SECTION_SEPARATOR.join(plain_heading(h) or h for h in section.split(SECTION_SEPARATOR))


MAX_SHOWN_HEADING = 40  # characters of a heading above the cited one, as a label shows it


def shown_section(section: str) -> str:
    """A heading path as a label shows it: every heading above the cited one longer than
    MAX_SHOWN_HEADING cut at a word with "…" (a finding's one-sentence subtitle over its
    ``Remediation recommendations``), the cited heading whole."""
    *above, last = section.split(SECTION_SEPARATOR)
    return SECTION_SEPARATOR.join([*(_shortened(h) for h in above), last])


def _shortened(heading: str) -> str:
    if len(heading) <= MAX_SHOWN_HEADING:
        return heading
    cut = heading[: MAX_SHOWN_HEADING - 1].rsplit(" ", 1)[0].rstrip(" ,;:.")
    return cut + "…"


def heading_slug(text: str) -> str:
    """A heading as an anchor-like name: ``Compact the store`` -> ``compact-the-store``
    ("" for one with no letters or digits)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
