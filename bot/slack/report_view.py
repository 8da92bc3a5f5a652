"""Runbook health reports as Slack messages (``report stale|gaps --format slack|--post``).

Built from the shared Block Kit toolkit, so reports keep the same limits as answers:
rows go into sections line by line, and when the message is full a closing "…and N more"
line says how many were left out. Runbook titles, owners and questions are untrusted
text, escaped; owners appear as written (``@search-team``), never as mentions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from bot.reports import GapGroup, ReportRow
from bot.slack.blockkit import (
    MAX_TEXT,
    Blocks,
    bold,
    clip,
    code,
    context,
    days,
    escape,
    fallback,
    header,
    link,
    plural,
    safe_url,
    section,
)

_TITLE_MAX = 120
_QUESTION_MAX = 300
_RESERVE_CHARS = 300  # a closing "…and N more" line


def _group(out: Blocks, heading: str, lines: Sequence[str]) -> int:
    """Add ``heading`` with as many ``lines`` as fit, in sections of up to 3000
    characters; how many lines went in."""
    placed = 0
    pending, pending_lines = heading, 0
    for line in lines:
        line = (
            line
            if len(line) <= MAX_TEXT - len(heading) - 1
            else line[: MAX_TEXT - len(heading) - 2] + "…"
        )
        candidate = f"{pending}\n{line}" if pending else line
        if len(candidate) <= MAX_TEXT and out.fits(section(candidate)):
            pending, pending_lines = candidate, pending_lines + 1
            continue
        if not pending_lines:
            return placed
        out.add(section(pending))
        placed += pending_lines
        pending, pending_lines = "", 0
        if not out.fits(section(line)):
            return placed
        pending, pending_lines = line, 1
    if pending_lines:
        out.add(section(pending))
        placed += pending_lines
    return placed


def _row_line(r: ReportRow) -> str:
    facts = [escape(clip(r.detail, 600))]
    if r.citations:
        facts.append(f"cited {r.citations}×")
    title = link(r.url, clip(r.title or r.path, _TITLE_MAX))
    return f"• *{r.kind}* {title} {code(clip(r.path, _TITLE_MAX))}\n    " + " · ".join(facts)


def format_slack(rows: Sequence[ReportRow], *, window_days: int | None = None) -> dict[str, Any]:
    """A ``chat.postMessage`` payload (``text`` + ``blocks``), rows grouped by owner.

    Owners come in the order of their highest-ranked row; documents without an owner are
    grouped under "No owner".
    """
    counts = Counter(r.kind for r in rows)
    summary = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "all clear"
    text = fallback(escape(f"Runbook health report: {summary}"))
    out = Blocks(reserve_blocks=1, reserve_chars=_RESERVE_CHARS)
    out.add(header("Runbook health report"))
    if not rows:
        out.add(context("No stale, ownerless or retired-but-linked documents."))
        return {"text": text, "blocks": out.blocks}
    if all(r.citations is None for r in rows):
        note = f"{summary}. The query log was unavailable: ranked by age."
    else:
        window = f" in the last {days(window_days)}" if window_days else ""
        note = f"{summary}. Ranked by citations{window}, then by age."
    out.add(context(escape(note)))

    groups: dict[str, list[ReportRow]] = {}
    for r in rows:
        groups.setdefault(r.owner or "", []).append(r)
    shown = 0
    for owner, owner_rows in groups.items():
        heading = bold(clip(f"Owner: {owner}", _TITLE_MAX)) if owner else "*No owner*"
        placed = _group(out, heading, [_row_line(r) for r in owner_rows])
        shown += placed
        if placed < len(owner_rows):
            break
    if shown < len(rows):
        out.force(context(f"…and {plural(len(rows) - shown, 'more finding')} not shown here."))
    return {"text": text, "blocks": out.blocks}


def draft_text(label: str, url: str | None) -> str:
    """A question's draft as mrkdwn: its state, linked when it has a link."""
    return link(url, label) if url and safe_url(url) else escape(label)


def format_gaps_slack(
    groups: Sequence[GapGroup], *, window_days: int | None = None
) -> dict[str, Any]:
    """A ``chat.postMessage`` payload listing unanswered questions by service."""
    total = sum(g.count for g in groups)
    window = f" in the last {days(window_days)}" if window_days else ""
    text = fallback(escape(f"Runbook gaps: {plural(total, 'unanswered question')}{window}"))
    out = Blocks(reserve_blocks=1, reserve_chars=_RESERVE_CHARS)
    out.add(header("Runbook gaps"))
    if not groups:
        out.add(context(escape(f"No unanswered or unhelpful questions{window}.")))
        return {"text": text, "blocks": out.blocks}
    out.add(context(escape(f"{plural(total, 'question')}{window} got no answer or a 👎.")))
    distinct = sum(len(g.questions) for g in groups)
    shown = 0
    for g in groups:
        heading = f"{bold(clip(g.service, _TITLE_MAX))}: {plural(g.count, 'question')}"
        lines = [
            f"• {escape(clip(q.question, _QUESTION_MAX))}"
            + (f" (×{q.count})" if q.count > 1 else "")
            + (f" · :memo: {draft_text(q.draft, q.draft_url)}" if q.draft else "")
            for q in g.questions
        ]
        placed = _group(out, heading, lines)
        shown += placed
        if placed < len(lines):
            break
    if shown < distinct:
        out.force(context(f"…and {plural(distinct - shown, 'more question')} not shown here."))
    return {"text": text, "blocks": out.blocks}
