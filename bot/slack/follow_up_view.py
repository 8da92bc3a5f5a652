"""The end of a runbook in a thread: a follow-up ("that didn't work, what next?", "who do
I call?") after the runbook's last step says so, names who to call, and lists the other
runbooks of its service, instead of answering the question anew from elsewhere."""

from __future__ import annotations

from typing import Any

from bot.slack import actions as ids
from bot.slack.answer_view import step_actions, step_done
from bot.slack.blockkit import (
    Message,
    actions,
    bold,
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
from bot.slack.presentation import Link, View

END_OF_RUNBOOK = "That is all this runbook has."
_TITLE_MAX = 150


def _label(item: Link) -> str:
    title = clip(item.label, _TITLE_MAX)
    return f"*{link(item.url, title)}*" if safe_url(item.url) else bold(title)


def render_end_of_runbook(request_id: str, view: View) -> Message:
    """What a follow-up gets when the runbook has nothing more to show."""
    runbook = view.runbook or Link(label="this runbook")
    if view.ended == "escalate":
        headline = f":bust_in_silhouette: Who to call about {_label(runbook)}:"
        text = f"Who to call about {runbook.label}"
    else:
        headline = f":checkered_flag: *{END_OF_RUNBOOK}*"
        if view.last_fix:
            last = escape(clip(view.last_fix, 120))
            headline += f" “{last}” was the last fix in {_label(runbook)}."
        else:
            headline += f" ({_label(runbook)})"
        text = f"{END_OF_RUNBOOK} ({runbook.label})"
    blocks: list[dict[str, Any]] = [section(headline, block_id="lead")]
    blocks.extend(human_step_blocks(view.step, view.audience, done=step_done(view)))
    if view.related_runbooks:
        lines = "\n".join("• " + _label(r) for r in view.related_runbooks)
        blocks.append(section(f"*Other runbooks for this service:*\n{lines}", block_id="related"))
    if view.feedback is not None:
        blocks.append(context("Feedback recorded: thanks, it helps the runbook owners."))
    elements = step_actions(view, request_id, runbook.label)
    if view.feedback is None:
        elements.append(button(":+1: Helpful", ids.FEEDBACK_HELPFUL, value=request_id))
        elements.append(button(":-1: Not helpful", ids.FEEDBACK_NOT_HELPFUL, value=request_id))
    if elements:
        blocks.append(actions(elements, block_id="answer_actions"))
    return Message(text=fallback(escape(text)), blocks=blocks)
