"""The bot's short messages: searching, usage, errors, the restricted-runbook notice,
the minimal answer Slack accepts when it rejects the full one, the escalation post, and
the lines under alerts (no runbook, fired again, resolved) and in shared channels."""

from __future__ import annotations

from bot.oncall import HumanStep, Incident
from bot.quote_layout import quote_markdown
from bot.slack import actions as ids
from bot.slack.answer_view import (
    before_line,
    best_guess_line,
    contact_text,
    lead_link,
    notification_text,
    resolved_line,
)
from bot.slack.blockkit import (
    FENCE,
    MENTION_BLOCK,
    Message,
    actions,
    bold,
    button,
    channel_link,
    clip,
    context,
    escape,
    fallback,
    link,
    plural,
    safe_url,
    section,
    user_mention,
    usergroup_mention,
)
from bot.slack.mrkdwn import first_command
from bot.slack.presentation import Contact
from bot.text import is_best_guess
from core.models import Answer, Citation

_QUESTION_MAX = 300


def render_searching(question: str) -> Message:
    """The acknowledgement when the answer takes longer than Slack waits for one."""
    q = clip(question.strip(), _QUESTION_MAX)
    text = (
        f"Searching runbooks for “{escape(q)}”… the answer follows." if q else "Searching runbooks…"
    )
    return Message(text=text, blocks=[context(":mag: " + text, block_id="searching")])


def render_usage() -> Message:
    """``/runbook help``: how to ask."""
    examples = "\n".join(
        [
            "*Ask the runbooks*: answers quote the runbook and link to the exact section.",
            "• `/runbook checkout-api database connection refused`",
            "• `/runbook payments how do I switch traffic to the secondary provider?`",
            "• `/runbook PaymentProviderLatencyHigh`: an alert name works too",
            "• Mention the bot in an alert's thread: `@runbook what do I do?`; "
            "then `@runbook and if that doesn't work?` for the runbook's next steps",
            "• Message the bot directly, or use *Find runbook for this message* on any "
            "message (an alert, a pasted log)",
            "Start with a service name to search that service's runbooks "
            "(`/runbook [service] question`). `/runbook help` shows this message.",
        ]
    )
    return Message(
        text="Usage: /runbook [service] question",
        blocks=[
            section(examples),
            context("Answers are visible only to you until you post them."),
        ],
    )


def render_error(
    request_id: str,
    detail: str | None = None,
    *,
    next_step: str | None = None,
    search_link: str | None = None,
    retry: bool = True,
) -> Message:
    """A failure that says what to do next, with a Retry button; the request id (for the
    logs) in small print."""
    step = next_step or "Try again in a minute."
    headline = f":warning: *I couldn't search the runbooks just now.* {escape(step)}"
    elements = []
    if retry:
        elements.append(button(":repeat: Retry", ids.RETRY, value=request_id, style="primary"))
    if safe_url(search_link):
        assert search_link is not None
        elements.append(
            button(":mag: Search the runbooks", ids.OPEN_SEARCH, value=request_id, url=search_link)
        )
    rid = escape(clip(request_id, 80))
    small = [f"request `{rid}`"]
    if detail and detail.strip():
        small.insert(0, escape(clip(detail.strip(), 400)))
    blocks = [section(headline, block_id="error")]
    if elements:
        blocks.append(actions(elements, block_id="error_actions"))
    blocks.append(context(" · ".join(small)))
    text = f"I couldn't search the runbooks just now: {escape(step)} (request {rid})"
    return Message(text=fallback(text), blocks=blocks)


def render_restricted_notice(asker_id: str, documents: int, owner: Contact | None) -> Message:
    """The public reply when the runbooks that answer are restricted: they matched and
    went to the asker privately; no title, the owner named without a ping."""
    runbooks = "A restricted runbook" if documents == 1 else f"{documents} restricted runbooks"
    who = user_mention(asker_id) or "the person who asked"
    owner_text = f" Owner: {contact_text(owner, 'public')}." if owner is not None else ""
    line = (
        f":lock: *{runbooks} matched this question.* I sent "
        f"{'it' if documents == 1 else 'them'} to {who} privately: not everyone here may "
        f"read {'it' if documents == 1 else 'them'}.{owner_text}"
    )
    text = f"{runbooks} matched this question and was sent privately to the asker."
    if documents != 1:
        text = text.replace(" was ", " were ")
    block_id = f"{MENTION_BLOCK}_restricted" if "<@" in who else "restricted"
    return Message(text=text, blocks=[section(line, block_id=block_id)])


def withheld_note(asker_id: str, documents: int) -> str:
    """Under a public answer: what else matched and where it went (counted in documents)."""
    who = user_mention(asker_id) or "the person who asked"
    more = "1 more runbook" if documents == 1 else f"{documents} more runbooks"
    return f"{more} matched that not everyone here may read: sent to {who} privately."


def restricted_private_note(documents: int) -> str:
    """Over a private answer: how many restricted runbooks it holds (documents)."""
    it = "it" if documents == 1 else "them"
    return (
        f"{plural(documents, 'restricted runbook')} sent to you privately: not everyone in "
        f"the channel may read {it}."
    )


def render_minimal(answer: Answer, request_id: str) -> Message:
    """What to post when Slack rejects the full answer: the runbook link, what must be in
    place first when its runbook says so, and its first command."""
    if answer.state != "answer" or not answer.citations:
        link_text = lead_link(answer.suggestions[0]) if answer.suggestions else ""
        text = "No runbook answered this with confidence."
        body = f":grey_question: {text}" + (f" Closest: {link_text}" if link_text else "")
        return Message(text=text, blocks=[section(body)])
    lead: Citation = answer.citations[0]
    lines = [":arrow_forward: " + lead_link(lead)]
    before = before_line(lead)
    if before:  # what must be in place before the first command
        lines.append(before)
    command = first_command(quote_markdown(lead))
    if command:
        lines.append(f"{FENCE}\n{escape(command.replace(FENCE, '`'))}\n{FENCE}")
    blocks = [
        *([best_guess_line()] if is_best_guess(answer) else []),
        section("\n".join(lines), block_id="lead"),
        context("The full answer did not fit in a Slack message: the rest is in the runbook."),
        actions(
            [
                button(":+1: Helpful", ids.FEEDBACK_HELPFUL, value=request_id),
                button(":-1: Not helpful", ids.FEEDBACK_NOT_HELPFUL, value=request_id),
            ],
            block_id="answer_actions",
        ),
    ]
    return Message(text=notification_text(answer), blocks=blocks)


def render_escalation(clicker_id: str, owner: Contact, citation: Citation | None) -> Message:
    """The one post an "Escalate to owner" click makes in the thread: it notifies the
    owner, says who escalated, and links the runbook section."""
    who = user_mention(clicker_id) or "Someone"
    if owner.kind == "usergroup" and owner.id:
        target = usergroup_mention(owner.id, owner.label)
    elif owner.kind == "user" and owner.id:
        target = user_mention(owner.id) or bold(owner.label)
    elif owner.kind == "channel" and owner.id:
        target = channel_link(owner.id, owner.label)
    else:
        target = bold(owner.label)
    where = f" about {lead_link(citation)}" if citation is not None else ""
    line = f":rotating_light: {who} is escalating to {target}{where}."
    if owner.kind == "channel" and owner.id:
        line += " I asked there, with a link to this thread."
    text = f"Escalation to {owner.label}" + (f": {citation.title}" if citation else "")
    return Message(
        text=fallback(escape(text)),
        blocks=[section(line, block_id=f"{MENTION_BLOCK}_escalation")],
    )


def render_help_request(
    clicker_id: str, citation: Citation | None, permalink: str | None
) -> Message:
    """The post "Escalate" makes in a service's channel: who needs help, with what, and a
    link to the thread (the runbook only when everyone there may read it)."""
    who = user_mention(clicker_id) or "Someone"
    about = f" with {lead_link(citation)}" if citation is not None else ""
    thread = f" in {link(permalink, 'this thread')}" if safe_url(permalink) else ""
    line = f":rotating_light: {who} needs help{about}{thread}."
    text = "Someone needs help" + (f" with {citation.title}" if citation else "")
    return Message(
        text=fallback(escape(text)), blocks=[section(line, block_id=f"{MENTION_BLOCK}_help")]
    )


def render_paged(clicker_id: str, step: HumanStep, incident: Incident) -> Message:
    """The line in the thread after "Page on-call": who paged whom, and the incident."""
    who = user_mention(clicker_id) or "Someone"
    people = ", ".join(bold(c.label) for c in step.contacts)
    name = f"incident #{incident.number}" if incident.number else "an incident"
    shown = link(incident.url, name) if safe_url(incident.url) else escape(name)
    line = f":pager: {who} paged on-call ({people}) through PagerDuty: {shown}."
    text = f"Paged on-call through PagerDuty: {name}"
    return Message(
        text=fallback(escape(text)), blocks=[section(line, block_id=f"{MENTION_BLOCK}_paged")]
    )


def render_external_decline() -> Message:
    """To the asker, privately, in a channel shared outside the company when no runbook
    that may be shown outside answers."""
    line = (
        ":lock: *This channel is shared with people outside the company*, so I answer here "
        "only from runbooks marked shareable, and none of them answers this. Ask me in a "
        "direct message or in an internal channel."
    )
    text = "No shareable runbook answers this here; ask me in a direct message."
    return Message(text=text, blocks=[section(line, block_id="external")])


def render_no_runbook(alertname: str, note: str | None = None) -> Message:
    """The one line under an alert no runbook answers with confidence (when configured)."""
    name = clip(alertname.strip(), 150) or "this alert"
    line = f":grey_question: No runbook for *{escape(name)}*."
    if note:
        line += " " + note
    return Message(text=fallback(f"No runbook for {escape(name)}."), blocks=[context(line)])


def render_repeat(alertname: str, permalink: str | None, when: str | None) -> Message:
    """The one line under a re-notification: the runbook answer is under the first one."""
    name = escape(clip(alertname.strip(), 150)) or "this alert"
    target = (
        link(permalink, "the first notification")
        if safe_url(permalink)
        else ("the first notification" + (f" ({escape(when)})" if when else ""))
    )
    line = f":repeat: *{name}* fired again: the runbook answer is in the thread of {target}."
    text = f"{name} fired again: the runbook answer is in the thread of the first notification."
    return Message(text=fallback(text), blocks=[context(line)])


def mark_resolved(message: Message, at: float) -> Message:
    """An alert reply collapsed to one line once the alert resolved: the resolution and
    the runbook link of its lead line (when the stored answer is gone)."""
    lead = next((b for b in message.blocks if b.get("block_id") in ("lead", "card_lead")), None)
    text = str(((lead or {}).get("text") or {}).get("text") or "")
    first = text.split("\n", 1)[0].removeprefix(":arrow_forward: ").strip()
    line = resolved_line(at) + (f" · {first}" if first else "")
    return Message(
        text=fallback(f"Resolved: {message.text}"), blocks=[context(line, block_id="resolved")]
    )
