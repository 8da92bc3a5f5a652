"""The words of an answer every surface shares, and its plain-text rendering for the
terminal.

A confident answer below the fitted "sure" bar (``Answer.sure`` False) is a best guess:
Slack, the web pages and the terminal label it with :data:`BEST_GUESS`, and it is never
offered for posting to the channel.

The terminal shows the same order as Slack: the best-guess label, the runbook and
section first, warnings, the quotes (as written in the runbook; a section quoted in
pieces under one heading; "Before you start: Prerequisites" and its link above quoted
steps that need it), one "owner | updated" line per document, and under a best guess
the next closest runbooks (:data:`ALTERNATIVES`); for the "not sure" and "none" tiers
the closest runbooks with their owners and the search link.
"""

from __future__ import annotations

from bot.oncall import HumanStep
from bot.quote_layout import BEFORE_YOU_START, by_runbook
from core.heading_text import shown_section
from core.models import Answer, Citation, Suggestion

BEST_GUESS_LABEL = "Best guess"
BEST_GUESS_ADVICE = "check this is the right runbook before acting on it."
BEST_GUESS = f"{BEST_GUESS_LABEL}: {BEST_GUESS_ADVICE}"
#: the "not sure" tier's headline, the same in Slack and on the web pages
NOT_SURE = "Not sure any runbook answers this."
#: above the next closest runbooks a best guess names, the same on every surface
ALTERNATIVES = "Not this runbook? The next closest:"
_RULE = "-" * 72


def is_best_guess(answer: Answer) -> bool:
    """A quoted answer the answerer is not sure of: shown, labelled, never posted."""
    return answer.state == "answer" and bool(answer.citations) and not answer.sure


def _where(c: Citation) -> str:
    if not c.section or c.section == c.title:
        return c.title
    return f"{shown_section(c.section)} · {c.title}"


def _meta(c: Citation) -> str:
    age = f"{c.age_days} days ago" if c.age_days is not None else "unknown"
    kind = "" if c.doc_type == "runbook" else f"{c.doc_type} | "
    status = "" if c.status == "current" else f"{c.status} | "
    return f"  {kind}{status}owner {c.owner or 'none'} | updated {age}"


def _documents(citations: tuple[Citation, ...]) -> list[str]:
    out: list[str] = []
    for group in by_runbook(citations):
        out.append(_RULE)
        for n, shown in enumerate(group):
            c = shown.citation
            if shown.heading:
                shown_at = _where(c) if n == 0 else shown_section(c.section)
                out.append(f"[{shown_at}]  {c.path}:{c.line}")
                if c.url:
                    out.append(f"  {c.url}")
                out.append("")
            else:  # the section goes on: one quote, with "…" where text is left out
                out[-1] = "  |"
                if shown.gap:
                    out += ["  | …", "  |"]
            if c.before is not None:  # what must be in place first: above the steps
                where = c.before.url or f"{c.path}:{c.before.line}"
                out.append(f"  {BEFORE_YOU_START}: {c.before.heading}  {where}")
            out += [f"  | {ln}" for ln in c.shown_text.splitlines()]
            if c.note:
                out.append(f"  ({c.note}; the rest is in the runbook)")
            out.append("")
        out.append(_meta(group[-1].citation))
    return out


def render_text(answer: Answer) -> str:
    out: list[str] = [BEST_GUESS, ""] if is_best_guess(answer) else []
    for w in answer.warnings:
        out.append(f"WARNING ({w.kind}): {w.message}")
    if answer.warnings:
        out.append("")
    if answer.state != "answer" or not answer.citations:
        out.append(f"{answer.text} ({answer.reason})")
        if answer.suggestions:
            out.append("Closest runbooks:")
        out += _suggestion_lines(answer.suggestions)
        if answer.search_link:
            out.append(f"Search: {answer.search_link}")
        for c in answer.related:
            out += ["", "Mentioned only in:", *_documents((c,))]
        return "\n".join(out)
    out += _documents(answer.citations)[1:]  # no rule above the first document
    if answer.suggestions:  # a best guess: the next closest runbooks
        out += ["", ALTERNATIVES, *_suggestion_lines(answer.suggestions)]
    if answer.related:
        out += [_RULE, "Related incidents:"]
        out += [f"  {c.title} ({c.path})" + (f" {c.url}" if c.url else "") for c in answer.related]
    out.append(_RULE)
    out.append(f"confidence {answer.confidence:.2f} | index generation {answer.generation}")
    return "\n".join(out)


def _suggestion_lines(suggestions: tuple[Suggestion, ...]) -> list[str]:
    out = []
    for sug in suggestions:
        owner = f" | owner {sug.owner}" if sug.owner else " | no owner"
        section = shown_section(sug.section)
        where = f" ({section})" if section and section != sug.title else ""
        out.append(f"  {sug.title}{where}  [{sug.path}:{sug.line}]{owner}")
        if sug.url:
            out.append(f"    {sug.url}")
    return out


def render_human_step(step: HumanStep) -> str:
    """Who to call now, in the words Slack and the web pages use."""
    lines = [f"Who to call: {step.text()}"]
    lines += [f"  {c.label}: {c.url}" for c in step.contacts if c.url]
    if step.note:
        lines.append(f"  ({step.note})")
    return "\n".join(lines)
