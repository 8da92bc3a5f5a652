"""A whole runbook as its web page shows it, rebuilt from its indexed chunks.

The text is the runbook's at the indexed revision (what the chunks hold, in order: the
front matter, which is never indexed, is not shown), rendered as the answers' quotes are
(:func:`bot.web.quote_html.markdown_html`), with an anchor per heading, so that an answer
whose source has no link of its own (a folder outside git, a template without the
commit) links here instead, at the section it quotes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from markupsafe import Markup

from bot.reports import unwritten_sections
from bot.web.present import safe_url
from bot.web.quote_html import markdown_html
from core.heading_text import plain_heading
from core.markdown import MARKDOWN, headings
from core.markup import syntax_for
from core.models import Chunk, DocumentMetadata, normalize_name
from retrieval.answer import chunk_url
from retrieval.search import section_text


@dataclass(frozen=True)
class RunbookPage:
    source_id: str
    title: str
    path: str
    line: int  # the first shown line's number in the file
    metadata: DocumentMetadata
    source_url: str | None  # the file at its indexed revision, when a link can be built
    html: Markup
    warnings: tuple[str, ...]  # stale, superseded, sections not written


def document_text(chunks: Sequence[Chunk]) -> str:
    """The runbook's indexed text, in order: each chunk's original text once, and the
    headings above a chunk that no chunk holds (a heading with only subsections under
    it) as heading lines of their level."""
    out: list[str] = []
    end = None
    path: tuple[str, ...] = ()
    markdown = bool(chunks) and syntax_for(chunks[0].path) is MARKDOWN
    for c in sorted(chunks, key=lambda c: (c.start, c.end)):
        text = section_text(c)
        if end is not None and c.start < end:  # overlapping pieces: the new text only
            text = text[end - c.start :]
        elif end is not None and c.start > end:
            out.append("\n\n")
        if markdown:
            out.extend(_missing_headings(path, c.heading_path, text))
        if text:
            out.append(text)
        end = max(end or 0, c.end)
        path = c.heading_path
    return "".join(out)


def _missing_headings(before: tuple[str, ...], path: tuple[str, ...], text: str) -> list[str]:
    """Heading lines for the headings of ``path`` that open above ``text`` and are
    neither in the path before it nor the heading ``text`` starts with."""
    own = 1 if _opens_with_heading(text) else 0
    common = 0
    while common < min(len(before), len(path)) and before[common] == path[common]:
        common += 1
    return [
        f"{'#' * (level + 1)} {h}\n\n"
        for level, h in enumerate(path)
        if common <= level < len(path) - own
    ]


def _opens_with_heading(text: str) -> tuple[int, int, int, str] | None:
    """The heading on the text's first line (blank lines before it aside), or None."""
    body = text.lstrip("\n")
    lines = body.split("\n", 2)
    found = headings("\n".join(lines[:2]))
    first = found[0] if found and found[0][0] == 0 else None
    # an ATX heading ("## Mitigation") or a setext one (its text over "---"), not a
    # bold label
    atx = body.lstrip(" ").startswith("#")
    setext = first is not None and first[1] > len(lines[0])
    return first if first is not None and (atx or setext) else None


def _without_title(markdown: str, title: str) -> str:
    """The text without a first heading that is the runbook's title (the page's own)."""
    body = markdown.lstrip("\n")
    found = _opens_with_heading(body)
    if found and normalize_name(plain_heading(found[3])) == normalize_name(title):
        return body[found[1] + 1 :]  # after its line (a setext heading's underline too)
    return markdown


def runbook_page(
    chunks: Sequence[Chunk], is_stale: Callable[[DocumentMetadata], bool], today: date
) -> RunbookPage:
    """The page of the runbook whose chunks (one document, one generation) are given."""
    first = min(chunks, key=lambda c: c.start)
    meta = first.metadata
    markdown = _without_title(
        syntax_for(first.path).as_markdown(document_text(chunks)), first.title
    )
    url = safe_url(chunk_url(first, 1))
    return RunbookPage(
        source_id=first.source_id,
        title=first.title,
        path=first.path,
        line=first.line,
        metadata=meta,
        source_url=url,
        html=markdown_html(markdown, url, title=first.title),
        warnings=_warnings(meta, unwritten_sections(chunks), is_stale, today),
    )


def _warnings(
    meta: DocumentMetadata,
    unwritten: Sequence[str],
    is_stale: Callable[[DocumentMetadata], bool],
    today: date,
) -> tuple[str, ...]:
    out: list[str] = []
    if meta.status in ("superseded", "deprecated"):
        by = f" by {meta.superseded_by}" if meta.superseded_by else ""
        out.append(f"This runbook is {meta.status}{by}: check the newer one before acting.")
    if is_stale(meta):
        when = f"last updated {(today - meta.updated).days} days ago" if meta.updated else ""
        out.append(f"May be out of date{': ' + when if when else ''}. Verify before acting.")
    if unwritten:
        out.append(f"Sections not written yet: {', '.join(unwritten[:3])}.")
    return tuple(out)
