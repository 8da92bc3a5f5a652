"""Markdown's reference links: ``[text][ref]``, ``[text][]`` and ``[text]`` with a
``[ref]: url`` definition anywhere in the document (often at its end).

Labels match case-insensitively, whitespace collapsed (CommonMark). Code, fenced or
indented, is never read for definitions, and brackets inside inline code
(``node['gitaly']['token']``) are no reference.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from core.code_blocks import in_code
from core.wiki_links import WIKI_LINK, page_half, shown_text

# a definition line: "[label]: url" or "[label]: <url> "title""
LINK_DEFINITION = re.compile(
    r"^[ ]{0,3}\[(?P<label>[^\]\n]+)\]:[ \t]*<?(?P<url>[^\s>]+)>?(?:[ \t]+[\"'(].*)?[ \t]*$"
)
# a reference: its text may wrap onto the next line ("[underlying application\nmachines][m]")
REFERENCE_LINK = re.compile(
    r"(?<![\]!\\])\[(?P<text>[^\[\]\n]+(?:\n[^\[\]\n]+)?)\]"
    r"(?:\[(?P<ref>[^\[\]\n]*)\]|(?![(:\[]))"
)

# inline code: a run of backticks, its text, the same run again
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def sub_references(text: str, repl: Callable[[re.Match[str]], str]) -> str:
    """``REFERENCE_LINK.sub(repl, text)``, leaving the brackets of inline code as written:
    ``default_attributes['omnibus-gitlab']['gitaly']`` is code, not two references."""
    code = [m.span() for m in CODE_SPAN.finditer(text)]
    if not code:
        return REFERENCE_LINK.sub(repl, text)

    def outside(m: re.Match[str]) -> str:
        inside = any(start <= m.start() < end for start, end in code)
        return m.group(0) if inside else repl(m)

    return REFERENCE_LINK.sub(outside, text)


def ref_key(label: str) -> str:
    """A label as references match it: lower case, whitespace collapsed."""
    return " ".join(label.lower().split())


def prose_lines(lines: list[str]) -> list[bool]:
    """Per line: is it prose, not a line of a code block? Code is what CommonMark reads
    as code (:mod:`core.code_blocks`): fenced, and indented four spaces past the margin
    or a list item's text, such as sample output under a numbered step."""
    return [not code for code in in_code("\n".join(lines))]


# ... or "[label]:" with its url on the next line, as CommonMark allows
_DEFINITION_OPEN = re.compile(r"^[ ]{0,3}\[(?P<label>[^\]\n]+)\]:[ \t]*$")
_DESTINATION = re.compile(r"^[ \t]*<?(?P<url>[^\s<>]+)>?(?:[ \t]+[\"'(].*)?[ \t]*$")


def definition_lines(lines: Sequence[str], prose: Sequence[bool]) -> dict[int, tuple[str, str]]:
    """The lines of the prose that define a link, by index: (label, url) on the line the
    definition starts, and on the line its url wraps to ("[runbook]:" over "<https://…>")."""
    out: dict[int, tuple[str, str]] = {}
    for i, (line, outside) in enumerate(zip(lines, prose, strict=True)):
        if not outside or i in out:
            continue
        if (found := LINK_DEFINITION.match(line)) is not None:
            out[i] = (found["label"], found["url"])
        elif (
            (opened := _DEFINITION_OPEN.match(line)) is not None
            and i + 1 < len(lines)
            and prose[i + 1]
            and (target := _DESTINATION.match(lines[i + 1])) is not None
        ):
            out[i] = out[i + 1] = (opened["label"], target["url"])
    return out


def link_definitions(text: str) -> dict[str, str]:
    """The ``[label]: url`` definitions of ``text``, by :func:`ref_key` of their label."""
    lines = text.split("\n")
    return _by_label(definition_lines(lines, prose_lines(lines)))


def _by_label(defining: Mapping[int, tuple[str, str]]) -> dict[str, str]:
    """The urls of ``defining``'s definitions by :func:`ref_key` of their label, the
    first one winning."""
    refs: dict[str, str] = {}
    for label, url in defining.values():
        refs.setdefault(ref_key(label), url)
    return refs


def inline_reference(m: re.Match[str], refs: Mapping[str, str]) -> str:
    """One :data:`REFERENCE_LINK` match as an inline link when ``refs`` defines it; else
    its text (``[text][ref]``) or as written (``[U_]``, which names no reference)."""
    ref = m["ref"]
    url = refs.get(ref_key(ref or m["text"]))
    if url is not None:
        return f"[{m['text']}]({url})"
    return m["text"] if ref is not None else m.group(0)


# an inline link's target: "](target)", "](<target>)", "](target "title")"
_INLINE_TARGET = re.compile(r"(\]\(\s*<?)([^)\s>]+)(>?(?:\s+\"[^\"]*\")?\s*\))")


def with_links(markdown: str, links: Sequence[tuple[str, str]]) -> str:
    """``markdown`` with its links pointed elsewhere: ``links`` maps a target as written
    to its address, a reference's ``[label]`` (in brackets) to its address, and a wiki
    link as written (``[[text|Page]]``) to its page's address, where it becomes an inline
    link with the text a reader sees; other links are left as written."""
    if not links:
        return markdown
    wiki = {t: u for t, u in links if t.startswith("[[")}
    targets = {t: u for t, u in links if not t.startswith("[")}
    labels = {
        t[1:-1]: u for t, u in links if t.startswith("[") and t.endswith("]") and t not in wiki
    }

    def wiki_link(m: re.Match[str]) -> str:
        url = wiki.get(m[0])
        if url is None or m["embed"]:
            return m[0]
        return f"[{shown_text(m['inner'], page_half(m['inner'], url))}]({url})"

    if wiki:
        markdown = WIKI_LINK.sub(wiki_link, markdown)

    def inline(m: re.Match[str]) -> str:
        url = targets.get(m[2])
        return f"{m[1]}{url}{m[3]}" if url is not None else m[0]

    def reference(m: re.Match[str]) -> str:
        url = labels.get(ref_key(m["ref"] or m["text"]))
        return f"[{m['text']}]({url})" if url is not None else m[0]

    return sub_references(_INLINE_TARGET.sub(inline, markdown), reference)


def inline_references(text: str) -> str:
    """Reference links as inline ones: ``[text][ref]``, ``[text][]`` and ``[text]`` with
    their ``[ref]: url`` definition in the quote become ``[text](url)`` and the definition
    line goes; ``[text][ref]`` defined elsewhere in the file shows as its text. Code is
    left as it is."""
    lines = text.split("\n")
    prose = prose_lines(lines)
    defining = definition_lines(lines, prose)
    refs = _by_label(defining)
    out: list[str] = []
    run: list[str] = []  # consecutive prose lines: a link's text may wrap between them

    def flush() -> None:
        if run:
            out.append(sub_references("\n".join(run), lambda m: inline_reference(m, refs)))
            run.clear()

    for i, (line, outside) in enumerate(zip(lines, prose, strict=True)):
        if not outside or not line.strip():
            flush()
            out.append(line)
        elif i not in defining:
            run.append(line)
    flush()
    return "\n".join(out)
