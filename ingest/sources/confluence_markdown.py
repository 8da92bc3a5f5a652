"""Confluence storage format as Markdown: the text a Confluence page is indexed, quoted
and cited as.

The page's XHTML is read with BeautifulSoup; Confluence's own elements are rewritten
as plain HTML first, then ``html-to-markdown`` writes the Markdown (it keeps tables,
nested lists and inline code better than markdownify, see docs/ingest.md):

- code and noformat macros become fenced code, their text byte for byte;
- info, note, warning and tip panels (and plain panels) become quotes opening with
  GitHub's alert marker (``> [!WARNING]``), the warning lines answers show;
- expand macros keep their title and text; status macros and Jira links become their
  plain text; links to pages, users and attachments become their text;
- raw HTML and script macros, scripts, styles, frames, images and macros without text
  (table of contents, child lists) are left out.

Each heading's offset in the text is recorded with its anchor as Confluence writes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bs4 import BeautifulSoup, Tag

from core.markdown import headings
from core.site_markdown import KINDS

#: Bump when the rendering changes: every Confluence page is then rendered anew.
RENDERING_VERSION = "1"

AnchorStyle = Literal["cloud", "data_center"]

_CODE_MACROS = frozenset({"code", "noformat", "code-block"})
_PANELS = {"info": "INFO", "note": "NOTE", "warning": "WARNING", "tip": "TIP", "panel": "NOTE"}
# macros whose content is markup or a program to run, never text to index
_DROPPED_MACROS = frozenset(
    {"html", "html-include", "script", "javascript", "iframe", "widget", "css", "style"}
)
# macros that only list or embed other things: nothing of the page's own text
_EMPTY_MACROS = frozenset(
    {
        "toc",
        "toc-zone",
        "children",
        "pagetree",
        "pagetreesearch",
        "recently-updated",
        "attachments",
        "contentbylabel",
        "gallery",
        "viewfile",
        "view-file",
        "multimedia",
        "livesearch",
        "anchor",
        "include",
        "excerpt-include",
    }
)
_DROPPED_TAGS = ("script", "style", "iframe", "object", "embed", "noscript", "template")
_PLACEHOLDER = "RBCONFLUENCECODE{}X"
_PLACEHOLDER_LINE = re.compile(
    r"^(?P<indent>[ \t]*)(?:[-*+]|\d+[.)])?[ \t]*RBCONFLUENCECODE(\d+)X$"
)
_HEADING_LINE = re.compile(r"^#{1,6}[ \t]")


@dataclass(frozen=True)
class Rendered:
    text: str
    anchors: tuple[tuple[int, str], ...]  # (offset of a heading, its anchor)


def _param(macro: Tag, name: str) -> str:
    for p in macro.find_all("ac:parameter", recursive=False):
        if p.get("ac:name") == name:
            return p.get_text().strip()
    return ""


def _body(macro: Tag, kind: str) -> Tag | None:
    found = macro.find(f"ac:{kind}-body", recursive=False)
    return found if isinstance(found, Tag) else None


def _fence(code: str, language: str) -> str:
    """``code`` as fenced code, byte for byte: the fence is longer than any run of
    backticks inside it."""
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    lang = re.sub(r"[^\w+#.-]", "", language)
    return f"{fence}{lang}\n{code}{'' if code.endswith(chr(10)) or not code else chr(10)}{fence}"


def _rewrite(soup: BeautifulSoup, codes: list[str]) -> None:
    """Confluence's elements as plain HTML, in place; code blocks become placeholders
    (``codes`` collects them) so no converter touches their text."""
    for tag in soup.find_all(_DROPPED_TAGS):
        tag.decompose()
    for macro in reversed(soup.find_all("ac:structured-macro")):
        if macro.decomposed:
            continue
        _macro(soup, macro, codes)
    for link in soup.find_all("ac:link"):
        body = link.find(["ac:plain-text-link-body", "ac:link-body"])
        target = link.find(["ri:page", "ri:blog-post", "ri:attachment", "ri:user", "ri:space"])
        text = body.get_text() if body else ""
        if not text.strip() and isinstance(target, Tag):
            text = str(
                target.get("ri:content-title")
                or target.get("ri:filename")
                or target.get("ri:space-key")
                or ""
            )
        link.replace_with(text)
    for task in soup.find_all("ac:task"):
        done = task.find("ac:task-status")
        body = task.find("ac:task-body")
        li = soup.new_tag("li")
        li.append("[x] " if done and done.get_text().strip() == "complete" else "[ ] ")
        if body:
            li.extend(list(body.contents))
        task.replace_with(li)
    for tasks in soup.find_all("ac:task-list"):
        tasks.name = "ul"
    for tag in soup.find_all(["ac:image", "ac:emoticon", "ac:placeholder", "ac:parameter"]):
        tag.decompose()
    for tag in soup.find_all("time"):
        tag.replace_with(str(tag.get("datetime") or tag.get_text()))
    for tag in soup.find_all(re.compile(r"^(ac|ri):")):
        tag.unwrap()


def _macro(soup: BeautifulSoup, macro: Tag, codes: list[str]) -> None:
    name = str(macro.get("ac:name") or "").lower()
    if name in _DROPPED_MACROS or name in _EMPTY_MACROS:
        macro.decompose()
        return
    plain = _body(macro, "plain-text")
    rich = _body(macro, "rich-text")
    if name in _CODE_MACROS or (plain is not None and rich is None):
        codes.append(_fence(plain.get_text() if plain else "", _param(macro, "language")))
        p = soup.new_tag("p")
        p.string = _PLACEHOLDER.format(len(codes) - 1)
        macro.replace_with(p)
        return
    if name == "status":
        macro.replace_with(_param(macro, "title") or _param(macro, "colour"))
        return
    if name == "jira":
        macro.replace_with(_param(macro, "key") or _param(macro, "jqlQuery"))
        return
    title = _param(macro, "title")
    if name in _PANELS:
        quote = soup.new_tag("blockquote")
        lead = soup.new_tag("p")
        lead.append(f"[!{KINDS.get(name, _PANELS[name])}]")
        if title:
            strong = soup.new_tag("strong")
            strong.string = title
            lead.append(" ")
            lead.append(strong)
        quote.append(lead)
        if rich is not None:
            quote.extend(list(rich.contents))
        macro.replace_with(quote)
        return
    # expand and every other macro: its title and its text, without its parameters
    box = soup.new_tag("div")
    if title and name == "expand":
        head = soup.new_tag("p")
        strong = soup.new_tag("strong")
        strong.string = title
        head.append(strong)
        box.append(head)
    if rich is not None:
        box.extend(list(rich.contents))
    macro.replace_with(box)
    box.unwrap()


def _restore_codes(markdown: str, codes: list[str]) -> str:
    """The placeholders replaced by their fenced code, indented as the line they are on
    (inside a list item, the fence is indented with it)."""
    out: list[str] = []
    for line in markdown.split("\n"):
        m = _PLACEHOLDER_LINE.match(line)
        if m is None:
            out.append(line)
            continue
        prefix = line[: len(line) - len(line.lstrip())]
        marker = line.lstrip()[: -len(_PLACEHOLDER.format(m.group(2)))]
        fence = codes[int(m.group(2))]
        pad = prefix + " " * len(marker)
        lines = fence.split("\n")
        first = f"{prefix}{marker}{lines[0]}"
        out.append("\n".join([first, *(pad + x if x else x for x in lines[1:])]))
    text = "\n".join(out)
    # a placeholder anywhere else (a table cell): the code on one line
    return re.sub(
        r"RBCONFLUENCECODE(\d+)X",
        lambda m: "`" + " ".join(codes[int(m.group(1))].split("\n")[1:-1]).strip() + "`",
        text,
    )


def _quotes_apart(text: str) -> str:
    """A blank line before a quote that follows other text (a panel after a list)."""
    return re.sub(r"(?m)^(?P<line>[^>\n].*)\n(?=>)", r"\g<line>\n\n", text)


def anchor(heading: str, title: str, style: AnchorStyle) -> str:
    """The anchor of a heading in a page's link: Confluence Cloud joins the heading's
    words with ``-``; Data Center prefixes the page title and drops the spaces."""
    if style == "cloud":
        return "-".join(heading.split())
    return "".join(title.split()) + "-" + "".join(heading.split())


def _plain_heading(text: str) -> str:
    """A Markdown heading's text without emphasis, code marks and links."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[*_`]+", "", text).strip()


def storage_to_markdown(storage: str) -> str:
    """A page's storage format (XHTML with Confluence macros) as Markdown."""
    from html_to_markdown import ConversionOptions, convert

    soup = BeautifulSoup(storage, "html.parser")
    codes: list[str] = []
    _rewrite(soup, codes)
    options = ConversionOptions(heading_style="atx", bullets="-", escape_misc=False)
    result = convert(str(soup), options)
    text = result.content or ""
    text = _quotes_apart(re.sub(r"\n{3,}", "\n\n", text.strip("\n")))
    return _restore_codes(text, codes)


def render_page(storage: str, title: str, style: AnchorStyle) -> Rendered:
    """A page's storage format as the Markdown text it is indexed as (ending in a
    newline), with its headings' anchors."""
    text = storage_to_markdown(storage)
    if not text.strip():
        return Rendered("", ())
    text += "\n"
    anchors = tuple(
        (start, anchor(_plain_heading(name), title, style))
        for start, end, _level, name in headings(text)
        if _HEADING_LINE.match(text[start:end])
    )
    return Rendered(text, anchors)
