"""The HTML that GitHub renders inside Markdown, as the Markdown it stands for.

Runbooks written for GitHub use a little HTML: ``<br>`` for a line break inside a list
item or a table cell, ``<a href>`` and ``<img>``, a collapsed ``<details>`` block with its
``<summary>`` label, ``<p align="center">`` around text, comments. Shown elsewhere (Slack,
the web pages, whose Markdown renderer takes no raw HTML) each reads as what it stands
for: a link, an image link, a bold label, the text inside; comments go. Placeholders
such as ``<namespace>`` are no HTML and stay as written, and so does code: a comment in
a fenced block or a code span is part of the command.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.link_references import CODE_SPAN, prose_lines

_SLOT = re.compile("\ue000(\\d+)\ue001")  # a code span set aside (private-use characters)
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
HTML_BREAK = re.compile(r"<br\s*/?>", re.I)
HTML_INLINE = re.compile(r"</?(?:kbd|code|b|i|em|strong|sup|sub|span|samp|var)\b[^>]*>", re.I)
# HTML that GitHub renders in Markdown: a link, an image, a collapsed block's label, and
# the block tags around text (<details>, <p align="center">, <div>)
HTML_ANCHOR = re.compile(
    r"<a\s[^>]*?\bhref\s*=\s*(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)')[^>]*>(?P<text>.*?)</a\s*>",
    re.I | re.S,
)
HTML_IMAGE = re.compile(r"<img\s[^>]*>", re.I)
HTML_ATTR = re.compile(r"\b(?P<name>src|alt)\s*=\s*(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)')", re.I)
HTML_SUMMARY = re.compile(r"<summary\b[^>]*>(?P<text>.*?)</summary\s*>", re.I | re.S)
HTML_BLOCK = re.compile(
    r"</?(?:details|summary|p|div|center|section|article|font|small|big|u|ins|del|s|"
    r"strike|mark|abbr|dl|dt|dd|figure|figcaption|picture|source|hr|ul|ol|li|nav)\b[^>]*>",
    re.I,
)
# what is left of a link whose tags stand on lines of their own (a site's tabs: "<a
# href=...>" above its text, "</a>" below): its text stays, the tags go
HTML_ANCHOR_TAG = re.compile(r"</?a\b[^>]*>", re.I)


def html_as_markdown(text: str) -> str:
    """GitHub-rendered HTML in a line as the Markdown it stands for: ``<a href>`` a link,
    ``<img>`` an image link, ``<summary>`` a bold label; block and list tags dropped, and
    the tags of a link whose text is on another line."""
    if "<" not in text:
        return text

    def anchor(m: re.Match[str]) -> str:
        target = m["dq"] if m["dq"] is not None else m["sq"]
        label = HTML_BLOCK.sub("", m["text"]).strip() or target
        return f"[{label}]({target})"

    def image(m: re.Match[str]) -> str:
        attrs = {
            a["name"].lower(): a["dq"] if a["dq"] is not None else a["sq"]
            for a in HTML_ATTR.finditer(m[0])
        }
        alt = (attrs.get("alt") or "image").strip()
        return f"![{alt}]({attrs['src']})" if attrs.get("src") else alt

    text = HTML_ANCHOR.sub(anchor, text)
    text = HTML_IMAGE.sub(image, text)
    text = HTML_SUMMARY.sub(lambda m: f"**{m['text'].strip()}**" if m["text"].strip() else "", text)
    return HTML_ANCHOR_TAG.sub("", HTML_BLOCK.sub("", text))


def without_comments(markdown: str) -> str:
    """``markdown`` without its HTML comments, in prose only (one may span lines there);
    code, fenced or in a span, keeps its comments byte for byte."""
    lines = markdown.split("\n")
    out: list[str] = []
    run: list[str] = []  # consecutive prose lines

    def flush() -> None:
        if run:
            out.extend(_uncommented("\n".join(run)).split("\n"))
            run.clear()

    for line, prose in zip(lines, prose_lines(lines), strict=True):
        if prose:
            run.append(line)
        else:
            flush()
            out.append(line)
    flush()
    return "\n".join(out)


def _uncommented(prose: str) -> str:
    return (
        outside_code(prose, lambda text: HTML_COMMENT.sub("", text)) if "<!--" in prose else prose
    )


def outside_code(text: str, change: Callable[[str], str]) -> str:
    """``change`` applied to ``text`` with its code spans set aside and put back as written."""
    code: list[str] = []

    def aside(m: re.Match[str]) -> str:
        code.append(m[0])
        return f"\ue000{len(code) - 1}\ue001"

    return _SLOT.sub(lambda m: code[int(m[1])], change(CODE_SPAN.sub(aside, text)))
