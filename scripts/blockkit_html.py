"""Block Kit to HTML: a Slack message payload as a web page that looks like Slack.

Used by ``scripts/slack_screenshots.py`` to turn the payloads the bot really posted (to
the fake Slack Web API) into screenshots. It renders what runbook-bot sends: section,
context, header, divider, actions and (in a modal) input blocks; mrkdwn with bold,
italic, strike, code, code blocks, quotes, links, user, user-group and channel mentions,
and the emoji shortcodes the bot uses.

    python scripts/blockkit_html.py payload.json > message.html
"""

from __future__ import annotations

import html
import json
import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any

EMOJI = {
    "arrow_forward": "▶️",
    "warning": "⚠️",
    "lock": "🔒",
    "mag": "🔍",
    "grey_question": "❔",
    "telephone_receiver": "📞",
    "point_right": "👉",
    "rotating_light": "🚨",
    "+1": "👍",
    "-1": "👎",
    "repeat": "🔁",
    "no_entry": "⛔",
    "information_source": "ℹ️",
    "bulb": "💡",
    "exclamation": "❗",
    "fire": "🔥",
    "white_check_mark": "✅",
    "leftwards_arrow_with_hook": "↩️",
    "spiral_note_pad": "🗒️",
    "memo": "📝",
    "bust_in_silhouette": "👤",
    "link": "🔗",
    "open_book": "📖",
    "pager": "📟",
    "checkered_flag": "🏁",
    "hourglass_flowing_sand": "⏳",
    "no_entry_sign": "🚫",
    "notebook": "📓",
    "globe_with_meridians": "🌐",
}

CSS = """
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: #1d1c1d;
  font: 15px/1.46668 Lato, "Noto Color Emoji", "DejaVu Sans", sans-serif; }
.pane { width: 680px; padding: 12px 0 16px; }
.pane-title { font-weight: 900; font-size: 15px; padding: 6px 20px 10px;
  border-bottom: 1px solid #e8e8e8; margin-bottom: 8px; }
.pane-title .channel { color: #616061; font-weight: 400; margin-left: 6px; }
.msg { display: flex; padding: 8px 20px; }
.msg .avatar { width: 36px; height: 36px; border-radius: 6px; flex: none; margin-right: 8px;
  color: #fff; font-weight: 900; font-size: 18px; display: flex; align-items: center;
  justify-content: center; }
.msg .body { flex: 1; min-width: 0; }
.who { font-weight: 900; }
.badge { font-size: 10px; font-weight: 700; color: #616061; background: #e8e8e8;
  border-radius: 2px; padding: 1px 3px; margin-left: 4px; vertical-align: 2px; }
.time { color: #616061; font-size: 12px; margin-left: 6px; }
.only-you { color: #616061; font-size: 13px; margin-bottom: 2px; }
.replies { color: #616061; font-size: 13px; padding: 4px 20px; display: flex;
  align-items: center; }
.replies::after { content: ""; flex: 1; border-top: 1px solid #e8e8e8; margin-left: 8px; }
.block { margin: 4px 0; }
.section { white-space: pre-wrap; word-wrap: break-word; }
.context { color: #616061; font-size: 13px; white-space: pre-wrap; }
.context > span + span::before { content: "  "; }
.header { font-weight: 900; font-size: 18px; }
.divider { border-top: 1px solid #ddd; margin: 8px 0; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 8px; }
.button { border: 1px solid #bbb; border-radius: 4px; padding: 3px 12px; font-weight: 700;
  font-size: 13px; background: #fff; line-height: 22px; }
.button.primary { background: #007a5a; border-color: #007a5a; color: #fff; }
a { color: #1264a3; text-decoration: none; }
code { font: 12px Monaco, "DejaVu Sans Mono", monospace; color: #e01e5a; background: #f6f6f6;
  border: 1px solid #e1e1e1; border-radius: 3px; padding: 1px 3px; }
pre { font: 12px/1.5 Monaco, "DejaVu Sans Mono", monospace; background: #f8f8f8;
  border: 1px solid #e1e1e1; border-radius: 4px; padding: 8px; margin: 4px 0;
  white-space: pre-wrap; word-break: break-all; }
blockquote { margin: 0; padding-left: 12px; border-left: 4px solid #ddd; }
.mention { color: #1264a3; background: #e8f5fa; border-radius: 3px; padding: 0 2px; }
.attachment { border-left: 4px solid #e01e5a; padding: 2px 0 2px 12px; margin-top: 4px; }
.attachment .title { font-weight: 700; }
.modal { margin: 12px 20px; border: 1px solid #ddd; border-radius: 8px;
  box-shadow: 0 4px 12px rgba(0,0,0,.12); }
.modal-title { font-weight: 900; font-size: 20px; padding: 16px 20px;
  border-bottom: 1px solid #e8e8e8; }
.modal-body { padding: 8px 20px; }
.modal-foot { display: flex; justify-content: flex-end; gap: 8px; padding: 12px 20px;
  border-top: 1px solid #e8e8e8; }
.input { margin: 10px 0; }
.input .label { font-weight: 700; margin-bottom: 4px; }
.input .field { border: 1px solid #bbb; border-radius: 4px; padding: 6px 10px;
  min-height: 34px; }
"""

_CODE_BLOCK = re.compile(r"```\n?(.*?)\n?```", re.S)
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"<([^<>|]+)(?:\|([^<>]*))?>")
_BOLD = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_ITALIC = re.compile(r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")
_STRIKE = re.compile(r"(?<![\w~])~(?=\S)([^~\n]+?)(?<=\S)~(?![\w~])")
_EMOJI = re.compile(r":([a-z0-9_+-]+):")


def _emoji(text: str) -> str:
    return _EMOJI.sub(lambda m: EMOJI.get(m.group(1), m.group(0)), text)


def _link(m: re.Match[str]) -> str:
    target, label = m.group(1), m.group(2)
    if target.startswith("@"):
        return f'<span class="mention">@{html.escape(label or target[1:].lower())}</span>'
    if target.startswith("!subteam^"):
        return f'<span class="mention">{label or "@group"}</span>'
    if target.startswith("#"):
        name = label or target[1:].lower()
        return f'<span class="mention">#{name}</span>'
    if target.startswith("!date^"):
        return html.escape(label or "")  # Slack shows the date in the reader's time zone
    if target.startswith("!"):
        return f'<span class="mention">@{target[1:]}</span>'
    return f'<a href="{target}">{_emoji(label) if label is not None else target}</a>'


def _inline(text: str) -> str:
    """One stretch of mrkdwn outside code blocks (entities are already escaped)."""
    spans: list[str] = []

    def keep(fragment: str) -> str:
        spans.append(fragment)
        return f"\x00{len(spans) - 1}\x00"

    text = _CODE_SPAN.sub(lambda m: keep(f"<code>{m.group(1)}</code>"), text)
    text = _LINK.sub(lambda m: keep(_link(m)), text)
    text = _BOLD.sub(r"<b>\1</b>", text)
    text = _ITALIC.sub(r"<i>\1</i>", text)
    text = _STRIKE.sub(r"<s>\1</s>", text)
    text = _emoji(text)
    lines = text.split("\n")
    out: list[str] = []
    quote: list[str] = []
    for line in lines:
        if line.startswith("&gt; ") or line == "&gt;" or line.startswith("> "):
            quote.append(re.sub(r"^(&gt;|>) ?", "", line))
            continue
        if quote:
            out.append("<blockquote>" + "\n".join(quote) + "</blockquote>")
            quote = []
        out.append(line)
    if quote:
        out.append("<blockquote>" + "\n".join(quote) + "</blockquote>")
    text = "\n".join(out)
    return re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], text)


def mrkdwn(text: str) -> str:
    """Slack mrkdwn as HTML."""
    out: list[str] = []
    pos = 0
    for m in _CODE_BLOCK.finditer(text):
        out.append(_inline(text[pos : m.start()].rstrip("\n")))
        out.append(f"<pre>{m.group(1)}</pre>")
        pos = m.end()
        if text[pos : pos + 1] == "\n":
            pos += 1
    out.append(_inline(text[pos:]))
    return "".join(out)


def _text(obj: Mapping[str, Any]) -> str:
    value = str(obj.get("text", ""))
    return mrkdwn(value) if obj.get("type") == "mrkdwn" else _emoji(html.escape(value))


def block(b: Mapping[str, Any]) -> str:
    kind = b.get("type")
    if kind == "section":
        return f'<div class="block section">{_text(b["text"])}</div>'
    if kind == "context":
        parts = "".join(f"<span>{_text(e)}</span>" for e in b.get("elements", []))
        return f'<div class="block context">{parts}</div>'
    if kind == "header":
        return f'<div class="block header">{_text(b["text"])}</div>'
    if kind == "divider":
        return '<div class="divider"></div>'
    if kind == "actions":
        buttons = []
        for e in b.get("elements", []):
            style = " primary" if e.get("style") == "primary" else ""
            buttons.append(f'<span class="button{style}">{_text(e["text"])}</span>')
        return f'<div class="block actions">{"".join(buttons)}</div>'
    if kind == "input":
        element = b.get("element") or {}
        value = html.escape(str(element.get("initial_value", "")))
        label = _text(b.get("label") or {})
        return (
            f'<div class="block input"><div class="label">{label}</div>'
            f'<div class="field">{value}</div></div>'
        )
    return f'<div class="block">[{html.escape(str(kind))}]</div>'


def modal(view: Mapping[str, Any]) -> str:
    """A modal: its title, blocks and the Cancel and submit buttons."""
    title = _text(view.get("title") or {})
    body = "".join(block(b) for b in view.get("blocks") or [])
    close = _text(view.get("close") or {"type": "plain_text", "text": "Cancel"})
    submit = _text(view["submit"]) if view.get("submit") else ""
    buttons = f'<span class="button">{close}</span>'
    if submit:
        buttons += f'<span class="button primary">{submit}</span>'
    return (
        f'<div class="modal"><div class="modal-title">{title}</div>'
        f'<div class="modal-body">{body}</div><div class="modal-foot">{buttons}</div></div>'
    )


def message(
    m: Mapping[str, Any],
    *,
    author: str = "runbook",
    app: bool = True,
    color: str = "#1d3557",
    time: str = "3:07 AM",
    only_you: bool = False,
) -> str:
    """One message: avatar, name, time, its blocks (or its text and attachments)."""
    blocks = m.get("blocks") or []
    if blocks:
        body = "".join(block(b) for b in blocks)
    else:
        body = f'<div class="block section">{mrkdwn(str(m.get("text", "")))}</div>'
    for att in m.get("attachments") or []:
        # as Slack delivers it: entities escaped, links as <url|label>
        title = f'<div class="title">{mrkdwn(str(att.get("title", "")))}</div>'
        text = f'<div class="section">{mrkdwn(str(att.get("text", "")))}</div>'
        body += f'<div class="attachment">{title}{text}</div>'
    badge = '<span class="badge">APP</span>' if app else ""
    note = '<div class="only-you">👁 Only visible to you</div>' if only_you else ""
    return (
        f'<div class="msg"><div class="avatar" style="background:{color}">'
        f'{html.escape(author[:1].upper())}</div><div class="body">{note}'
        f'<span class="who">{html.escape(author)}</span>{badge}'
        f'<span class="time">{time}</span>{body}</div></div>'
    )


def page(scene: Mapping[str, Any]) -> str:
    """A scene: a pane title, the messages above the bot's, and the bot's message (or a
    modal the bot opened)."""
    parts: list[str] = []
    title = html.escape(str(scene.get("pane", "")))
    channel = html.escape(str(scene.get("channel", "")))
    parts.append(f'<div class="pane-title">{title}<span class="channel">{channel}</span></div>')
    above: Sequence[Mapping[str, Any]] = scene.get("above") or []
    for i, m in enumerate(above):
        parts.append(
            message(
                m,
                author=str(m.get("author", "someone")),
                app=bool(m.get("app")),
                color=str(m.get("color", "#4a154b")),
                time=str(m.get("time", "3:06 AM")),
            )
        )
        if i == 0 and scene.get("thread"):
            n = len(above)
            parts.append(f'<div class="replies">{n} {"reply" if n == 1 else "replies"}</div>')
    if scene.get("modal"):
        parts.append(modal(scene["modal"]))
    else:
        parts.append(message(scene["message"], only_you=bool(scene.get("ephemeral"))))
    return (
        '<!doctype html><html><head><meta charset="utf-8"><style>'
        + CSS
        + '</style></head><body><div class="pane">'
        + "".join(parts)
        + "</div></body></html>"
    )


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        sys.stdout.write(page(json.load(f)))
