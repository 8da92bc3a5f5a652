"""An answer as the Slack message an on-call engineer reads: the fix first.

Layout of a confident answer, top to bottom:

1. the lead line: the runbook and section as one link (``Mitigation > Restart
   pgbouncer · Orders DB runbook``), marked "Closest match (different service)" when the
   question names a service the runbook is not about; above it, for an answer the
   answerer is not sure of, the one-line "Best guess" label (:data:`bot.text.BEST_GUESS`);
2. warnings that change what to do (stale, superseded), in bold;
3. the quotes, converted from Markdown to what Slack shows (:mod:`bot.slack.mrkdwn`),
   "steps 1-3 of 7" above a cut one, "Before you start: <Prerequisites>" above steps
   that the runbook says need something in place first, a further section of the same
   runbook under its own linked heading, and one "owner · updated N days ago" line per
   document (the revision is in the links); the first quote's lines past about 15 and
   sample output folded, with a "Show more" button that renders the message again, in
   place, with them;
4. the runbook's Escalation section; under a best guess, the next closest runbooks
   (:data:`bot.text.ALTERNATIVES`), each linked to its best section with its owner (a
   runbook of one template among many is easily taken for its sibling);
5. the owner (for an ownerless runbook a fallback contact), related incidents in
   incident channels, "Asked: …" only where the question is not visible above;
6. buttons: feedback, "Post to channel" (never for a best guess or a closest match),
   "Escalate to <owner>"; after a click the message is rendered again with what happened
   instead of the button.

The "not sure" and "none" tiers name the closest runbooks (linked to their best
section, with owners) and offer one search of the runbooks repository. The top-level
``text`` (the phone notification) reads ``Title > Section: `first command```.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from typing import Any

from bot.quote_layout import (
    BEFORE_YOU_START,
    by_runbook,
    cut_note,
    example_blocks,
    lead_cut,
    quote_markdown,
)
from bot.slack import actions as ids
from bot.slack.blockkit import (
    MENTION_BLOCK,
    Blocks,
    Message,
    actions,
    block_chars,
    bold,
    button,
    clip,
    context,
    days,
    escape,
    fallback,
    link,
    plural,
    safe_url,
    section,
    split_text,
    truncate,
    user_mention,
)
from bot.slack.human_step_view import (
    contact_text,
    escalate_button,
    escalation_target,
    human_step_blocks,
    page_button,
)
from bot.slack.mrkdwn import first_command, plain_text, table_cells, to_mrkdwn
from bot.slack.presentation import Audience, Contact, DocFacts, View
from bot.text import ALTERNATIVES, BEST_GUESS_ADVICE, BEST_GUESS_LABEL, NOT_SURE, is_best_guess
from core.heading_text import shown_section
from core.markdown import TABLE_ROW
from core.models import MISSING_DETAIL, Answer, AnswerWarning, Citation, Suggestion
from retrieval.answer import REASON_TEXT

CLOSEST_OTHER_SERVICE = "Closest match (different service)"
# the answer's own words for why it was not answered, as the answerer says them
UNWRITTEN = REASON_TEXT["unwritten"]
NONE_COVERS = REASON_TEXT["no-match"]
RESTRICTED = "Restricted runbook, visible only to you."
DO_NOT_PASTE = "Do not paste it in public channels."
_TITLE_MAX = 120
_QUESTION_MAX = 300
_MIN_QUOTE_CHARS = 300  # below this much room a further quote is counted as "more"
_DOC_KIND = {"incident": "incident write-up", "adr": "decision record", "doc": "doc"}
_WARNING_DEFAULTS: dict[str, str] = {
    "superseded": "This runbook has been superseded: check the newer one before acting.",
    "deprecated": "This runbook is deprecated: check for a replacement before acting.",
    "unverified-llm-fallback": (
        "Generated answer not verified against the runbook text: check the sources."
    ),
    "scope-incomplete": "Not every runbook could be searched: the answer may be incomplete.",
}


# --------------------------------------------------------------------------- small pieces


def age_days(citation: Citation, today: date) -> int | None:
    if citation.age_days is not None:
        return citation.age_days
    if citation.updated is not None:
        return max((today - citation.updated).days, 0)
    return None


def section_label(citation: Citation | Suggestion) -> str:
    """``Mitigation > Restart pgbouncer · Orders DB runbook`` (the title alone when the
    section is the runbook's introduction)."""
    title = clip(citation.title or citation.path, _TITLE_MAX)
    sec = clip(shown_section(citation.section), _TITLE_MAX) if citation.section else ""
    return f"{sec} · {title}" if sec and sec != title else title


def lead_link(citation: Citation | Suggestion) -> str:
    """The runbook and section as one bold link."""
    label = link(citation.url, section_label(citation))
    return f"*{label}*" if safe_url(citation.url) else bold(section_label(citation))


def _has_mention(text: str) -> bool:
    return "<@" in text or "<!subteam^" in text


def _block_id(text: str, name: str) -> str | None:
    return f"{MENTION_BLOCK}_{name}" if _has_mention(text) else None


def _quote_mrkdwn(citation: Citation, *, lead: bool = False, fold: bool = True) -> tuple[str, int]:
    """The quote as mrkdwn and how many of its lines are folded away: its sample output,
    logs and long examples (always), and for the ``lead`` quote the lines past about 15.
    What is shown is verbatim; "Show more" renders the message again with it all."""
    body = quote_markdown(citation, header=True).strip("\n")
    if not body.strip():
        return "(empty quote)", 0
    if not fold:
        return to_mrkdwn(body, base_url=citation.url), 0
    cut = lead_cut(body) if lead else None
    hidden = 0
    if cut is not None:
        hidden += body[cut:].count("\n") + 1
        body = body[:cut].rstrip("\n")
    lines = body.split("\n")
    for block in reversed(example_blocks(body)):
        folded = block.text.count("\n") + 1  # the example's own lines, as its note counts
        hidden += folded
        size = plural(folded, "line")
        lines[block.start : block.end] = [
            f"{' ' * block.indent}_Example folded ({size}): Show more to see it._"
        ]
    return to_mrkdwn("\n".join(lines), base_url=citation.url), hidden


def _warning_text(warning: AnswerWarning, answer: Answer, today: date) -> str | None:
    """The warning in a line; None for what is shown elsewhere (owner line, notes)."""
    if warning.kind in ("ownerless", "restricted-omitted"):
        return None
    cited = next((c for c in answer.citations if c.source_id == warning.source_id), None)
    if warning.kind == "stale" and cited is not None:
        age = age_days(cited, today)
        when = f"last updated {days(age)} ago" if age is not None else "not reviewed in time"
        text = f"May be out of date: {when}. Verify before acting."
        if len({c.source_id for c in answer.citations}) > 1:
            text = f"{clip(cited.title, _TITLE_MAX)}: {text}"
        return text
    if warning.kind in ("superseded", "deprecated") and cited is not None:
        by = f" by {cited.superseded_by}" if cited.superseded_by else ""
        verb = "deprecated" if warning.kind == "deprecated" else "superseded"
        return f"This runbook is {verb}{by}: check before acting."
    message = " ".join(warning.message.split())
    return message or _WARNING_DEFAULTS.get(warning.kind, warning.kind)


def _warnings_block(answer: Answer, today: date) -> dict[str, Any] | None:
    lines: list[str] = []
    for warning in answer.warnings:
        text = _warning_text(warning, answer, today)
        if text is None:
            continue
        line = ":warning: " + bold(clip(text, 500))
        if line not in lines:
            lines.append(line)
    return section("\n".join(lines), block_id="warnings") if lines else None


def answer_warnings(answer: Answer, today: date) -> dict[str, Any] | None:
    """The warnings that change what to do (stale, superseded), in one block."""
    return _warnings_block(answer, today)


def _meta_line(citation: Citation, facts: DocFacts | None, view: View, today: date) -> str:
    """``owner @team · updated 12 days ago`` (plus the kind and status when unusual)."""
    parts: list[str] = []
    kind = _DOC_KIND.get(citation.doc_type)
    if kind:
        parts.append(kind)
    if citation.status and citation.status != "current":
        parts.append(bold(citation.status))
    contact = facts.contact if facts is not None else None
    if citation.owner:
        parts.append(
            "owner "
            + contact_text(contact or Contact(kind="text", label=citation.owner), view.audience)
        )
    elif view.step is not None:
        pass  # ownerless is said once, in the human step's small print
    elif contact is not None:
        parts.append("no owner on record · ask " + contact_text(contact, view.audience))
    else:
        parts.append("no owner on record")
    age = age_days(citation, today)
    parts.append(f"updated {days(age)} ago" if age is not None else "updated: unknown")
    return " · ".join(parts)


def _rest_note(citation: Citation) -> str | None:
    cut = cut_note(citation)
    if cut is None:
        return None
    note = escape(clip(cut, 80))
    rest = link(citation.url, "the rest in the runbook") if safe_url(citation.url) else ""
    return f"{note} · {rest}" if rest else note


def before_line(citation: Citation) -> str | None:
    """ "Before you start: <link|Prerequisites>": the section of the runbook that says what
    must be in place before the quoted steps, linked at the indexed revision; None when
    none governs them (``Citation.before``)."""
    before = citation.before
    if before is None:
        return None
    return f"{BEFORE_YOU_START}: {link(before.url, clip(before.heading, _TITLE_MAX))}"


def _show_more(folded: int, request_id: str) -> dict[str, Any]:
    """ "Show more": the message again, in place, with the folded lines shown."""
    label = f"Show more ({plural(folded, 'line')})" if folded else "Show more"
    return actions([button(label, ids.SHOW_MORE, value=request_id)], block_id="show_more")


def best_guess_line() -> dict[str, Any]:
    """The label of an answer the answerer is not sure of: one context line."""
    return context(f"*{BEST_GUESS_LABEL}:* {escape(BEST_GUESS_ADVICE)}", block_id="best_guess")


def resolved_line(at: float) -> str:
    """``Resolved at 14:32``, in the reader's time zone (Slack's date formatting)."""
    seconds = int(at)
    utc = datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")
    when = f"<!date^{seconds}^{{date_short_pretty}} at {{time}}|{utc}>"
    return f":white_check_mark: *Resolved* {when}: the alert has cleared."


def _preface(view: View) -> list[dict[str, Any]]:
    """Lines above the answer: the alert resolved, why this runbook."""
    out: list[dict[str, Any]] = []
    if view.resolved:
        out.append(context(resolved_line(view.resolved), block_id="resolved"))
    if view.preface:
        out.append(context(view.preface, block_id=_block_id(view.preface, "preface") or "preface"))
    return out


# --------------------------------------------------------------------------- answer


def render_answer(
    answer: Answer,
    *,
    request_id: str,
    today: date,
    view: View | None = None,
    facts: Mapping[str, DocFacts] | None = None,
    browser_url: str | None = None,
) -> Message:
    """The message for ``answer`` (any tier) as ``view`` shows it; ``browser_url`` opens
    the same question in the web pages."""
    view = view or View()
    facts = facts or {}
    if answer.state != "answer" or not answer.citations:
        return render_not_answered(
            answer, request_id=request_id, today=today, view=view, browser_url=browser_url
        )
    lead = answer.citations[0]
    lead_facts = facts.get(lead.source_id)
    weak = lead_facts is not None and lead_facts.other_service is not None

    head: list[dict[str, Any]] = _preface(view)
    if view.restricted:
        note = escape(view.withheld_note or RESTRICTED)
        head.append(context(f":lock: {note} *{DO_NOT_PASTE}*", block_id="restricted"))
    if is_best_guess(answer):
        head.append(best_guess_line())
    prefix = f":grey_question: _{CLOSEST_OTHER_SERVICE}_ · " if weak else ":arrow_forward: "
    head.append(section(prefix + lead_link(lead), block_id="lead"))
    warnings = _warnings_block(answer, today)
    if warnings is not None:
        head.append(warnings)

    tail = _answer_tail(answer, view, facts, request_id, today, weak=weak, browser_url=browser_url)
    reserve = sum(map(block_chars, tail)) + 100
    out = Blocks(reserve_blocks=len(tail) + 1, reserve_chars=reserve)
    out.force(*head)
    shown, total, unoffered = _add_documents(out, answer.citations, facts, view, today, request_id)
    out.release(blocks=len(tail) + 1, chars=reserve)
    if shown < total:
        out.force(context(f"…and {plural(total - shown, 'more quoted section')} in the runbooks"))
    if unoffered:
        out.force(_show_more(0, request_id))
    out.force(*tail)
    return Message(text=notification_text(answer, weak=weak), blocks=out.blocks)


def _add_documents(
    out: Blocks,
    citations: Sequence[Citation],
    facts: Mapping[str, DocFacts],
    view: View,
    today: date,
    request_id: str = "",
) -> tuple[int, int, bool]:
    """Quotes grouped by document, as many as fit; (quotes shown, quotes in all, whether
    lines are folded with no "Show more" under them: it follows the first folded quote)."""
    shown = 0
    folded = offered = False
    for d, group in enumerate(by_runbook(citations)):
        for n, shown_quote in enumerate(group):
            citation = shown_quote.citation
            heading: list[dict[str, Any]] = []
            # the lead line links the first quote; a section quoted in pieces has one heading
            if (d or n) and shown_quote.heading:
                label = clip(shown_section(citation.section), _TITLE_MAX)
                line = lead_link(citation) if n == 0 else f"*{link(citation.url, label)}*"
                heading.append(section(line))
            elif shown_quote.gap:
                heading.append(context("…"))  # the section's text between is left out
            text, hidden = _quote_mrkdwn(citation, lead=d == 0 and n == 0, fold=not view.expanded)
            pieces = split_text(text)
            after: list[dict[str, Any]] = []
            if hidden and not offered:
                after.append(_show_more(hidden, request_id))
                offered = True
            folded = folded or bool(hidden)
            before = before_line(citation)
            if before:  # what must be in place first: above the steps
                heading.append(context(before, block_id=f"before{shown}"))
            note = _rest_note(shown_quote.noted) if shown_quote.noted else None
            if note:  # which part of the section is shown: above its first piece
                heading.append(context(note))
            doc_facts = facts.get(citation.source_id)
            if n == len(group) - 1 and doc_facts is not None and doc_facts.more_actions:
                links = " · ".join(
                    link(m.url, clip(m.label, _TITLE_MAX)) for m in doc_facts.more_actions
                )
                after.append(section(f":point_right: Other fixes in this runbook: {links}"))
            if n == len(group) - 1:
                meta = _meta_line(citation, doc_facts, view, today)
                after.append(context(meta, block_id=_block_id(meta, f"meta{shown}")))
            if out.add(*heading, *(section(p) for p in pieces), *after):
                shown += 1
                continue
            room = out.room() - sum(map(block_chars, (*heading, *after))) - 50
            if room >= _MIN_QUOTE_CHARS and out.fits(*heading, *after, section("")):
                cut = truncate(pieces[0] if pieces else "", min(room, 3000), "…see the runbook")
                out.add(*heading, section(cut), *after)
                shown += 1
            return shown, len(citations), folded and not offered
    return shown, len(citations), folded and not offered


def _answer_tail(
    answer: Answer,
    view: View,
    facts: Mapping[str, DocFacts],
    request_id: str,
    today: date,
    *,
    weak: bool,
    browser_url: str | None = None,
) -> list[dict[str, Any]]:
    lead = answer.citations[0]
    lead_facts = facts.get(lead.source_id)
    tail: list[dict[str, Any]] = []
    escalation = _escalation_block(lead, lead_facts, view)
    if escalation is not None:
        tail.append(escalation)
    if answer.suggestions:  # a best guess: the next closest runbooks, in case it is wrong
        lines = [_suggestion_line(s, view.audience, view.step is None) for s in answer.suggestions]
        body = "\n".join([f"*{escape(ALTERNATIVES)}*", *lines])
        tail.append(section(body, block_id=_block_id(body, "alternatives") or "alternatives"))
    tail.extend(human_step_blocks(view.step, view.audience, done=step_done(view)))
    if view.incident and answer.related:
        tail.append(_related_block(answer.related, today))
    note = _withheld(answer, view)
    if note:
        tail.append(context(note, block_id=_block_id(note, "withheld")))
    footer = _footer(view, answer)
    if footer:
        tail.append(context(footer, block_id=_block_id(footer, "footer")))
    tail.extend(_actions(answer, view, facts, request_id, weak=weak, browser_url=browser_url))
    return tail


def _escalation_block(lead: Citation, facts: DocFacts | None, view: View) -> dict[str, Any] | None:
    if facts is None:
        return None
    if facts.escalation and not lead.section.lower().startswith(
        (facts.escalation_section or "\0").lower()
    ):
        title = facts.escalation_section or "Escalation"
        heading = (
            link(facts.escalation_url, title) if safe_url(facts.escalation_url) else escape(title)
        )
        body = to_mrkdwn(facts.escalation, base_url=facts.escalation_url)
        return section(f":telephone_receiver: *{heading}*\n{body}", block_id="escalation")
    if view.step is None and facts.contact is not None and facts.contact.source != "owner":
        who = contact_text(facts.contact, view.audience)
        text = f":telephone_receiver: *Escalation:* no owner on record; ask {who}"
        return section(text, block_id=_block_id(text, "escalation") or "escalation")
    return None


def step_done(view: View) -> str | None:
    """What was done about the human step: paged (with the incident's link)."""
    if not view.paged_by:
        return None
    who = user_mention(view.paged_by)
    incident = link(view.incident_url, "the incident") if safe_url(view.incident_url) else ""
    by = f" by {who}" if who else ""
    return f"Paged on-call{by}" + (f": {incident}" if incident else "") + "."


def step_actions(view: View, request_id: str, runbook: str | None) -> list[dict[str, Any]]:
    """ "Page on-call" and "Escalate to …" for the human step, where there is a channel to
    act in and until they are clicked."""
    step = view.step
    if step is None or not view.offer_escalate:
        return []
    out: list[dict[str, Any]] = []
    if step.pageable and not view.paged_by:
        out.append(page_button(step, request_id, runbook))
    target = escalation_target(step)
    if target is not None and not view.escalated_by:
        out.append(escalate_button(target, request_id))
    return out


def _related_block(related: Sequence[Citation], today: date) -> dict[str, Any]:
    lines = []
    for citation in related[:10]:
        age = age_days(citation, today)
        when = f" ({days(age)} ago)" if age is not None else ""
        lines.append("• " + link(citation.url, clip(citation.title or citation.path, 150)) + when)
    more = f"\n…and {len(related) - 10} more" if len(related) > 10 else ""
    return section("*Related incidents:*\n" + "\n".join(lines) + more, block_id="related")


def _withheld(answer: Answer, view: View) -> str:
    if view.restricted:
        return ""  # said at the top
    if view.withheld_note:
        return ":lock: " + view.withheld_note
    notes = [w for w in answer.warnings if w.kind == "restricted-omitted"]
    return ":lock: " + escape(clip(notes[0].message, 300)) if notes else ""


def _footer(view: View, answer: Answer) -> str:
    parts = []
    if view.shared_by:
        who = user_mention(view.shared_by)
        if who:
            parts.append(f"Shared by {who}")
    if view.asked and view.asked.strip():
        parts.append(f"Asked: “{escape(clip(view.asked, _QUESTION_MAX))}”")
    if answer.read_as:  # typos corrected, alert names read as the title they spell
        read = ", ".join(f"“{escape(typed)}” as “{escape(as_)}”" for typed, as_ in answer.read_as)
        parts.append(f"Read {read}")
    return " · ".join(parts)


def _browser_button(url: str | None, request_id: str) -> list[dict[str, Any]]:
    """ "Open in browser": the same question in the web pages (Sign in with Slack)."""
    if not url or not safe_url(url):
        return []
    return [
        button(
            ":globe_with_meridians: Open in browser", ids.OPEN_IN_BROWSER, value=request_id, url=url
        )
    ]


def _actions(
    answer: Answer,
    view: View,
    facts: Mapping[str, DocFacts],
    request_id: str,
    *,
    weak: bool,
    browser_url: str | None = None,
) -> list[dict[str, Any]]:
    elements: list[dict[str, Any]] = []
    done: list[str] = []
    if view.feedback is None:
        elements.append(button(":+1: Helpful", ids.FEEDBACK_HELPFUL, value=request_id))
        elements.append(button(":-1: Not helpful", ids.FEEDBACK_NOT_HELPFUL, value=request_id))
    else:
        word = "helpful" if view.feedback == "helpful" else "not helpful"
        done.append(f"Feedback recorded ({word}): thanks, it helps the runbook owners.")
    if view.offer_post and not weak and answer.state == "answer" and answer.sure:
        if view.posted_by:
            done.append(
                "Posted to the channel."
                + (f" {escape(view.posted_note)}" if view.posted_note else "")
            )
        else:
            elements.append(
                button("Post to channel", ids.POST_TO_CHANNEL, value=request_id, style="primary")
            )
    contact = facts.get(answer.citations[0].source_id) if answer.citations else None
    owner = contact.contact if contact is not None else None
    if view.step is not None:
        target = escalation_target(view.step)
        if view.escalated_by and target is not None:
            who = user_mention(view.escalated_by)
            by = f" by {who}" if who else ""
            done.append(f"Escalated to {escape(target.label)}{by}.")
        title = answer.citations[0].title if answer.citations else None
        elements.extend(step_actions(view, request_id, title))
    elif view.offer_escalate and owner is not None and owner.id and owner.kind != "channel":
        if view.escalated_by:
            who = user_mention(view.escalated_by)
            done.append(f"Escalated to {escape(owner.label)}" + (f" by {who}" if who else "") + ".")
        else:
            elements.append(
                button(
                    f":rotating_light: Escalate to {owner.label}", ids.ESCALATE, value=request_id
                )
            )
    elements.extend(_browser_button(browser_url, request_id))
    out: list[dict[str, Any]] = []
    if done:
        text = " ".join(done)
        out.append(context(text, block_id=_block_id(text, "done") or "answer_done"))
    if elements:
        out.append(actions(elements, block_id="answer_actions"))
    return out


def notification_text(answer: Answer, *, weak: bool = False) -> str:
    """The top-level text (what a phone notification shows): ``Title > Section:
    `first command``` or the quote's first line."""
    if not answer.citations:
        return fallback(escape(answer.text) or NONE_COVERS)
    lead = answer.citations[0]
    title = clip(lead.title or lead.path, _TITLE_MAX)
    where = (
        title
        if not lead.section or lead.section == lead.title
        else f"{title} > {clip(shown_section(lead.section), _TITLE_MAX)}"
    )
    shown = quote_markdown(lead)
    command = first_command(shown)
    if command:
        what = "`" + clip(command, 200).replace("`", "'") + "`"
    else:
        what = clip(plain_text(_first_words(shown)), 200)
    prefix = f"{CLOSEST_OTHER_SERVICE}: " if weak else ""
    if is_best_guess(answer):
        prefix = f"{BEST_GUESS_LABEL}: {prefix}"
    stale = " (may be out of date)" if any(w.kind == "stale" for w in answer.warnings) else ""
    return fallback(escape(f"{prefix}{where}: {what}{stale}"))


_LINE_MARKS = re.compile(r"^\s*(?:[-*+]\s+|>\s?|#{1,6}\s+)*")
_ALERT_MARK = re.compile(r"^\[!(?P<kind>[A-Za-z]+)\]\s*")


def _first_words(markdown: str) -> str:
    """The quote's first line of text, without list, quote or heading marks: a table
    row as its cells, a GitHub alert as "WARNING: …" (its text from the next line when
    the marker stands alone)."""
    lines = [_LINE_MARKS.sub("", ln).strip() for ln in markdown.splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines:
        return ""
    first = lines[0]
    alert = _ALERT_MARK.match(first)
    if alert is not None:
        rest = first[alert.end() :] or (lines[1] if len(lines) > 1 else "")
        return f"{alert['kind'].upper()}: {rest}".strip()
    if TABLE_ROW.match(first):  # a table's row: its cells
        return " · ".join(table_cells(first))
    return first


# --------------------------------------------------------------------------- not answered


def render_not_answered(
    answer: Answer,
    *,
    request_id: str,
    today: date,
    view: View | None = None,
    browser_url: str | None = None,
) -> Message:
    """The "not sure" and "none" tiers: the closest runbooks, linked and with their
    owners, and one search of the runbooks repository."""
    view = view or View()
    reason = answer.reason or "no-match"
    unsure = answer.state == "unsure"
    if unsure and reason in MISSING_DETAIL:  # the command, value or steps asked for
        text = REASON_TEXT[reason]
        headline = f":grey_question: *{text}*"
    elif unsure:
        headline = f":grey_question: *{NOT_SURE}*"
        text = NOT_SURE
    elif reason == "access-denied":
        owner = bold(clip(view.access_owner, 80)) if view.access_owner else "its owners"
        headline = f":lock: *A runbook you cannot read may cover this.* Ask {owner} for access."
        text = "A runbook you cannot read may cover this; ask its owners for access."
    elif reason == "only-superseded-sources":
        headline = ":warning: *Only superseded or deprecated runbooks mention this.*"
        text = "Only superseded or deprecated runbooks mention this."
    elif reason == "unwritten":
        headline = f":memo: *{UNWRITTEN}*"
        text = UNWRITTEN
    else:
        headline = f":mag: *{NONE_COVERS}*"
        text = NONE_COVERS
    suggestions = answer.suggestions[:5]
    if suggestions and reason == "unwritten":
        headline += " Ask its owners, or write it:"
    elif suggestions:
        headline += " The closest runbooks:"
    elif reason in ("no-match", "low-confidence", *MISSING_DETAIL) and answer.search_link:
        headline += (
            " Search the runbooks repository, or ask the people below."
            if view.step is not None
            else " Search the runbooks repository, or ask the owning team."
        )
    blocks: list[dict[str, Any]] = [*_preface(view), section(headline, block_id="lead")]
    warnings = _warnings_block(answer, today)
    if warnings is not None:
        blocks.append(warnings)
    lines = [_suggestion_line(s, view.audience, view.step is None) for s in suggestions]
    for c in answer.related[:5]:  # superseded documents the answer only names
        lines.append(
            "• " + lead_link(c) + f" · {bold(c.status)}"
            if c.status != "current"
            else "• " + lead_link(c)
        )
    if lines:
        body = "\n".join(lines)
        blocks.append(section(body, block_id=_block_id(body, "closest") or "closest"))
    blocks.extend(human_step_blocks(view.step, view.audience, done=step_done(view)))
    note = _withheld(answer, view)
    if note:
        blocks.append(context(note, block_id=_block_id(note, "withheld")))
    footer = _footer(view, answer)
    if footer:
        blocks.append(context(footer, block_id=_block_id(footer, "footer")))
    elements = []
    link_url = answer.search_link if safe_url(answer.search_link) else None
    if link_url:
        elements.append(
            button(":mag: Search the runbooks", ids.OPEN_SEARCH, value=request_id, url=link_url)
        )
    elements.extend(_browser_button(browser_url, request_id))
    elements.extend(step_actions(view, request_id, suggestions[0].title if suggestions else None))
    if reason != "access-denied":  # no runbook answers this: write one from the thread
        elements.append(button(":memo: Draft a runbook", ids.DRAFT_RUNBOOK, value=request_id))
    if view.feedback is None:
        elements.append(button(":+1: Helpful", ids.FEEDBACK_HELPFUL, value=request_id))
        elements.append(button(":-1: Not helpful", ids.FEEDBACK_NOT_HELPFUL, value=request_id))
    else:
        blocks.append(
            context(
                "Feedback recorded: thanks, it helps the runbook owners.", block_id="answer_done"
            )
        )
    if elements:
        blocks.append(actions(elements, block_id="answer_actions"))
    closest = ", ".join(clip(s.title, 80) for s in suggestions[:2])
    parts = [text + (f" Closest: {closest}" if closest else "")]
    return Message(text=fallback(escape(" ".join(parts))), blocks=blocks)


def _suggestion_line(suggestion: Suggestion, audience: Audience, ownerless: bool = True) -> str:
    """``• Title (Section) · owner @team``: the title links to the best section."""
    title = clip(suggestion.title or suggestion.path, _TITLE_MAX)
    label = f"*{link(suggestion.url, title)}*" if safe_url(suggestion.url) else bold(title)
    sec = clip(suggestion.section, _TITLE_MAX)
    where = f" ({escape(sec)})" if sec and sec != title else ""
    owner = suggestion.owner
    who = f" · owner {bold(owner)}" if owner else (" · no owner on record" if ownerless else "")
    line = "• " + label + where + who
    if suggestion.pointer:  # the runbook says where the steps are: quoted, with its link
        pointer = to_mrkdwn(suggestion.pointer, base_url=suggestion.url)
        line += "\n" + "\n".join(f">{ln}" for ln in clip(pointer, 600).split("\n"))
    return line
