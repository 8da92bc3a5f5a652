"""What the pages show of answers, search hits and report rows, in plain words.

Pure functions that the templates call (registered as Jinja2 globals and filters);
the templates escape everything they print but a quote, which
:mod:`bot.web.quote_html` renders with raw HTML off, and links go through
:func:`safe_url`, so nothing in a runbook becomes markup or a ``javascript:`` link.
"""

from __future__ import annotations

import re
from datetime import date

from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from bot.text import BEST_GUESS_ADVICE, BEST_GUESS_LABEL, NOT_SURE, is_best_guess
from core.heading_text import plain_section, shown_section
from core.markup import syntax_for
from core.models import MISSING_DETAIL, Answer, AnswerWarning, Chunk, Citation
from retrieval.answer import REASON_TEXT, chunk_url

ABSTAIN_HEADLINE = "No runbook covers this"
UNSURE_HEADLINE = NOT_SURE
UNWRITTEN_HEADLINE = "The runbook for this is not written yet"

REASONS: dict[str, str] = {
    "no-match": "Nothing in the indexed runbooks matches this question.",
    "low-confidence": (
        "Some runbooks look related, but none matches closely enough to quote with confidence."
    ),
    "no-command": (
        "You asked for a command, and the closest runbooks show none for this: none is "
        "quoted as if it answered."
    ),
    "no-value": (
        "You asked for a value or a setting, and the closest runbooks give none for this: "
        "none is quoted as if it answered."
    ),
    "no-steps": (
        "You asked how to do something, and the closest runbooks do not say how: none is "
        "quoted as if it did."
    ),
    "access-denied": ("A runbook you cannot read may cover this; ask its owners for access."),
    "only-superseded-sources": (
        "The only runbooks that match are superseded or deprecated, so they are not quoted."
    ),
    "unwritten": (
        "The runbook this question is about exists, but nothing in it is written yet: "
        "no other runbook is quoted in its place."
    ),
}

WARNING_DEFAULTS: dict[str, str] = {
    "stale": "This runbook may be out of date: verify before acting.",
    "superseded": "This runbook has been superseded: check the newer one before acting.",
    "deprecated": "This runbook is deprecated: check for a replacement before acting.",
    "ownerless": "No owner on record.",
    "restricted-omitted": "Restricted runbooks were left out.",
    "unverified-llm-fallback": (
        "The generated answer could not be checked against the runbook text: read the sources."
    ),
    "scope-incomplete": ("Your group memberships could not be checked; results may be incomplete."),
    "unwritten-section": "This runbook's action section is not written yet.",
    "detail-not-shown": "The quoted sections do not show what you asked for.",
}

#: Why a question is in the gaps report, in plain words.
GAP_REASONS: dict[str, str] = {
    "no-match": "no match",
    "low-confidence": "not confident enough",
    "no-command": "no runbook shows the command",
    "no-value": "no runbook gives the value",
    "no-steps": "no runbook says how",
    "only-superseded-sources": "only retired runbooks",
    "unwritten": "runbook not written yet",
    "not_helpful": "marked not helpful",
    "abstain": "no answer",
}

EXCERPT_CHARS = 280
_FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})")
_EMPHASIS = re.compile(r"\*([^*\n]+)\*")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_QUOTE_MARK = re.compile(r"^(?:>\s?)+")
_BULLET_MARK = re.compile(r"^[-*+]\s+(?:\[[ xX]\]\s+)?")
# inline Markdown only, no raw HTML, links left as their text (replaced before)
_INLINE = MarkdownIt("commonmark", {"html": False}).disable(["link", "image", "autolink"])


def safe_url(url: str | None) -> str | None:
    """``url`` when it is an http(s) link, else None (never ``javascript:`` and the like)."""
    if not url:
        return None
    url = url.strip()
    return url if re.match(r"^https?://[^\s]+$", url, re.I) else None


def days(n: int) -> str:
    return "1 day" if n == 1 else f"{n} days"


def age_days(updated: date | None, known: int | None, today: date) -> int | None:
    if known is not None:
        return known
    if updated is not None:
        return max((today - updated).days, 0)
    return None


def age_text(updated: date | None, known: int | None, today: date) -> str:
    """``updated 58 days ago``, ``updated today`` or ``updated: unknown``."""
    n = age_days(updated, known, today)
    if n is None:
        return "updated: unknown"
    return "updated today" if n == 0 else f"updated {days(n)} ago"


def citation_label(citation: Citation) -> str:
    title = citation.title or citation.path
    section = citation.section
    return f"{title} - {shown_section(section)}" if section and section != title else title


def _cited(answer: Answer, source_id: str | None) -> Citation | None:
    everything = (*answer.citations, *answer.related)
    if source_id is not None:
        return next((c for c in everything if c.source_id == source_id), None)
    return answer.citations[0] if len(answer.citations) == 1 else None


def warning_text(warning: AnswerWarning, answer: Answer, today: date) -> str:
    """The warning's message, with the cited runbook's age and owner for a stale one and
    its title when the answer cites several runbooks."""
    message = " ".join(warning.message.split()) or WARNING_DEFAULTS.get(warning.kind, "")
    citation = _cited(answer, warning.source_id)
    if citation is None:
        return message
    if warning.kind == "stale":
        extra = []
        n = age_days(citation.updated, citation.age_days, today)
        if n is not None and not re.search(rf"(?<!\d){n} days?\b", message):
            extra.append(f"last updated {days(n)} ago")
        owner = citation.owner or "none"
        if owner not in message:
            extra.append(f"owner {owner}")
        if extra:
            message = f"{message} ({', '.join(extra)})"
    if len(answer.citations) > 1 and citation.title and citation.title not in message:
        message = f"{citation.title}: {message}"
    return message


def reason_text(answer: Answer) -> str:
    return REASONS.get(answer.reason or "no-match", REASONS["no-match"])


def headline(answer: Answer) -> str:
    if answer.state == "unsure" and answer.reason in MISSING_DETAIL:
        return REASON_TEXT[answer.reason]  # the command, value or steps asked for
    if answer.state == "unsure":
        return UNSURE_HEADLINE
    if answer.state == "abstain" and answer.reason == "unwritten":
        return UNWRITTEN_HEADLINE
    if answer.state == "abstain":
        return ABSTAIN_HEADLINE
    return "Answer"


def best_guess(answer: Answer) -> tuple[str, str] | None:
    """(label, advice) above an answer the answerer is not sure of, else None."""
    return (BEST_GUESS_LABEL, BEST_GUESS_ADVICE) if is_best_guess(answer) else None


def hit_url(chunk: Chunk) -> str | None:
    """The link to a search hit's line at the indexed revision."""
    return safe_url(chunk_url(chunk))


def hit_excerpt(chunk: Chunk, limit: int = EXCERPT_CHARS) -> str:
    """The start of a hit's own text on one line: without the title and heading path it
    was indexed with, its headings and code fence markers (a ``#`` comment inside code is
    the hit's text)."""
    flat = " ".join(" ".join(line for line, _code in _excerpt_lines(chunk)).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def hit_excerpt_html(chunk: Chunk, limit: int = EXCERPT_CHARS) -> Markup:
    """:func:`hit_excerpt` rendered as the answers are, on one line: code as code,
    emphasis as emphasis, a link as its text, a quote's ``>`` and a list's marks
    kept as text only where they number steps; never a Markdown mark as written."""
    out: list[str] = []
    used = 0
    for line, code in _excerpt_lines(chunk):
        text = " ".join(line.split())
        if not text or used >= limit:
            continue
        if used + len(text) > limit:
            text = _open_marks_closed(text[: max(limit - used - 1, 0)].rstrip()) + "…"
        used += len(text) + 1
        if code:
            out.append(f"<code>{escape(text)}</code>")
        else:
            text = _MD_LINK.sub(r"\1", _QUOTE_MARK.sub("", _BULLET_MARK.sub("", text)))
            out.append(_INLINE.renderInline(text))
    return Markup(" ".join(out))


def _open_marks_closed(text: str) -> str:
    """A cut line without a code span or emphasis the cut left open (shown as a mark)."""
    if text.count("`") % 2:
        text = text[: text.rfind("`")].rstrip()
    for mark in ("**", "__"):
        if text.count(mark) % 2:
            text = text[: text.rfind(mark)].rstrip()
    return text


def _excerpt_lines(chunk: Chunk) -> list[tuple[str, bool]]:
    """The hit's own lines (no title, heading path, headings or fences), each with
    whether it is inside a code block."""
    text = chunk.text
    head, sep, rest = text.partition("\n\n")
    if sep and head.startswith(chunk.title):
        text = rest
    for start, end, _level, _title in reversed(syntax_for(chunk.path).headings(text, 0)):
        text = text[:start] + text[end:]
    out: list[tuple[str, bool]] = []
    code = False
    for line in text.splitlines():
        if _FENCE_LINE.match(line):
            code = not code
            continue
        out.append((line, code))
    return out


def hit_section(chunk: Chunk) -> str:
    return plain_section(chunk.section)


def emphasis(text: str) -> Markup:
    """Escaped text with Slack-style ``*bold*`` spans as ``<strong>`` (an answer's lead-in
    names the runbook and section that way)."""
    return Markup(_EMPHASIS.sub(r"<strong>\1</strong>", str(escape(text))))


def gap_reason(reason: str) -> str:
    return GAP_REASONS.get(reason, reason.replace("-", " ").replace("_", " "))
