"""reStructuredText runbooks: section titles.

A section title is a line of text underlined, or over- and underlined, with one
punctuation character repeated (``Mitigation`` over ``----------``). As docutils
reads them, levels are not fixed by the character: the first style met (character,
and whether it has an overline) is level 1, the next new one level 2, and so on, so
a document's title is its first heading and its sections come below it. A title's
text starts a paragraph (after a blank line), and an underline-only title starts at
the margin, so the indented lines of a literal block (``::``) or a directive never
read as titles. A line of punctuation between blank lines is a transition, not a
title; a simple table's border has spaces in it.
"""

from __future__ import annotations

import re

from core.heading_text import heading_slug
from core.markdown import iter_lines
from core.syntax import Syntax

_ADORNMENT = re.compile(r"""^([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])\1{2,}[ \t]*$""")


def _adornment(line: str) -> str | None:
    m = _ADORNMENT.match(line)
    return m.group(1) if m else None


def _title_text(line: str, inset: bool) -> bool:
    """Can ``line`` be a title's text? (inset only under an overline)"""
    if not line.strip() or _adornment(line) is not None:
        return False
    return inset or not line[0].isspace()


def headings(text: str, start: int = 0) -> list[tuple[int, int, int, str]]:
    """Every section title: (first line start, underline end, level, title)."""
    lines = list(iter_lines(text, start))
    styles: list[tuple[str, bool]] = []  # in the order the document uses them
    out: list[tuple[int, int, int, str]] = []
    i = 0
    while i < len(lines):
        ls, _le, line = lines[i]
        after_blank = i == 0 or not lines[i - 1][2].strip()
        over = _adornment(line)
        if (
            after_blank
            and over is not None
            and i + 2 < len(lines)
            and _title_text(lines[i + 1][2], inset=True)
            and _adornment(lines[i + 2][2]) == over
        ):
            found: tuple[str, bool, str, int] | None = (over, True, lines[i + 1][2], i + 2)
        elif (
            after_blank
            and _title_text(line, inset=False)
            and i + 1 < len(lines)
            and (under := _adornment(lines[i + 1][2])) is not None
            and len(lines[i + 1][2].rstrip()) >= min(len(line.rstrip()), 4)
        ):
            found = (under, False, line, i + 1)
        else:
            found = None
        if found is None:
            i += 1
            continue
        char, overlined, title, last = found
        style = (char, overlined)
        if style not in styles:
            styles.append(style)
        out.append((ls, lines[last][1], styles.index(style) + 1, title.strip()))
        i = last + 1
    return out


_DIRECTIVE = re.compile(r"^\.\.\s+([\w-]+)::\s*(.*)$")
_COMMENT = re.compile(r"^\.\.(\s|$)")  # a comment, a link target (.. _x:), a substitution
_CODE_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "prompt"})
_ADMONITIONS = frozenset({"note", "tip", "hint", "important", "warning", "caution", "danger"})
_LITERAL = re.compile(r"``(.+?)``")
_ROLE = re.compile(r":[\w:-]+:`([^`<]*?)\s*(?:<[^`>]*>)?`")  # :ref:`text <target>` -> text
_LINK = re.compile(r"`([^`<]+?)\s*<([^`>]+)>`__?")  # `text <url>`_
# `Section title`_: a reference to a section of the same page by its title
_SECTION_REF = re.compile(r"(?<![`\w])`([^`<>\n]+?)`_(?!_|\w)")
_AUTO_NUMBER = re.compile(r"^(\s*)#\.\s")
_FIELD = re.compile(r"^:([^:`\s][^:`]*):(?:\s+(.*))?$")  # :owner: @team


def as_markdown(text: str) -> str:
    """reStructuredText as Markdown, for display only: titles as ``#`` headings,
    literal blocks (``::``) and code directives as code fences, admonitions as warning
    lines, ````code```` as ```code```, a field (``:owner: x``) as a list item with its
    name in bold; comments and link targets are left out."""
    lines = [line for _s, _e, line in iter_lines(text, 0)]
    titles = {
        text.count("\n", 0, s): (text.count("\n", 0, e), lv, t) for s, e, lv, t in headings(text)
    }
    out: list[str] = []
    number = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        if i in titles:
            last, level, title = titles[i]
            out.append("#" * min(level + 1, 6) + " " + title)
            i = last + 1
            continue
        directive = _DIRECTIVE.match(line)
        block: str | None = None  # "code", "quote" or "drop": what the indented lines are
        if directive is not None:
            name = directive.group(1).lower()
            if name in _ADMONITIONS:
                out.append(f"> **{name.upper()}:** {_inline(directive.group(2))}".rstrip())
                block = "quote"
            elif name in _CODE_DIRECTIVES:
                block = "code"
            else:
                block = "drop"
        elif _COMMENT.match(line):
            block = "drop"
        elif line.rstrip().endswith("::"):
            lead = line.rstrip()[:-2].rstrip()
            if lead:
                out.append(_inline(lead) + ("" if line.rstrip()[-3:-2].isspace() else ":"))
            block = "code"
        else:
            m = _AUTO_NUMBER.match(line)
            field = _FIELD.match(line)
            if m is not None:
                number += 1
                line = f"{m.group(1)}{number}. " + line[m.end() :]
            elif field is not None:
                line = f"- **{field.group(1)}:** {field.group(2) or ''}".rstrip()
            elif line.strip() and not line[0].isspace():
                number = 0
            out.append(_inline(line))
            i += 1
            continue
        i += 1
        body: list[str] = []
        while i < len(lines) and (not lines[i].strip() or lines[i][0].isspace()):
            body.append(lines[i])
            i += 1
        while body and not body[-1].strip():
            body.pop()
        trailing = i < len(lines)
        if block == "code":
            code = [b for b in body if not b.strip().startswith(":")] if directive else body
            width = min((len(b) - len(b.lstrip()) for b in code if b.strip()), default=0)
            while code and not code[0].strip():
                code.pop(0)
            out.extend(["```", *(b[width:] for b in code), "```"])
        elif block == "quote":
            out.extend("> " + _inline(b.strip()) for b in body if b.strip())
        if trailing and block != "drop":
            out.append("")
    return "\n".join(out)


def _inline(text: str) -> str:
    text = _SECTION_REF.sub(lambda m: f"[{m.group(1)}](#{heading_slug(m.group(1))})", text)
    text = _LITERAL.sub(lambda m: f"`{m.group(1)}`", text)
    text = _LINK.sub(lambda m: f"[{m.group(1)}]({m.group(2)})", text)
    return _ROLE.sub(lambda m: f"`{m.group(1)}`", text)


RESTRUCTUREDTEXT = Syntax(
    name="restructuredtext",
    suffixes=(".rst",),
    headings=headings,
    fence_open=lambda line: None,  # literal blocks are indented: no line opens one
    fence_closes=lambda line, marker: True,
    as_markdown=as_markdown,
)
