"""The compact card an alert's auto-reply is: what to do first, who to call, one click to
the rest.

Top to bottom: why this runbook (and a link to the alert's own ``runbook_url``), the
warnings that change what to do, the lead section as one link, "Before you start:
<Prerequisites>" when its runbook says the steps need something in place first, its
first commands (byte for byte), the human step, and buttons: "Full runbook" (the whole
answer in place, or the runbook's web page when the web pages have an address), "Page
on-call" and "Escalate". When the alert resolves, the card collapses to one line with the runbook's
link (:func:`render_resolved_card`).
"""

from __future__ import annotations

from datetime import date
from typing import Any
from urllib.parse import urlsplit

from bot.quote_layout import quote_markdown
from bot.slack import actions as ids
from bot.slack.answer_view import (
    answer_warnings,
    before_line,
    lead_link,
    notification_text,
    resolved_line,
    step_actions,
    step_done,
)
from bot.slack.blockkit import (
    FENCE,
    MENTION_BLOCK,
    Message,
    actions,
    button,
    clip,
    context,
    escape,
    fallback,
    link,
    safe_url,
    section,
)
from bot.slack.human_step_view import human_step_blocks
from bot.slack.mrkdwn import command_block, first_command
from bot.slack.presentation import View
from bot.web.links import runbook_url
from core.models import Answer, Citation

MAX_COMMAND_LINES = 4
_LINE_MAX = 300


def runbook_page_url(public_url: str | None, source_id: str) -> str | None:
    """The runbook's own web page (``/runbooks/<id>``), when the web pages have an address."""
    return runbook_url(public_url, source_id) if public_url else None


def first_commands(citation: Citation) -> str | None:
    """The first lines of the lead's first code block that shows a command
    (:func:`bot.slack.mrkdwn.command_block`), as written ("…" when it goes on); else its
    first command."""
    shown = quote_markdown(citation)
    block = command_block(shown)
    if block is not None:
        lines = [ln for ln in block.text.split("\n") if ln.strip()]
        more = ["…"] if len(lines) > MAX_COMMAND_LINES else []
        return "\n".join(lines[:MAX_COMMAND_LINES] + more)
    return first_command(shown)


def alert_url_line(url: str | None) -> str | None:
    """ "The alert's runbook_url: <link>" (what the alert itself points at)."""
    if not url or not safe_url(url):
        return None
    path = urlsplit(url).path.strip("/")
    label = clip("/".join(path.split("/")[-2:]) or url, 120)
    return f":link: The alert's runbook_url: {link(url, label)}"


def render_alert_card(
    answer: Answer,
    *,
    request_id: str,
    today: date,
    view: View,
    public_url: str | None = None,
) -> Message:
    """The card for ``answer`` (an alert's auto-reply), or its one line once resolved."""
    if view.resolved and answer.citations:
        return render_resolved_card(answer, view)
    lead = answer.citations[0]
    blocks: list[dict[str, Any]] = []
    top = [t for t in (view.preface, alert_url_line(view.alert_url)) if t]
    if top:
        text = "\n".join(top)
        mention = "<@" in text or "<!subteam^" in text
        blocks.append(context(text, block_id=f"{MENTION_BLOCK}_preface" if mention else "preface"))
    warnings = answer_warnings(answer, today)
    if warnings is not None:
        blocks.append(warnings)
    lines = [":arrow_forward: " + lead_link(lead)]
    before = before_line(lead)
    if before:  # what must be in place before the first command
        lines.append(before)
    commands = first_commands(lead)
    if commands:
        lines.append(f"{FENCE}\n{escape(commands.replace(FENCE, '`'))}\n{FENCE}")
    blocks.append(section("\n".join(lines), block_id="lead"))
    blocks.extend(human_step_blocks(view.step, view.audience, done=step_done(view)))
    page = runbook_page_url(public_url, lead.source_id)
    elements = [
        button(
            ":open_book: Full runbook",
            ids.FULL_RUNBOOK,
            value=request_id,
            url=page,
            style=None,
        )
    ]
    elements.extend(step_actions(view, request_id, lead.title))
    blocks.append(actions(elements, block_id="card_actions"))
    return Message(text=notification_text(answer), blocks=blocks)


def render_resolved_card(answer: Answer, view: View) -> Message:
    """One line: resolved, the alert, and the runbook's link."""
    at = view.resolved or 0.0
    name = f" *{escape(clip(view.alert_name, 150))}*" if view.alert_name else ""
    runbook = f" · {lead_link(answer.citations[0])}" if answer.citations else ""
    line = resolved_line(at).replace(": the alert has cleared.", f":{name} cleared{runbook}")
    title = answer.citations[0].title if answer.citations else ""
    text = f"Resolved: {view.alert_name or 'the alert'}" + (f" · {title}" if title else "")
    return Message(
        text=fallback(escape(clip(text, _LINE_MAX))), blocks=[context(line, block_id="resolved")]
    )
