"""How an answer's quotes are laid out, the same in Slack, on the web and in the terminal.

Quotes are grouped by runbook, runbooks in the order the answer cites them: a runbook's
owner and age are shown once, under its quotes. A section quoted in pieces (a long
procedure over several indexed chunks) has one heading; when text of the section is
left out between two pieces, the second is marked as continuing after a gap. A
procedure cut for length says which steps are shown, under the quote.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.link_references import with_links
from core.markup import syntax_for
from core.models import Citation

ADJACENT = 2  # characters between two quotes of one section that follow each other


@dataclass(frozen=True)
class ShownQuote:
    citation: Citation
    heading: bool  # it begins a section: its heading is shown above it
    gap: bool = False  # it continues the section above, after text left out


def by_runbook(citations: Sequence[Citation]) -> list[list[ShownQuote]]:
    """The citations grouped by document, in order of first appearance."""
    groups: dict[str, list[Citation]] = {}
    for c in citations:
        groups.setdefault(c.source_id, []).append(c)
    out = []
    for group in groups.values():
        shown = []
        for n, c in enumerate(group):
            continued = n > 0 and group[n - 1].section == c.section
            gap = continued and not _next_to(group[n - 1], c)
            shown.append(ShownQuote(c, heading=not continued, gap=gap))
        out.append(shown)
    return out


def _next_to(before: Citation, after: Citation) -> bool:
    """Does ``after`` follow ``before`` with nothing but line breaks between them (blank
    lines where a section was split into pieces), or ADJACENT characters at most?"""
    line_breaks = after.line - (before.line + before.quote.count("\n"))
    return after.start - before.end <= max(line_breaks, ADJACENT)


def cut_note(citation: Citation) -> str | None:
    """Which steps a cut procedure shows, as a sentence: "Steps 1-3 of 7"."""
    note = citation.note
    return note[:1].upper() + note[1:] if note else None


def quote_markdown(citation: Citation, *, header: bool = False) -> str:
    """The quote as Markdown for display: an AsciiDoc or reStructuredText runbook's
    titles, code blocks and warnings in Markdown's form (the quote itself stays
    verbatim). ``header``: a quoted table row under its table's header, as shown."""
    text = citation.shown_text if header else citation.quote
    # links to other runbooks point at them at the indexed revision (a site address such
    # as "/manual/purge-cache" does not resolve on the code host)
    return with_links(syntax_for(citation.path).as_markdown(text), citation.links)
