"""Slack Block Kit rendering of answers: pure functions, no I/O.

Every function returns a :class:`Message` (a top-level ``text`` fallback for notifications
plus ``blocks``) that stays inside Slack's limits whatever the runbooks contain:

* at most 50 blocks, and a conservative total of text per message (Slack rejects a message
  with ``msg_blocks_too_long`` well below 50 full sections);
* section text at most 3000 characters: long quotes are cut at a line boundary, an opened
  code fence is closed again, and "…see source" points to the full text;
* at most 10 elements per context block, button text at most 75 characters, header text at
  most 150 characters, top-level text at most 3000 characters.

Runbook text, titles, owners and questions are untrusted: ``&``, ``<`` and ``>`` are escaped
(which neutralizes ``<!channel>``, ``<!here>``, ``<@U…>``), and every mrkdwn text object is
sent with ``verbatim: true`` so Slack does not auto-parse plain-text mentions or channel
names either. Only the links built here (``<url|label>``) are Slack markup.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from retrieval.types import Answer, AnswerWarning, Citation

ACTION_FEEDBACK_HELPFUL = "feedback_helpful"
ACTION_FEEDBACK_NOT_HELPFUL = "feedback_not_helpful"
ACTION_POST_TO_CHANNEL = "post_to_channel"
# A link button still sends a block_actions payload, which the app must acknowledge.
ACTION_OPEN_SEARCH = "open_search"

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_CONTEXT_ELEMENTS = 10
MAX_BUTTON_TEXT = 75
MAX_HEADER_TEXT = 150
MAX_FALLBACK_TEXT = 3000
MAX_BUTTON_URL = 3000
# Slack's undocumented per-message limit on block text is around 13,000 characters
# (``msg_blocks_too_long``); stay clearly below it.
MAX_MESSAGE_CHARS = 12_000

SEE_SOURCE = "…see source"
ABSTAIN_HEADLINE = "No runbook covers this"
UNSURE_HEADLINE = "Not sure these answer it"

_FENCE = "```"
_LABEL_MAX = 120  # title or section inside a link label
_QUESTION_MAX = 300
_MIN_QUOTE_CHARS = 200  # below this a further citation is listed as "more" instead
_INLINE_FENCE = re.compile(r"`{3,}")
_FENCE_INFO = re.compile(r"^(\s*)```[\w.+#-]{1,30}\s*$")

_ABSTAIN_REASONS: dict[str, str] = {
    "no-match": "Nothing in the indexed runbooks matches this question.",
    "low-confidence": (
        "Some runbooks look related, but none matches closely enough to quote with confidence."
    ),
    "access-denied": "The runbooks that match are restricted to groups you are not in.",
    "only-superseded-sources": (
        "The only runbooks that match are superseded or deprecated, so they are not quoted."
    ),
    "error": "The search failed before it could find an answer.",
}

_WARNING_DEFAULTS: dict[str, str] = {
    "stale": "Runbook may be out of date - verify before acting",
    "superseded": "This runbook has been superseded - check the newer one before acting",
    "deprecated": "This runbook is deprecated - check for a replacement before acting",
    "ownerless": "No owner on record",
    "restricted-omitted": "Restricted runbooks omitted from this channel",
    "unverified-llm-fallback": (
        "Generated answer not verified against the runbook text - check the sources"
    ),
    "scope-incomplete": "Not every runbook could be searched - the answer may be incomplete",
}


@dataclass(frozen=True)
class Message:
    """A Slack message: ``text`` is the notification fallback (never empty)."""

    text: str
    blocks: list[dict[str, Any]]


# --------------------------------------------------------------------------- text helpers


def escape(text: str) -> str:
    """Escape the three mrkdwn control characters (``&`` first)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _clip(text: str, limit: int) -> str:
    """An inline snippet of unescaped text: one line, no code fences (a fence opened in a
    title or question would swallow the rest of the message), at most ``limit`` chars."""
    text = _INLINE_FENCE.sub("`", " ".join(text.split()))
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rstrip() + "…"


def _bold(text: str) -> str:
    """Bold escaped text; asterisks inside would end the bold span early."""
    inner = escape(text.strip()).replace("*", "∗")
    return f"*{inner}*" if inner else ""


def _safe_url(url: str) -> str | None:
    """A URL that can sit inside ``<…|label>``, or None when it is not a web link."""
    url = url.strip()
    if not url.lower().startswith(("https://", "http://")):
        return None
    return escape(url).replace("|", "%7C").replace(" ", "%20")


def _link(url: str | None, label: str) -> str:
    """``<url|label>`` with the label escaped; the escaped label alone without a URL."""
    safe = _safe_url(url) if url else None
    text = escape(label)
    return f"<{safe}|{text}>" if safe else text


def _days(n: int) -> str:
    return "1 day" if n == 1 else f"{n} days"


def _age_days(citation: Citation, today: date) -> int | None:
    if citation.age_days is not None:
        return citation.age_days
    if citation.updated is not None:
        return max((today - citation.updated).days, 0)
    return None


def _strip_fence_info(text: str) -> str:
    """Drop language tags on opening fences: Slack would show ``bash`` as a code line."""
    lines = text.split("\n")
    inside = False
    for i, line in enumerate(lines):
        if not line.lstrip().startswith(_FENCE):
            continue
        if not inside:
            m = _FENCE_INFO.match(line)
            if m:
                lines[i] = m.group(1) + _FENCE
        if line.count(_FENCE) % 2:
            inside = not inside
    return "\n".join(lines)


def _balance_fences(text: str) -> str:
    return text + "\n" + _FENCE if text.count(_FENCE) % 2 else text


def _truncate(text: str, limit: int, suffix: str = SEE_SOURCE) -> str:
    """Cut escaped mrkdwn to ``limit`` characters: at a line boundary when one is near,
    never inside an HTML entity, with an opened code fence closed and ``suffix`` appended."""
    if len(text) <= limit:
        return text
    tail = "\n" + suffix
    budget = limit - len(tail) - len("\n" + _FENCE)
    if budget <= 0:
        return suffix[:limit]
    cut = text[:budget]
    newline = cut.rfind("\n")
    if newline >= budget // 2:
        cut = cut[:newline]
    else:
        amp = cut.rfind("&")
        if amp != -1 and ";" not in cut[amp:]:
            cut = cut[:amp]  # do not split "&amp;", "&lt;", "&gt;"
        cut = cut.rstrip("`")
    cut = _balance_fences(cut.rstrip())
    return cut + tail


# --------------------------------------------------------------------------- block helpers


def _mrkdwn(text: str) -> dict[str, Any]:
    return {"type": "mrkdwn", "text": text, "verbatim": True}


def _plain(text: str, limit: int) -> dict[str, Any]:
    return {"type": "plain_text", "text": _clip(text, limit) or "-", "emoji": True}


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": _mrkdwn(_truncate(text, MAX_SECTION_TEXT, "…"))}


def _context(*elements: str) -> dict[str, Any]:
    items = [e for e in elements if e][:MAX_CONTEXT_ELEMENTS]
    return {"type": "context", "elements": [_mrkdwn(_truncate(e, 3000, "…")) for e in items]}


def _header(text: str) -> dict[str, Any]:
    return {"type": "header", "text": _plain(text, MAX_HEADER_TEXT)}


def _button(
    text: str,
    action_id: str,
    *,
    value: str | None = None,
    url: str | None = None,
    style: str | None = None,
) -> dict[str, Any]:
    button: dict[str, Any] = {
        "type": "button",
        "text": _plain(text, MAX_BUTTON_TEXT),
        "action_id": action_id,
    }
    if value is not None:
        button["value"] = value[:2000]
    if url is not None:
        button["url"] = url
    if style is not None:
        button["style"] = style
    return button


def _block_chars(block: dict[str, Any]) -> int:
    """Characters of text a block sends (what Slack's per-message budget counts)."""
    total = 0
    text = block.get("text")
    if isinstance(text, dict):
        total += len(str(text.get("text", "")))
    for element in block.get("elements", []) or []:
        if isinstance(element, dict):
            inner = element.get("text")
            if isinstance(inner, dict):
                total += len(str(inner.get("text", "")))
            elif isinstance(inner, str):
                total += len(inner)
    return total


# --------------------------------------------------------------------------- pieces


def _citation_label(citation: Citation) -> str:
    title = _clip(citation.title or citation.path, _LABEL_MAX)
    section = _clip(citation.section, _LABEL_MAX) if citation.section else ""
    return f"{title} - {section}" if section and section != title else title


def _source_line(citation: Citation) -> str:
    label = _citation_label(citation)
    if citation.url and _safe_url(citation.url):
        return ":page_facing_up: " + _link(citation.url, label)
    where = escape(_clip(f"{citation.path}:{citation.line}", 300))
    return f":page_facing_up: *{escape(label).replace('*', '∗')}* (`{where}`)"


def _format_quote(quote: str) -> str:
    """The quote as Slack shows it: code fences kept (so code stays a code block),
    otherwise every line prefixed with ``> ``."""
    body = quote.strip("\n")
    if not body.strip():
        return "> (empty quote)"
    if _FENCE in body:
        return _balance_fences(escape(_strip_fence_info(body)))
    return "\n".join("> " + escape(line) for line in body.split("\n"))


def _citation_context(citation: Citation, today: date) -> dict[str, Any]:
    age = _age_days(citation, today)
    elements = [
        "owner " + escape(_clip(citation.owner or "none", 80)),
        f"updated {_days(age)} ago" if age is not None else "updated: unknown",
        escape(_clip(citation.doc_type, 40)),
    ]
    if citation.status and citation.status != "current":
        elements.append("*" + escape(_clip(citation.status, 40)).replace("*", "∗") + "*")
    if citation.revision:
        elements.append("rev `" + escape(citation.revision[:8]) + "`")
    return _context(*elements)


def _citation_blocks(citation: Citation, today: date, budget: int) -> list[dict[str, Any]] | None:
    """The quote section and its context block, within ``budget`` characters in total;
    None when not even a useful part of the quote fits."""
    source = _source_line(citation)
    context = _citation_context(citation, today)
    room = min(MAX_SECTION_TEXT, budget - _block_chars(context)) - len(source) - 1
    if room < _MIN_QUOTE_CHARS:
        return None
    quote = _truncate(_format_quote(citation.quote), room)
    section = {"type": "section", "text": _mrkdwn(f"{quote}\n{source}")}
    return [section, context]


def _lookup(answer: Answer, source_id: str | None) -> Citation | None:
    everything = (*answer.citations, *answer.private_citations, *answer.related)
    if source_id is not None:
        for citation in everything:
            if citation.source_id == source_id:
                return citation
        return None
    return answer.citations[0] if len(answer.citations) == 1 else None


def _warning_text(warning: AnswerWarning, answer: Answer, today: date) -> str:
    message = " ".join(warning.message.split())
    citation = _lookup(answer, warning.source_id)
    if warning.kind == "stale" and citation is not None:
        age = _age_days(citation, today)
        owner = citation.owner or "none"
        if not message:
            if age is not None:
                return f"Last updated {_days(age)} ago (owner {owner}) - verify before acting"
            message = _WARNING_DEFAULTS["stale"]
        extra = []
        if age is not None and not re.search(rf"(?<!\d){age} days?\b", message):
            extra.append(f"last updated {_days(age)} ago")
        if owner not in message:
            extra.append(f"owner {owner}")
        if extra:
            message = f"{message} ({', '.join(extra)})"
    if not message:
        message = _WARNING_DEFAULTS[warning.kind]
    if (
        citation is not None
        and len(answer.citations) > 1
        and warning.kind != "restricted-omitted"
        and citation.title
        and citation.title not in message
    ):
        message = f"{_clip(citation.title, _LABEL_MAX)}: {message}"
    return message


def _warnings_block(answer: Answer, today: date) -> dict[str, Any] | None:
    lines: list[str] = []
    for warning in answer.warnings:
        line = ":warning: " + _bold(_clip(_warning_text(warning, answer, today), 500))
        if line not in lines:
            lines.append(line)
    return _section("\n".join(lines)) if lines else None


def _related_block(related: Sequence[Citation], today: date) -> dict[str, Any] | None:
    lines = []
    for citation in related[:10]:
        age = _age_days(citation, today)
        when = f" ({_days(age)} ago)" if age is not None else ""
        lines.append("• " + _link(citation.url, _clip(citation.title or citation.path, 150)) + when)
    if not lines:
        return None
    more = f"\n…and {len(related) - 10} more" if len(related) > 10 else ""
    return _section("*Related incidents:*\n" + "\n".join(lines) + more)


def _feedback_actions(request_id: str, *, offer_post: bool) -> dict[str, Any]:
    elements = [
        _button(":+1: Helpful", ACTION_FEEDBACK_HELPFUL, value=request_id),
        _button(":-1: Not helpful", ACTION_FEEDBACK_NOT_HELPFUL, value=request_id),
    ]
    if offer_post:
        elements.append(
            _button("Post to channel", ACTION_POST_TO_CHANNEL, value=request_id, style="primary")
        )
    return {"type": "actions", "block_id": "answer_actions", "elements": elements}


def _footer(question: str, request_id: str) -> dict[str, Any]:
    asked = f"Asked: “{escape(_clip(question, _QUESTION_MAX))}”" if question.strip() else ""
    return _context(asked, f"request `{escape(_clip(request_id, 80))}`")


def _fallback(*parts: str) -> str:
    text = "\n".join(p for p in parts if p.strip())
    text = escape(text) if text else "Runbook answer"
    return _truncate(text, MAX_FALLBACK_TEXT, "…")


def _fit_citations(
    head: list[dict[str, Any]],
    tail: list[dict[str, Any]],
    citations: Sequence[Citation],
    today: date,
    *,
    noun: str = "source",
) -> list[dict[str, Any]]:
    """``head`` + as many citations as the block and character budgets allow + an
    "…and N more sources" note + ``tail``."""
    used_blocks = len(head) + len(tail) + 1  # reserve the "more" note
    used_chars = sum(_block_chars(b) for b in (*head, *tail)) + 100
    body: list[dict[str, Any]] = []
    shown = 0
    for citation in citations:
        if used_blocks + 2 > MAX_BLOCKS:
            break
        blocks = _citation_blocks(citation, today, MAX_MESSAGE_CHARS - used_chars)
        if blocks is None:
            break
        body.extend(blocks)
        used_blocks += len(blocks)
        used_chars += sum(_block_chars(b) for b in blocks)
        shown += 1
    hidden = len(citations) - shown
    if hidden:
        plural = noun if hidden == 1 else noun + "s"
        body.append(_context(f"…and {hidden} more {plural}"))
    return head + body + tail


# --------------------------------------------------------------------------- public API


def render_answer(
    answer: Answer,
    *,
    request_id: str,
    today: date,
    offer_post: bool = False,
    incident: bool = False,
    private_note: str | None = None,
) -> Message:
    """The reply to a question: warnings first, the answer, quoted citations, actions.

    ``private_note`` (e.g. "1 restricted runbook sent to you privately") is shown right
    after the warnings; ``incident`` names the runbook first and lists related incidents.
    """
    if answer.state != "answer":
        return render_abstain(
            answer,
            request_id=request_id,
            today=today,
            offer_post=offer_post,
            incident=incident,
            private_note=private_note,
        )
    head: list[dict[str, Any]] = []
    primary = answer.citations[0] if answer.citations else None
    if incident and primary is not None:
        title = _clip(primary.title or primary.path, 200)
        head.append(_section("*Runbook:* " + _link(primary.url, title)))
    warnings = _warnings_block(answer, today)
    if warnings is not None:
        head.append(warnings)
    if private_note:
        head.append(_context(":lock: " + escape(_clip(private_note, 500))))
    if answer.text.strip():
        head.append(_section(escape(_strip_fence_info(answer.text.strip()))))

    tail: list[dict[str, Any]] = []
    if incident:
        related = _related_block(answer.related, today)
        if related is not None:
            tail.append(related)
    tail.append(_footer(answer.question, request_id))
    tail.append(_feedback_actions(request_id, offer_post=offer_post))

    blocks = _fit_citations(head, tail, answer.citations, today)

    first_warning = (
        "Warning: " + _clip(_warning_text(answer.warnings[0], answer, today), 300)
        if answer.warnings
        else ""
    )
    runbook = f"Runbook: {primary.title}" if incident and primary is not None else ""
    source = f"Source: {_citation_label(primary)}" if primary is not None else ""
    text = _fallback(runbook, first_warning, _clip(answer.text, 1500) or "Runbook answer", source)
    return Message(text=text, blocks=blocks)


def render_abstain(
    answer: Answer,
    *,
    request_id: str,
    today: date,
    offer_post: bool = False,
    incident: bool = False,
    private_note: str | None = None,
) -> Message:
    """'No runbook answers this', the reason in plain words, a search link and the closest
    service owner. Warnings (e.g. restricted runbooks omitted) still come first."""
    reason = _ABSTAIN_REASONS.get(answer.reason or "no-match", _ABSTAIN_REASONS["no-match"])
    unsure = answer.state == "unsure"
    headline = UNSURE_HEADLINE if unsure else ABSTAIN_HEADLINE
    blocks: list[dict[str, Any]] = [_header(headline)]
    warnings = _warnings_block(answer, today)
    if warnings is not None:
        blocks.append(warnings)
    if private_note:
        blocks.append(_context(":lock: " + escape(_clip(private_note, 500))))
    lines = [] if unsure else [escape(reason)]
    if answer.suggestions:
        lines.append("*Closest runbooks:*")
        for sug in answer.suggestions:
            label = _clip(
                f"{sug.title} - {sug.section}" if sug.section != sug.title else sug.title, 200
            )
            owner = f" · owner {escape(_clip(sug.owner, 100))}" if sug.owner else ""
            lines.append("• " + _link(sug.url, label) + owner)
    if answer.search_link and _safe_url(answer.search_link):
        lines.append(_link(answer.search_link, "Search all runbooks"))
    blocks.append(_section("\n".join(lines)))
    if incident and answer.related:
        related = _related_block(answer.related, today)
        if related is not None:
            blocks.append(related)
    blocks.append(_footer(answer.question, request_id))
    actions = _feedback_actions(request_id, offer_post=offer_post)
    link = answer.search_link
    if link and _safe_url(link) and len(link) <= MAX_BUTTON_URL:
        actions["elements"].insert(
            0, _button(":mag: Search runbooks", ACTION_OPEN_SEARCH, value=request_id, url=link)
        )
    blocks.append(actions)

    parts = [headline if unsure else f"{headline}: {reason}"]
    if answer.suggestions:
        parts.append("Closest: " + _clip(answer.suggestions[0].title, 150))
    return Message(text=_fallback(*parts), blocks=blocks)


def render_searching(question: str) -> Message:
    """The immediate ephemeral acknowledgement while the search runs."""
    q = _clip(question.strip(), _QUESTION_MAX)
    text = f"Searching runbooks for “{escape(q)}”…" if q else "Searching runbooks…"
    return Message(text=text, blocks=[_context(":mag: " + text)])


def render_usage() -> Message:
    """``/runbook help``: how to ask."""
    examples = "\n".join(
        [
            "*Ask the runbooks* - answers quote the runbook and link to the exact section.",
            "• `/runbook checkout-api database connection refused`",
            "• `/runbook payments how do I switch traffic to the secondary provider?`",
            "• `/runbook PaymentProviderLatencyHigh` - an alert name works too",
            "• Mention the bot in an incident thread: `@runbook what do I check first?`",
            "Start with a service name to search only that service's runbooks "
            "(`/runbook [service] question`). `/runbook help` shows this message.",
        ]
    )
    return Message(
        text="Usage: /runbook [service] question",
        blocks=[
            _section(examples),
            _context("Answers are visible only to you until you post them."),
        ],
    )


def render_error(request_id: str, detail: str | None = None) -> Message:
    """A short visible error that names the request id for the logs."""
    rid = escape(_clip(request_id, 80))
    text = f"Something went wrong (request {rid}). The on-call team can find it in the logs."
    blocks = [_section(":x: " + text)]
    if detail and detail.strip():
        blocks.append(_context(escape(_clip(detail.strip(), 500))))
    return Message(text=text, blocks=blocks)


def render_private_restricted(
    citations: Sequence[Citation], request_id: str, today: date
) -> Message:
    """Restricted runbooks for the asker only (ephemeral): "N restricted runbooks sent to
    you privately" with the same quotes, links and context as a normal answer."""
    n = len(citations)
    headline = (
        f"{n} restricted runbook{'s' if n != 1 else ''} sent to you privately"
        if n
        else "No restricted runbooks to show"
    )
    head = [
        _section(f":lock: *{headline}*"),
        _context("Visible only to you: these runbooks are restricted - do not paste them."),
    ]
    tail = [_context(f"request `{escape(_clip(request_id, 80))}`")]
    blocks = _fit_citations(head, tail, citations, today, noun="restricted source")
    first = f"Source: {_citation_label(citations[0])}" if citations else ""
    return Message(text=_fallback(headline, first), blocks=blocks)
