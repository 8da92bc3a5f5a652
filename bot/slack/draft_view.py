"""The review modal of a runbook draft: editable title, service, owner and file path over a
preview of each section; and the messages that say what became of it."""

from __future__ import annotations

from typing import Any

from bot.drafts import Draft, Published
from bot.slack.blockkit import Message, clip, context, escape, fallback, header, link, section
from bot.slack.mrkdwn import to_mrkdwn

REVIEW_CALLBACK = "draft_runbook_review"
FIELDS = ("title", "service", "owner", "path")
_LABELS = {
    "title": "Title",
    "service": "Service",
    "owner": "Owner (a Slack user group or person)",
    "path": "File path in the runbook repository",
}
_PREVIEW_CHARS = 2_800
_SECTIONS = ("Symptoms", "Diagnosis", "Mitigation", "Escalation")


def _plain(text: str) -> dict[str, Any]:
    return {"type": "plain_text", "text": clip(text, 150) or " "}


def loading_view() -> dict[str, Any]:
    return {
        "type": "modal",
        "title": _plain("Draft a runbook"),
        "close": _plain("Cancel"),
        "blocks": [section(":hourglass_flowing_sand: Reading the thread…")],
    }


def refusal_view(reason: str) -> dict[str, Any]:
    return {
        "type": "modal",
        "title": _plain("Draft a runbook"),
        "close": _plain("Close"),
        "blocks": [section(f":no_entry_sign: {escape(reason)}")],
    }


def _input(name: str, value: str, *, optional: bool) -> dict[str, Any]:
    element: dict[str, Any] = {"type": "plain_text_input", "action_id": name}
    if value:
        element["initial_value"] = value[:150]
    return {
        "type": "input",
        "block_id": name,
        "label": _plain(_LABELS[name]),
        "optional": optional,
        "element": element,
    }


def _preview(markdown: str) -> list[dict[str, Any]]:
    """Each section of the draft, as Slack shows Markdown."""
    body = markdown.split("\n---\n", 1)[-1]
    parts = body.split("\n## ")
    blocks: list[dict[str, Any]] = []
    for part in parts[1:]:
        title, _, text = part.partition("\n")
        if title.strip() not in _SECTIONS:
            continue
        shown = to_mrkdwn(text.strip())
        if len(shown) > _PREVIEW_CHARS:
            shown = shown[:_PREVIEW_CHARS].rstrip() + "\n…"
        blocks.append(section(f"*{escape(title.strip())}*\n{shown}"))
    return blocks


def review_view(
    draft: Draft,
    path: str,
    draft_id: str,
    *,
    publish_to: str,
    problems: tuple[str, ...] = (),
    left_out: int = 0,
    withheld: int = 0,
) -> dict[str, Any]:
    """The modal: the fields (editable), where it will go, and the preview."""
    s = draft.subject
    blocks: list[dict[str, Any]] = [
        _input("title", s.title, optional=False),
        _input("service", s.service or "", optional=True),
        _input("owner", s.owner or "", optional=True),
        _input("path", path, optional=False),
    ]
    notes = [f"Confirming {escape(publish_to)}. Nothing is created before that."]
    if s.access:
        notes.append(f"Readable by: {escape(', '.join(s.access))} (this channel's audience).")
    if left_out:
        notes.append(
            f"Left out: {left_out} message{'s' if left_out != 1 else ''} "
            "(deleted, the bot's own answers, or another organization's)."
        )
    if withheld:
        notes.append(
            f"Left out: {withheld} line{'s' if withheld != 1 else ''} quoting runbooks "
            "not everyone who will read this may read."
        )
    blocks.append(context(*notes, block_id="draft_notes"))
    if problems:
        shown = "\n".join(f"• {escape(p)}" for p in problems[:5])
        blocks.append(section(f":warning: *Fix before confirming:*\n{shown}"))
    blocks.append(header("Preview"))
    blocks.extend(_preview(draft.markdown)[:40])
    return {
        "type": "modal",
        "callback_id": REVIEW_CALLBACK,
        "private_metadata": draft_id,
        "title": _plain("Draft a runbook"),
        "submit": _plain("Open pull request" if publish_to.startswith("opens") else "Send file"),
        "close": _plain("Cancel"),
        "blocks": blocks,
    }


def submitted_fields(view: dict[str, Any]) -> dict[str, str]:
    values = (view.get("state") or {}).get("values") or {}
    out = {}
    for name in FIELDS:
        value = ((values.get(name) or {}).get(name) or {}).get("value")
        out[name] = str(value or "").strip()
    return out


def published_message(title: str, published: Published) -> Message:
    if published.kind == "pull_request":
        where = link(published.url, f"pull request #{published.number}") if published.url else ""
        text = (
            f":memo: Opened {where} with the runbook draft *{escape(title)}* "
            f"at `{escape(published.path)}`."
        )
    else:
        offer = f" It is also {link(published.url, 'on the web')}." if published.url else ""
        text = (
            f":memo: The runbook draft *{escape(title)}* is attached as a file: add it to the "
            f"runbook repository at `{escape(published.path)}`.{offer}"
        )
    return Message(text=fallback(f"Runbook draft: {escape(title)}"), blocks=[section(text)])


def failed_message(title: str, reason: str) -> Message:
    text = f":warning: The runbook draft *{escape(title)}* was not published: {escape(reason)}"
    return Message(
        text=fallback(f"Runbook draft not published: {escape(title)}"), blocks=[section(text)]
    )
