"""Runbook Markdown as Slack shows it: a display conversion to escaped mrkdwn.

Slack's mrkdwn is not Markdown: ``**x**``, ``#### Heading``, ``[t](u)`` and ``- item``
show up raw. :func:`to_mrkdwn` converts what runbooks use:

* ``**x**`` / ``__x__`` -> ``*x*``, ``*x*`` -> ``_x_``, ``~~x~~`` -> ``~x~``;
* headings (``## x``, or ``x`` underlined with ``===`` / ``---``) -> bold lines;
  ``- item`` -> ``• item`` (nested ``◦``), numbered steps stay; a task list's
  ``- [ ] step`` / ``- [x] step`` -> ``☐ step`` / ``☑ step``;
* a hard-wrapped paragraph or list item -> one line (Slack wraps it to the pane);
* ``[t](u)`` and ``![t](u)`` -> ``<u|t>`` (relative links resolved against the quoted
  file's URL), bare (balanced parentheses kept) and ``<…>`` URLs -> links; reference
  links (``[t][r]``, ``[t]``) too when the quote holds their ``[r]: u`` line, which is
  dropped, or when an answer's quote carries the definition from the rest of its runbook
  (``Citation.links``, applied by :func:`bot.quote_layout.quote_markdown`), and shown as
  their text when neither does; a link or emphasis wrapped over two lines is one, and
  so is emphasis around code or a link (``**Note the `date` field.**``); a link's text
  may hold brackets (``[\\[Daily\\]Job](u)``), and one with no target shows its text; a
  target whose text lost its ``[`` (``engineers](../index.md)``) shows the words alone;
* code whose backtick runs differ (``` ```perNodeConfig`` ```) is code, as its author meant;
  a stray run of three backticks opens no block;
* ``> **WARNING:** …`` and ``> [!WARNING]`` -> one visible ``:warning: *WARNING:* …`` line;
  any other quote is converted whole and its prose lines quoted (``> …``), its fenced code
  shown as code;
* fenced code (nested in list items too) -> an un-indented ``` block without the language
  tag; so is indented code (CommonMark's: four spaces past the margin, or past a list
  item's text, after a blank line; wrapped lines of a paragraph or item are no code).
  Where code is comes from CommonMark's block structure (:mod:`core.code_blocks`), so a
  fence left open in a list item ends with the item, as the code host shows it;
  tables -> aligned columns in a code block, or one line per row when too wide;
* HTML comments are dropped, ``<br>`` is a line break; the HTML GitHub renders in
  Markdown shows as what it stands for: ``<a href>`` a link, ``<img>`` its alt text
  linked, ``<summary>`` (of a collapsed ``<details>`` block) a bold label, and block tags
  (``<details>``, ``<p align="center">``, ``<div>``) leave their text.

Commands and code stay byte for byte (only ``&``, ``<`` and ``>`` are escaped, which
Slack shows as the characters themselves). The answer contract keeps the verbatim
Markdown; this is for display only.

:func:`first_command` (a notification's, a minimal answer's) and :func:`command_block`
(an alert card's first commands) read the same code blocks, fenced or indented: the
first whose first line is a command, not prose (an alert's message shown as code).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from bot.quote_links import resolve_link
from bot.slack.blockkit import FENCE, escape, safe_url
from core.code_blocks import CodeBlock, code_blocks
from core.fences import fence_open
from core.github_html import HTML_BREAK, HTML_INLINE, html_as_markdown, without_comments
from core.heading_text import without_anchor
from core.link_references import (
    CODE_SPAN,
    inline_references,
    sub_references,
)
from core.markdown import TABLE_ROW, TABLE_SEPARATOR, TASK_BOX, task_box
from core.site_markdown import alert_marker
from core.wiki_links import as_words

TABLE_WIDTH = 60  # wider tables are shown one row per line

# where code is: CommonMark's block structure (a list item's text, a paragraph's wrapped
# lines) decides it, not a line's indent alone (core.code_blocks)
_MAY_HOLD_CODE = re.compile(r"^(?: {4}|[ ]{0,3}\t)|```|~~~", re.MULTILINE)
_CODE_MARK = "\ue002"  # a private-use character no runbook holds
# the line under a setext heading's text: === (H1) or --- (H2)
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(={3,}|-{3,})[ \t]*$")
# three backticks that are no fence: Slack would open a code block at them
_BROKEN_FENCE = "`\u200b``"
# the one line that stands for a code block while the rest is converted
_CODE_SLOT = re.compile(r"^[ \t]*" + _CODE_MARK + r"(\d+)$")
_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_BULLET = re.compile(r"^(?P<indent>[ \t]*)[-*+][ \t]+(?P<rest>.*)$")
_NUMBERED = re.compile(r"^(?P<indent>[ \t]*)(?P<n>\d{1,3})[.)][ \t]+(?P<rest>.*)$")
# a task list's box (GitHub, GitLab): "- [ ] Apply the change", "- [x] Announce it"
_QUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?(?P<rest>.*)$")
# ... nested in a list item: indented as the item's text is
_NESTED_QUOTE = re.compile(r"^(?P<indent>[ \t]{4,8})>[ \t]?(?P<rest>.*)$")
_LIST_ITEM = re.compile(r"^[ \t]*(?:\d{1,3}[.)]|[-*+])[ \t]")
_RULE = re.compile(r"^[ \t]{0,3}([-*_])([ \t]*\1){2,}[ \t]*$")
_ALERT_BOLD = re.compile(
    r"^(?:\*\*|__)(?P<kind>warning|caution|danger|important|note|tip|info)"
    r"(?P<colon>:?)(?:\*\*|__)(?P<colon2>:?)[ \t]*(?P<rest>.*)$",
    re.I,
)
_ALERT_EMOJI = {
    "warning": ":warning:",
    "caution": ":warning:",
    "danger": ":no_entry:",
    "important": ":exclamation:",
    "note": ":information_source:",
    "tip": ":bulb:",
    "info": ":information_source:",
}

# inline: code spans first, then links and URLs, then emphasis on the plain text
# a link's text may hold escaped or balanced brackets ("[\\[Daily\\]Job](…)", "[[Gprd]
# Route …](…)"); its target may be empty ("[the query]()": the text alone), and a line
# may end between the target and its parenthesis, as CommonMark allows ("(url\n)."); the
# target may hold balanced parentheses ("…/jj134256(v=ws.11)")
_LABELLED = (
    r"(?P<image>!?)\[(?P<label>(?:\\.|\[[^\[\]\n]*\]|[^\[\]\n])*)\]"
    r"\(\s*<?(?P<url>(?:[^()\s>]|\((?:[^()\s>]|\([^()\s>]*\))*\)|\()*)>?"
    r"(?:\s+[\"'(][^)\n]*)?[ \t]*\n?[ \t]*\)"
)
_LINKISH = re.compile(
    _LABELLED + r"|<(?P<auto>https?://[^>\s]+)>"
    # a bare URL may hold balanced parentheses (a PromQL graph link's "count(…)"), and
    # does not end on punctuation or on the parenthesis of the prose around it
    r"|(?P<bare>https?://(?:[^\s<>()\[\]`\ue000]|\([^\s<>()\[\]`\ue000]*\))*"
    r"(?:[^\s<>()\[\]`\ue000.,;:!?'\"]|\([^\s<>()\[\]`\ue000]*\)))"
)
# a site generator's template: a link whose target it builds ("[jumpbox]({{ site.baseurl }}{%
# link _docs/ops/bosh.md %})") shows as its text, a tag ("{% asset x.png %}") as nothing
# (a tag's remnant too: "[text]((#anchor %})")
_TEMPLATED_LINK = re.compile(
    r"!?\[(?P<text>[^\]\n]*)\]\(\(?(?P<target>[^()\n]*(?:\{[{%]|[%}]\})[^()\n]*)\)"
)
_OPEN_TARGET = re.compile(r"\]\(<?https?://[^\s()<>]*/$")
# ... and a Hugo shortcode left in the text ("{{% whatsnext-heading %}}", "{{< param x >}}"),
# whole: without it, the tag's pattern would leave its outer braces behind
_TEMPLATE_TAG = re.compile(r"[ \t]?(?:\{\{[<%]-?.*?-?[>%]\}\}|\{%-?.*?-?%\})")
_BOLD_ITALIC = re.compile(r"(\*\*\*|___)(?=\S)(.+?)(?<=\S)\1")
_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_ITALIC = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")


def _nested_quote(lines: list[str], i: int) -> bool:
    """Does line ``i`` open a quote inside a list item: indented four to eight, after the
    item or its indented text (a callout a site generator put under a step)?"""
    m = _NESTED_QUOTE.match(lines[i])
    if m is None:
        return False
    above = next((ln for ln in reversed(lines[:i]) if ln.strip()), "")
    width = len(m["indent"].expandtabs(4))
    indented = len(above) - len(above.lstrip()) >= width and not _QUOTE.match(above)
    return bool(_LIST_ITEM.match(above)) or indented


def to_mrkdwn(markdown: str, *, base_url: str | None = None) -> str:
    """``markdown`` as escaped Slack mrkdwn; ``base_url`` resolves relative links."""
    # a lone carriage return ends a line too, as CommonMark (and the parser) reads it
    text, code = _set_aside_code(markdown.replace("\r\n", "\n").replace("\r", "\n"))
    lines = inline_references(without_comments(text)).split("\n")
    out: list[str] = []
    joinable = False  # the last line out is prose a soft-wrapped line continues
    source = ""  # that prose as written: a link or emphasis may span its line breaks
    number: int | None = None  # the number shown for it, when it is a numbered step
    steps = _Steps()
    i = 0
    while i < len(lines):
        line = lines[i]
        slot = _CODE_SLOT.match(line)
        if slot is not None:
            steps.number(line)  # at the margin, a fenced block ends the list above
            _code(code[int(slot[1])], out)
            joinable = False
            i += 1
            continue
        headed = i + 1 < len(lines) and bool(TABLE_SEPARATOR.match(lines[i + 1]))
        if TABLE_ROW.match(line) and (headed or len(table_cells(line)) > 1):
            # a table; or its rows without their header (a row quoted alone): one line each
            steps.number(line)
            rows = [line]
            i += 2 if headed else 1
            while i < len(lines) and TABLE_ROW.match(lines[i]):
                rows.append(lines[i])
                i += 1
            if headed:
                out.extend(_table(rows, base_url))
            else:
                out.extend(["", *(_row_line(table_cells(r), (), base_url) for r in rows), ""])
            joinable = False
            continue
        nested = _nested_quote(lines, i)
        if _QUOTE.match(line) or nested:
            steps.number(line)
            quoted = []
            pattern = _NESTED_QUOTE if nested else _QUOTE
            while i < len(lines) and (m := pattern.match(lines[i])) is not None:
                quoted.append(m["rest"])
                i += 1
            out.extend(_blockquote(quoted, base_url))
            joinable = False
            continue
        if (
            not joinable
            and _continues(line)
            and i + 1 < len(lines)
            and _SETEXT_UNDERLINE.match(lines[i + 1])
        ):
            # a setext heading: the line underlined with === or ---
            steps.number(line)
            out.append(_line("## " + line.strip(), base_url))
            i += 2
            continue
        opened = joinable and source.rstrip().endswith("](")
        if joinable and (_continues(line) or (opened and bool(line.strip()))):
            # Markdown joins a hard-wrapped paragraph into one; Slack would show the breaks.
            # Converted again as a whole: "[Platform Engineering\nteam](…)" is one link.
            # a link's target wrapped at a slash ("](https://host/channels/\n  name)"), or
            # on the line after its parenthesis ("[tester](\n<https://…>)"), continues
            # without the break: the URL was never meant to hold a space
            gap = "" if opened or _OPEN_TARGET.search(source.rstrip()) else " "
            source = source.rstrip() + gap + line.strip()
            out[-1] = _line(source, base_url, number)
            i += 1
            continue
        number = steps.number(line)
        converted = _line(line, base_url, number)
        out.append(converted)
        joinable = bool(converted.strip()) and not _HEADING.match(line) and not _RULE.match(line)
        source = line
        i += 1
    return _squeeze("\n".join(out)).strip("\n")


class _Steps:
    """The numbers Markdown shows for an ordered list: its first item's, then one more
    per item, however they are written ("1." on every step is common). A paragraph,
    heading, fence, quote or table at the margin ends the lists."""

    def __init__(self) -> None:
        self._levels: dict[int, int] = {}  # level -> the number shown last

    def number(self, line: str) -> int | None:
        numbered = _NUMBERED.match(line)
        if numbered is None:
            if line.strip() and not line[:1].isspace() and not _BULLET.match(line):
                self._levels.clear()  # anything else at the margin ends the lists
            return None
        level = _level(numbered["indent"])
        for deeper in [k for k in self._levels if k > level]:
            del self._levels[deeper]
        last = self._levels.get(level)
        shown = last + 1 if last is not None else int(numbered["n"])
        self._levels[level] = shown
        return shown


def _continues(line: str) -> bool:
    """A line that continues the paragraph or list item above it (a soft line break)."""
    return bool(line.strip()) and not (
        _HEADING.match(line)
        or _BULLET.match(line)
        or _NUMBERED.match(line)
        or _RULE.match(line)
        or TABLE_ROW.match(line)
        or line.endswith("  ")  # a hard line break
        or line.strip().startswith("<")
    )


def _code(block: CodeBlock, out: list[str]) -> None:
    """Emit a code block as a ``` block of its own, un-indented, escaped."""
    content = block.text.replace(FENCE, _BROKEN_FENCE)
    if out and out[-1].strip():
        out.append("")  # Slack shows a code block right after text on the same line
    out.append(f"{FENCE}\n{escape(content)}\n{FENCE}" if block.text else f"{FENCE} {FENCE}")


def _set_aside_code(markdown: str) -> tuple[str, list[CodeBlock]]:
    """``markdown`` with each code block outside a quote, fenced or indented, as one line
    (indented as the block's first, :data:`_CODE_SLOT`), and those blocks
    (:func:`core.code_blocks.code_blocks`). A quote's own code is set aside when the quote
    is converted."""
    if not _MAY_HOLD_CODE.search(markdown):
        return markdown, []
    lines = markdown.split("\n")
    blocks = list(code_blocks(markdown))
    for n, block in reversed(list(enumerate(blocks))):
        first = lines[block.start]
        lead = first[: len(first) - len(first.lstrip())]
        lines[block.start : block.end] = [f"{lead}{_CODE_MARK}{n}"]
    return "\n".join(lines), blocks


def _blockquote(lines: list[str], base_url: str | None) -> list[str]:
    first = lines[0].strip() if lines else ""
    bold = _ALERT_BOLD.match(first)
    alert = (bold["kind"].lower(), bold["rest"]) if bold else alert_marker(first)
    if alert is None:
        return _quoted(lines, base_url)
    kind, said = alert
    label = f"{_ALERT_EMOJI[kind]} *{kind.upper()}:*"
    # its first paragraph on the label's line; what follows a fence or a list (a
    # command to run, steps) is quoted as Markdown below it, code byte for byte
    cut = next(
        (i for i, ln in enumerate(lines[1:], 1) if _starts_block(ln)),
        len(lines),
    )
    rest = [said, *lines[1:cut]]
    body = " ".join(" ".join(ln.split()) for ln in rest if ln.strip())
    tail = lines[cut:]
    while tail and not tail[0].strip():
        tail = tail[1:]
    more = _quoted(tail, base_url) if tail else []
    return ["", f"{label} {_inline(body, base_url)}".rstrip(), *more, ""]


def _starts_block(line: str) -> bool:
    """A blank line, a fence or a list item: the end of a quote's first paragraph."""
    return not line.strip() or bool(
        fence_open(line) or _BULLET.match(line) or _NUMBERED.match(line)
    )


def _quoted(lines: list[str], base_url: str | None) -> list[str]:
    """The quote's own Markdown, converted as a whole (a wrapped line or link is one, a
    fenced block stays code, byte for byte); its prose lines quoted, its code not: a
    command is shown as it is run."""
    out: list[str] = []
    code = False
    for ln in to_mrkdwn("\n".join(lines), base_url=base_url).split("\n"):
        if ln.startswith(FENCE):
            code = not code
            out.append(ln)
        else:
            # a blank line between quoted ones: Slack shows a lone ">" as it is
            out.append(ln if code else ("> " + ln if ln.strip() else ""))
    return out


def _line(line: str, base_url: str | None, number: int | None = None) -> str:
    if not line.strip():
        return ""
    if _RULE.match(line):
        return ""
    heading = _HEADING.match(line)
    if heading is not None:
        title = _plain_emphasis(without_anchor(heading[2]))
        return f"*{_inline(title, base_url).replace('*', '')}*" if title else ""
    bullet = _BULLET.match(line)
    if bullet is not None:
        level = _level(bullet["indent"])
        box, text = _item(bullet["rest"], base_url)
        mark = box or ("•" if level == 0 else "◦")  # a task's box is the item's mark
        return f"{'    ' * level}{mark} {text}"
    numbered = _NUMBERED.match(line)
    if numbered is not None:
        level = _level(numbered["indent"])
        shown = number if number is not None else numbered["n"]
        box, text = _item(numbered["rest"], base_url)
        return f"{'    ' * level}{shown}. {box + ' ' if box else ''}{text}"
    lead = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip(" "))
    indent = "    " * min(_level(" " * lead), 3) if lead >= 2 else ""
    return indent + _inline(line.strip(), base_url)


def _item(rest: str, base_url: str | None) -> tuple[str | None, str]:
    """A list item's task box (``☐``, ``☑``; None when it is no task) and its text."""
    task = TASK_BOX.match(rest)
    if task is None:
        return None, _inline(rest, base_url)
    return task_box(task), _inline(rest[task.end() :], base_url)


def _level(indent: str) -> int:
    return min(len(indent.expandtabs(4)) // 2, 3)


def _plain_emphasis(text: str) -> str:
    return _BOLD.sub(r"\2", text)


def _squeeze(text: str) -> str:
    """At most one empty line in a row outside code blocks."""
    out: list[str] = []
    inside = False
    for line in text.split("\n"):
        if not inside and not line.strip() and out and not out[-1].strip():
            continue
        out.append(line)
        if line.count(FENCE) % 2:
            inside = not inside
    return "\n".join(out)


# --------------------------------------------------------------------------- inline


# a file's page on a code host: GitHub and GitLab (/blob/, /-/blob/), Gitea and Bitbucket
# (/src/), raw files
_ESCAPED = re.compile(r"\\([\[\]\\`*_])")  # "\\[" in a link's text shows as "["
_SLOT_OPEN, _SLOT_CLOSE = "\ue000", "\ue001"  # private-use characters no runbook holds
_BREAK = "\ue003"  # a <br> while emphasis is converted: the emphasis may run across it


def _line_breaks(text: str) -> str:
    """Each ``<br>`` (``_BREAK``) as a line break. Slack's bold ends at a line's end, so a
    bold run across one ("**Failed to delete:<br>vhds: there is a lease.**") is closed
    before it and opened again after it."""
    out: list[str] = []
    bold = False
    for ch in text:
        if ch == "*":
            bold = not bold
        out.append(("*\n*" if bold else "\n") if ch == _BREAK else ch)
    return "".join(out)


_SLOT = re.compile(_SLOT_OPEN + r"(\d+)" + _SLOT_CLOSE)
# code whose backtick runs differ ("```perNodeConfig``"), once the matched spans are set
# aside: code all the same, as its author meant it
_LOOSE_CODE = re.compile(r"(?<!`)(`+)([^`\n]*?[^`\s][^`\n]*?)(`+)(?!`)")
# a run of three or more left over would open a block in Slack: it shows as backticks
_LOOSE_FENCE = re.compile(r"`{3,}")
# a link's target whose text lost its "[" ("notify the engineers](../index.md#on-call)"):
# the words stay, the target goes, once the links are set aside
_ORPHAN_TARGET = re.compile(r"(?<=\S)\]\((?:[^()\s]|\([^()\s]*\))*\)")


def _inline(text: str, base_url: str | None) -> str:
    """One line of Markdown as escaped mrkdwn: code spans kept, links built, emphasis
    converted. Code spans and links are set aside first, so that emphasis around them
    ("**Note the `date` field.**") and code in a link's text ("[`x` logs](…)") convert
    whole."""
    text = HTML_BREAK.sub(_BREAK, HTML_INLINE.sub("", text))
    kept: list[str] = []  # what each slot stands for, as mrkdwn
    plain: list[str] = []  # ... and as plain text (a code span inside a link's text)

    def slot(shown: str, as_text: str) -> str:
        kept.append(shown)
        plain.append(as_text)
        return f"{_SLOT_OPEN}{len(kept) - 1}{_SLOT_CLOSE}"

    def code(m: re.Match[str]) -> str:
        inner = m.group(2).strip() if m.group(2).strip() else m.group(2)
        return slot("`" + escape(inner.replace("`", "'")) + "`", inner)

    def as_text(fragment: str) -> str:
        return _SLOT.sub(lambda m: plain[int(m[1])], fragment)

    # a wiki link that is no link to an indexed runbook here reads as its words
    spans = _LOOSE_CODE.sub(code, CODE_SPAN.sub(code, text))
    masked = as_words(html_as_markdown(_LOOSE_FENCE.sub(_BROKEN_FENCE, spans)))
    masked = _TEMPLATE_TAG.sub("", _TEMPLATED_LINK.sub(lambda m: m["text"], masked))
    masked = _LINKISH.sub(lambda m: slot(_link(m, base_url, as_text), ""), masked)
    masked = _ORPHAN_TARGET.sub("", masked)
    return _SLOT.sub(lambda m: kept[int(m[1])], _line_breaks(_emphasis(escape(masked))))


def _link(m: re.Match[str], base_url: str | None, as_text: Callable[[str], str]) -> str:
    """One link of ``_LINKISH`` as mrkdwn; ``as_text`` reads code in its text as text."""
    if m["auto"] or m["bare"]:
        url = m["auto"] or m["bare"]
        safe = safe_url(url)
        return f"<{safe}>" if safe else escape(url)
    label = as_text(_plain_emphasis(m["label"])).replace("`", "").strip() or m["url"]
    # a link in a link's text ("[[`X`](rules.yml)](x.md)") is its text there
    label = _ESCAPED.sub(r"\1", _LINKISH.sub(lambda n: n["label"] or "", label))
    target = resolve_link(m["url"], base_url) if m["url"] else None
    safe = safe_url(target)
    shown = escape(" ".join(label.split())).replace("|", "¦")
    return f"<{safe}|{shown}>" if safe else _emphasis(escape(label))


def _emphasis(text: str) -> str:
    # "***410 / 460***" is shown bold: as "**x**" it is, below, and not "*410 / 460**"
    text = _BOLD_ITALIC.sub(lambda m: "**" + m.group(2).replace("*", "") + "**", text)
    text = _ITALIC.sub(lambda m: "_" + m.group(1) + "_", text)  # before bold makes *x*
    text = _BOLD.sub(lambda m: "*" + m.group(2).replace("*", "") + "*", text)
    return _STRIKE.sub(r"~\1~", text)


# --------------------------------------------------------------------------- tables


def table_cells(row: str) -> list[str]:
    """A table row's cells, trimmed; an escaped pipe (``\\|``) is a pipe in its cell."""
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", row)]


def _table(rows: Sequence[str], base_url: str | None) -> list[str]:
    """A Markdown table as aligned columns in a code block, or one line per row when
    that would be wider than a thread pane."""
    table = [table_cells(r) for r in rows]
    width = max(len(r) for r in table)
    table = [r + [""] * (width - len(r)) for r in table]
    plain = [[_cell_text(c) for c in r] for r in table]
    widths = [max(len(r[i]) for r in plain) for i in range(width)]
    if sum(widths) + 2 * (width - 1) <= TABLE_WIDTH:
        lines = [
            "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in plain
        ]
        rule = "  ".join("-" * w for w in widths)
        body = "\n".join([lines[0], rule, *lines[1:]])
        return ["", f"{FENCE}\n{escape(body)}\n{FENCE}", ""]
    head, *body_rows = table
    return ["", *(_row_line(r, head, base_url) for r in body_rows), ""]


def _row_line(row: Sequence[str], head: Sequence[str], base_url: str | None) -> str:
    """``• *first cell* · Header: cell · …``; without a header, the cells alone."""
    first = _inline(_plain_emphasis(row[0]), base_url)  # bold already: no "**x**"
    labels = [*head[1:], *[""] * len(row)]
    rest = [
        f"{_inline(h, base_url)}: {_inline(c, base_url)}" if h else _inline(c, base_url)
        for h, c in zip(labels, row[1:], strict=False)
        if c.strip()
    ]
    return "• " + " · ".join([f"*{first}*" if first else "", *rest]).strip(" ·")


def _cell_text(cell: str) -> str:
    """A cell as plain text for a monospace table; "[U_]" in a cell is what it says."""
    return plain_text(cell, references=False)


def plain_text(markdown: str, *, references: bool = True) -> str:
    """One line of Markdown as plain words (what a phone notification shows): code ticks,
    emphasis and link targets dropped, a link (or, with ``references``, a reference
    link) as its text."""
    text = as_words(markdown)  # a wiki link first: "[[Page]]" holds no reference
    if references:  # brackets in code are code: "node['gitaly']" stays as written
        text = sub_references(text, lambda m: m["text"])
    text = CODE_SPAN.sub(lambda m: m.group(2), text)
    text = _LINKISH.sub(lambda m: m["label"] or m["auto"] or m["bare"] or "", text)
    text = _ESCAPED.sub(r"\1", _BOLD_ITALIC.sub(r"\2", text))
    return " ".join(_plain_emphasis(text).split())


# --------------------------------------------------------------------------- commands


_CONTINUED = re.compile(r"\\\s*$")
_PROMPT = re.compile(r"^\s*(?:\$|#|>)\s+")
_COMMAND_SPAN = re.compile(r"^[a-z][\w.-]*(?:\s+\S+)+$")
# a code line that reads as prose or Markdown is no command: a sentence (an alert's
# message shown as code, a note), a list item or a link (a list of links indented as
# code by mistake), a diff's changed line
_PROSE = re.compile(r"^(?:[A-Z][a-z]+,?\s+[a-z]|[-*+]\s|\d{1,3}[.)]\s|.*\]\()")


def first_command(markdown: str) -> str | None:
    """The first command a quote shows: the first line of its first code block, fenced
    or indented, that shows one (:func:`command_block`; with its ``\\`` continuations,
    without a ``$`` prompt), else an inline code span that reads as a command (a tool and
    a flag or argument); None when it shows none."""
    block = command_block(markdown)
    if block is not None:
        return _first_code_line(block.text)
    for m in CODE_SPAN.finditer(markdown):
        span = " ".join(m.group(2).split())
        if _COMMAND_SPAN.match(span) and re.search(r"\s-{1,2}[A-Za-z]|\s\w+/\w", span):
            return span
    return None


def command_block(markdown: str) -> CodeBlock | None:
    """The first code block of ``markdown`` outside a quote, fenced or indented
    (:func:`core.code_blocks.code_blocks`), whose first line (past comments and blank
    lines) is a command rather than prose; None when none is."""
    return next((b for b in code_blocks(markdown) if _first_code_line(b.text)), None)


def _first_code_line(block: str) -> str | None:
    parts: list[str] = []
    for raw in block.split("\n"):
        line = raw.strip()
        if not parts and (not line or line.startswith("#")):
            continue
        line = _PROMPT.sub("", line) if not parts else line
        if not parts and _PROSE.match(line):
            return None
        continued = bool(_CONTINUED.search(line))
        parts.append(_CONTINUED.sub("", line).strip())
        if not continued:
            break
    command = " ".join(p for p in parts if p)
    if command.count('"') % 2 or command.count("'") % 2:  # a quoted argument goes on
        command = parts[0] + " …"
    return command or None
