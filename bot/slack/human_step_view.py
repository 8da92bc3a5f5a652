"""The human step in Slack: who to call now, rendered from :class:`bot.oncall.HumanStep`.

One line (``:telephone_receiver: *On call now for checkout-api (PagerDuty):* Ada``), its
small print said once ("No owner on record."), and the buttons it offers: "Page on-call"
(PagerDuty; a confirmation first, then an incident with the thread's link) and
"Escalate to <contact>". Contacts never notify anybody from the answer itself: a mention
only where nobody else reads it (an ephemeral reply), else a channel link or the name.
"""

from __future__ import annotations

from typing import Any

from bot.oncall import Contact, HumanStep
from bot.slack import actions as ids
from bot.slack.blockkit import (
    MENTION_BLOCK,
    bold,
    button,
    channel_link,
    context,
    escape,
    link,
    safe_url,
    section,
    user_mention,
    usergroup_mention,
)
from bot.slack.presentation import Audience

PAGE_CONFIRM_TITLE = "Page on-call?"
HUMAN_STEP_BLOCK = "human_step"


def contact_text(contact: Contact | None, audience: Audience) -> str:
    """A contact that never notifies anyone: a mention only where nobody else reads it
    (an ephemeral reply), a channel link, a link to their page, or the name in bold."""
    if contact is None:
        return "no owner on record"
    if contact.kind == "channel" and contact.id:
        return channel_link(contact.id, contact.label)
    if audience == "private" and contact.id:
        if contact.kind == "usergroup":
            return usergroup_mention(contact.id, contact.label)
        if contact.kind == "user":
            return user_mention(contact.id) or bold(contact.label)
    if contact.url and safe_url(contact.url):
        return f"*{link(contact.url, contact.label)}*"
    return bold(contact.label)


def human_step_line(step: HumanStep, audience: Audience) -> str:
    who = ", ".join(contact_text(c, audience) for c in step.contacts)
    return f":bust_in_silhouette: *{escape(step.lead)}:* {who}"


def human_step_blocks(
    step: HumanStep | None, audience: Audience, *, done: str | None = None
) -> list[dict[str, Any]]:
    """The step's line, and its small print (the note, what was done about it)."""
    if step is None:
        return []
    line = human_step_line(step, audience)
    has_mention = "<@" in line or "<!subteam^" in line
    out = [
        section(
            line,
            block_id=f"{MENTION_BLOCK}_{HUMAN_STEP_BLOCK}" if has_mention else HUMAN_STEP_BLOCK,
        )
    ]
    small = [escape(t) for t in (step.note,) if t]
    if done:
        small.append(done)
    if small:
        text = " · ".join(small)
        mention = "<@" in text
        out.append(context(text, block_id=f"{MENTION_BLOCK}_step_note" if mention else "step_note"))
    return out


def escalation_target(step: HumanStep | None) -> Contact | None:
    """Whom "Escalate" notifies: the step's first contact (a person, a group, a channel)."""
    if step is None or not step.contacts or step.source == "default":
        return None
    return step.contacts[0]


def page_button(step: HumanStep, request_id: str, runbook: str | None) -> dict[str, Any]:
    """ "Page on-call": Slack asks first, then the click creates a PagerDuty incident."""
    who = ", ".join(c.label for c in step.contacts)
    about = f" about {runbook}" if runbook else ""
    text = f"This creates a PagerDuty incident{about} and pages {who}, with a link to this thread."
    return button(
        ":pager: Page on-call",
        ids.PAGE_ONCALL,
        value=request_id,
        style="danger",
        confirm=(PAGE_CONFIRM_TITLE, escape(text), "Page"),
    )


def escalate_button(contact: Contact, request_id: str) -> dict[str, Any]:
    return button(f":rotating_light: Escalate to {contact.label}", ids.ESCALATE, value=request_id)
