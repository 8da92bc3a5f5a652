"""A quote as the web pages show it: its Markdown rendered, the text itself unchanged.

The steps are a numbered list, commands are code blocks byte for byte, a table is a table.
Nothing in a runbook becomes markup of its own: raw HTML in a quote shows as text
(markdown-it with ``html`` off), and a link keeps its ``href`` only when it resolves to a
web address (:func:`bot.quote_links.resolve_link`, the same as in Slack), else its text
stays. An image is linked, never loaded from wherever the runbook points. Reference links
read as in Slack, and a wiki link to a page the index holds points at that page. The HTML
GitHub renders in Markdown (``<br>``, ``<a href>``, ``<details>``; :mod:`core.github_html`)
reads as what it stands for, and a task list's boxes show as boxes (☐, ☑), as in Slack;
a placeholder such as ``<namespace>`` stays as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup

from bot.quote_layout import example_blocks, lead_cut, quote_markdown
from bot.quote_links import resolve_link
from bot.web.links import heading_anchor
from core.github_html import (
    HTML_BREAK,
    HTML_INLINE,
    html_as_markdown,
    outside_code,
    without_comments,
)
from core.heading_text import plain_heading, without_anchor
from core.link_references import inline_references, prose_lines
from core.markdown import LIST_ITEM, TABLE_ROW, TASK_BOX, task_box
from core.models import Citation, section_name
from core.site_markdown import alert_marker
from core.wiki_links import as_words

# "default": CommonMark with tables and strikethrough, no raw HTML, no typography
_MARKDOWN = MarkdownIt("default", {"html": False, "typographer": False, "linkify": False})
# a line that starts a block of its own: a list item, a heading, a quote, a fence, a row
_BLOCK_START = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#|>|```|~~~|\|)")
_BREAK_AT_END = re.compile(r"<br\s*/?>\s*$", re.I)


def quote_html(citation: Citation, *, lead: bool = False) -> Markup:
    """The citation's quote (a table row under its header) as safe HTML; ``lead``: the
    answer's first quote, whose lines past about 15 fold behind "Show more"."""
    markdown = quote_markdown(citation, header=True)
    cut = lead_cut(markdown) if lead else None
    if cut is None:
        return markdown_html(markdown, citation.url)
    hidden = markdown[cut:].rstrip("\n").count("\n") + 1
    return Markup(
        f"{markdown_html(markdown[:cut], citation.url)}"
        f'<details class="more"><summary>Show more ({hidden} more lines)</summary>'
        f"{markdown_html(markdown[cut:], citation.url)}</details>"
    )


def markdown_html(markdown: str, base_url: str | None, *, title: str | None = None) -> Markup:
    """Runbook Markdown as safe HTML, its examples (sample output, logs, long YAML)
    folded behind "Show example"; ``title``: a whole runbook's, whose headings get an
    anchor each (:func:`bot.web.links.heading_anchor` of their section)."""
    source = _github_html(as_words(inline_references(markdown)))
    tokens = _MARKDOWN.parse(source)
    for token in tokens:
        if token.children:
            token.children = _links(token.children, base_url)
    _callouts(tokens)
    _heading_anchors_dropped(tokens)
    tokens = _fold_examples(tokens, {b.start for b in example_blocks(source)})
    if title is not None:
        _anchor_headings(tokens, title)
    return Markup(_MARKDOWN.renderer.render(tokens, _MARKDOWN.options, {}))


def _callouts(tokens: Sequence[Token]) -> None:
    """A quote that opens with GitHub's alert marker (``> [!WARNING]``, as every site's
    callout is read) as a callout: its kind in bold for the marker, as Slack shows it,
    and a class of its own."""
    for i, t in enumerate(tokens[:-2]):
        inline = tokens[i + 2]
        if t.type != "blockquote_open" or inline.type != "inline" or not inline.children:
            continue
        first = inline.children[0]
        line = first.content.split("\n", 1)[0] if first.type == "text" else ""
        alert = alert_marker(line)
        if alert is None:
            continue
        kind, said = alert
        t.attrSet("class", f"callout callout-{kind}")
        first.content = said
        label = [
            Token("strong_open", "strong", 1),
            Token("text", "", 0, content=f"{kind.capitalize()}:"),
            Token("strong_close", "strong", -1),
        ]
        rest = inline.children[1:]
        if not said and rest and rest[0].type == "softbreak":
            rest = rest[1:]
        gap = Token("text", "", 0, content=" ") if said or rest else None
        inline.children = [*label, *([gap] if gap else []), *([first] if said else []), *rest]


def _heading_anchors_dropped(tokens: Sequence[Token]) -> None:
    """Each heading without the anchor its site gives it (``## Persistent storage
    {#wal}``): the page shows the heading's words, as Slack does."""
    for i, t in enumerate(tokens[:-1]):
        inline = tokens[i + 1]
        if t.type != "heading_open" or not inline.children:
            continue
        last = inline.children[-1]
        if last.type == "text":
            last.content = without_anchor(last.content).rstrip()


def _fold_examples(tokens: list[Token], starts: set[int]) -> list[Token]:
    """Each code block, fenced or indented, that starts on a line of ``starts`` inside a
    folded "Show example"."""
    out: list[Token] = []
    for t in tokens:
        if t.type in ("fence", "code_block") and t.map and t.map[0] in starts:
            lines = t.content.rstrip("\n").count("\n") + 1
            summary = f"Show example ({lines} line{'s' if lines != 1 else ''})"
            out.append(_html(f'<details class="example"><summary>{summary}</summary>\n'))
            out.append(t)
            out.append(_html("</details>\n"))
        else:
            out.append(t)
    return out


def _html(content: str) -> Token:
    return Token("html_block", "", 0, content=content, block=True)


def _anchor_headings(tokens: Sequence[Token], title: str) -> None:
    """An ``id`` on every heading: the anchor of its section (unique on the page)."""
    stack: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    for i, t in enumerate(tokens):
        if t.type != "heading_open" or i + 1 >= len(tokens):
            continue
        level = int(t.tag[1:])
        text = plain_heading(tokens[i + 1].content) or tokens[i + 1].content
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, text))
        anchor = heading_anchor(section_name(tuple(h for _, h in stack), title))
        seen[anchor] = seen.get(anchor, 0) + 1
        t.attrSet("id", anchor if seen[anchor] == 1 else f"{anchor}-{seen[anchor]}")


def _links(children: Sequence[Token], base_url: str | None) -> list[Token]:
    """Inline tokens with every link resolved against the quote's source (its text alone
    when it is no web link) and every image as a link to it."""
    out: list[Token] = []
    dropped = 0  # link_open tokens left out, whose link_close goes too
    for t in children:
        if t.type == "link_open":
            url = resolve_link(str(t.attrGet("href") or ""), base_url)
            if url is None:
                dropped += 1
                continue
            t.attrs = {"href": url, "rel": "noopener noreferrer"}
        elif t.type == "link_close" and dropped:
            dropped -= 1
            continue
        elif t.type == "image":
            out.extend(_image_link(t, base_url))
            continue
        out.append(t)
    return out


def _image_link(image: Token, base_url: str | None) -> list[Token]:
    """An image as a link to it, shown as "[image: <alt text>]", or that text alone."""
    alt = "".join(c.content for c in image.children or ()) or "image"
    text = Token("text", "", 0, content=f"[image: {alt}]")
    url = resolve_link(str(image.attrGet("src") or ""), base_url)
    if url is None:
        return [text]
    opened = Token("link_open", "a", 1, attrs={"href": url, "rel": "noopener noreferrer"})
    return [opened, text, Token("link_close", "a", -1)]


def _github_html(markdown: str) -> str:
    """``markdown`` with the HTML GitHub renders in it as Markdown, in prose only (code,
    fenced or inline, stays byte for byte): comments go, ``<br>`` breaks the line (a
    space in a table row), ``<b>`` and the like leave their text."""
    lines = without_comments(markdown).split("\n")
    following = [*lines[1:], ""]
    return "\n".join(
        _task_box(_prose_html(line, after) if "<" in line else line) if prose else line
        for line, prose, after in zip(lines, prose_lines(lines), following, strict=True)
    )


def _task_box(line: str) -> str:
    """A task list's item with its box as the box it shows (``- [ ] step`` → ``- ☐ step``)."""
    item = LIST_ITEM.match(line)
    box = TASK_BOX.match(line[item.end() :]) if item else None
    if item is None or box is None:
        return line
    return f"{line[: item.end()]}{task_box(box)} {line[item.end() + box.end() :]}"


def _prose_html(line: str, following: str) -> str:
    """One prose line with its HTML as Markdown; ``following``: the next line, which a
    ``<br>`` at the end of this one breaks to only when it continues the paragraph."""

    def as_markdown(text: str) -> str:
        text = HTML_INLINE.sub("", text)
        if TABLE_ROW.match(text):
            return html_as_markdown(HTML_BREAK.sub(" ", text))  # a row is one line
        # a hard line break: a backslash at the end of a line
        continues = bool(following.strip()) and not _BLOCK_START.match(following)
        text = _BREAK_AT_END.sub("\\\\" if continues else "", text)
        return html_as_markdown(HTML_BREAK.sub(lambda _m: "\\\n", text))

    return outside_code(line, as_markdown)
