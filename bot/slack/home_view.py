"""The App Home tab: the viewer's runbooks that need attention, the questions about their
services nothing answered, and how to ask."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.reports import GapGroup, ReportRow
from bot.slack.blockkit import (
    MAX_BLOCKS,
    bold,
    clip,
    context,
    days,
    divider,
    escape,
    header,
    link,
    plural,
    section,
)
from bot.slack.report_view import draft_text

MAX_ROWS = 15
MAX_SERVICES = 8
MAX_QUESTIONS = 3
HOW_TO_ASK = "\n".join(
    [
        "*Ask the runbooks* (answers quote the runbook and link the exact section):",
        "• `/runbook {example}`: only you see the answer",
        "• mention `@runbook` in an alert's thread: it answers there, from the alert",
        "• message me here, privately",
        "• on any message (an alert, a pasted log): *More actions* → *Find runbook for this "
        "message*",
    ]
)
_KIND = {
    "stale": "stale",
    "ownerless": "no owner",
    "superseded": "superseded, still linked",
    "deprecated": "deprecated, still linked",
    "unwritten": "not written yet",
}


@dataclass(frozen=True)
class HomeData:
    """What the viewer's App Home shows."""

    owned: int  # runbooks the viewer owns (through a user group they are in, or by name)
    services: tuple[str, ...]  # the services of those runbooks
    rows: tuple[ReportRow, ...]  # of those, stale or retired-but-linked; ownerless ones
    # unanswered questions about those services, only those whose answers cited nothing
    # the viewer may not read
    gaps: tuple[GapGroup, ...]
    gaps_days: int
    gaps_known: bool = True  # False: the query log could not be read
    owners_known: bool = True  # False: Slack could not say which user groups they are in
    example: str | None = None  # an example question from the runbooks they may read


def _row_line(row: ReportRow) -> str:
    title = clip(row.title or row.path, 120)
    name = f"*{link(row.url, title)}*" if row.url else bold(title)
    what = _KIND.get(row.kind, row.kind)
    if row.kind == "stale" and row.age_days is not None:
        what = f"stale: updated {days(row.age_days)} ago"
    elif row.kind == "unwritten":
        what = row.detail  # which sections
    cited = f" · cited {plural(row.citations, 'time')}" if row.citations else ""
    return f"• {name} · {escape(what)}{cited}"


def _gap_lines(group: GapGroup) -> str:
    lines = [f"*{escape(clip(group.service, 80))}* · {plural(group.count, 'question')}"]
    for q in group.questions[:MAX_QUESTIONS]:
        times = f" ({q.count}×)" if q.count > 1 else ""
        draft = f" · :memo: {draft_text(q.draft, q.draft_url)}" if q.draft else ""
        lines.append(f"• “{escape(clip(' '.join(q.question.split()), 200))}”{times}{draft}")
    return "\n".join(lines)


def render_home(data: HomeData) -> list[dict[str, Any]]:
    """The blocks of the viewer's Home tab."""
    example = escape(" ".join((data.example or "<your question>").split())).replace("`", "'")
    how = HOW_TO_ASK.replace("{example}", example)
    blocks: list[dict[str, Any]] = [header("Runbooks"), section(how, block_id="how")]
    blocks.append(divider())
    blocks.append(header("Your runbooks that need attention"))
    if not data.owners_known:
        blocks.append(section("Slack did not say which user groups you are in: try again later."))
    elif data.owned == 0:
        blocks.append(
            section(
                "You own no runbooks. Owners come from front matter `owner:`, CODEOWNERS or "
                "OWNERS; a Slack user group you are in counts as you."
            )
        )
    elif not data.rows:
        blocks.append(
            section(
                f"Nothing stale or ownerless among the {plural(data.owned, 'runbook')} you own."
            )
        )
    else:
        lines = [_row_line(r) for r in data.rows[:MAX_ROWS]]
        more = len(data.rows) - MAX_ROWS
        if more > 0:
            lines.append(f"…and {more} more: `runbook-bot report stale`")
        blocks.append(section("\n".join(lines), block_id="attention"))
    if data.services:
        names = ", ".join(escape(clip(s, 60)) for s in data.services[:10])
        blocks.append(context(f"Your services: {names}"))
    blocks.append(divider())
    blocks.append(header(f"Unanswered questions about your services ({data.gaps_days} days)"))
    if not data.gaps_known:
        blocks.append(section("The question log could not be read just now."))
    elif not data.services:
        blocks.append(section("Once you own runbooks, questions about their services show here."))
    elif not data.gaps:
        blocks.append(
            section("None: every question about your services that you may see found a runbook.")
        )
    else:
        for group in data.gaps[:MAX_SERVICES]:
            blocks.append(section(_gap_lines(group)))
    blocks.append(context("Updated each time you open this tab."))
    return blocks[:MAX_BLOCKS]


def home_view(blocks: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "home", "blocks": list(blocks)}
