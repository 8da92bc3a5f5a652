"""Markdown as documentation site generators extend it, read as CommonMark.

Runbook sites are often built with Hugo, MkDocs or Docusaurus, whose Markdown carries
constructs that plain Markdown (and Slack) show as noise:

- Hugo shortcodes: a link to another page as
  ``[Node RAID Degraded]({{< ref "./NodeRAIDDegraded.md" >}})`` (``ref``, ``relref``),
  code as ``{{< highlight bash >}} … {{< /highlight >}}`` (or a site's own shortcode for
  code, ``{{< text yaml >}}``, ``{{< code-block lang="json" >}}``), a callout as
  ``{{% notice warning %}} … {{% /notice %}}`` (also ``alert``, ``hint``, ``callout``,
  ``admonition`` and shortcodes named after the kind, ``{{< warning >}}``);
- MkDocs (Python-Markdown) admonitions: ``!!! warning "Title"`` (or the collapsible
  ``???`` and ``???+``) over a body indented four spaces;
- Docusaurus and VitePress admonitions: ``:::danger[Title]`` (or ``::: danger Title``)
  … ``:::``, and MDX components on lines of their own: ``<Admonition type="warning">``,
  ``<Tabs>`` with a ``<TabItem label="AWS">`` per tab;
- Hugo's tabs: ``{{< tabs >}}`` with a ``{{< tab name="Ubuntu" >}}`` per tab (``{{% tab
  "Agent v7" %}}``, Docsy's ``{{< tabpane >}}`` and ``{{< tab header="…" >}}``);
- MyST (Sphinx, Jupyter Book) directives, fenced with backticks or colons: an admonition
  as ```` ```{note} ```` or ``:::{warning}`` (``{admonition} Title`` with its own
  title), code as ```` ```{code-block} bash ````, a figure as ```` ```{figure} path ````
  over its caption; their option lines (``:class: tip``) are no text.

:func:`as_markdown` rewrites them as CommonMark: a ref as the path it names (so the
link resolves, and a step that only points at that page is followed like any link),
code as a fenced block, a figure as its image, a callout as a quote that opens with
GitHub's alert marker (``> [!WARNING]``), or with its title in bold for a kind GitHub
has no marker for; a tab (Hugo's or an MDX component) as its label in bold, other
components' tags and the tabs' own dropped.
Fenced code is left as it is. Quotes keep the file's own text; this is for reading it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from core.fences import fence_closes, fence_open

# {{< ref "path" >}}, {{% relref "path#anchor" %}}, {{< ref path="x" >}}, unquoted too
_REF = re.compile(
    r"\{\{([<%])-?\s*(?:rel)?ref\s+(?:path\s*=\s*)?"
    r"(?:\"(?P<dq>[^\"]*)\"|`(?P<bq>[^`]*)`|(?P<bare>[^\s\"`>%}]+))\s*-?[>%]\}\}"
)
# a shortcode alone on its line: {{< name args >}}, {{% /name %}}
_SHORTCODE_LINE = re.compile(
    r"^(?P<indent>[ \t]*)\{\{[<%]-?\s*(?P<close>/)?\s*(?P<name>[\w-]+)"
    r"(?P<args>[^\n]*?)\s*-?[>%]\}\}[ \t]*$"
)
_ARG = re.compile(r"(?:(?P<key>[\w-]+)\s*=\s*)?(?:\"(?P<dq>[^\"]*)\"|(?P<bare>[^\s\"=]+))")
# MkDocs: !!! warning "Title", ??? note, ???+ tip inline end "Title"
_MKDOCS = re.compile(
    r"^(?P<indent>[ \t]*)(?:!!!|\?\?\?\+?)[ \t]*(?P<kind>[\w-]+)(?P<extra>[^\"\n]*?)"
    r"(?:[ \t]*\"(?P<title>[^\"]*)\")?[ \t]*$"
)
# Docusaurus / VitePress: :::danger[Title], ::: warning Title, :::tip{title="Title"}
_COLONS_OPEN = re.compile(
    r"^(?P<indent>[ \t]*)(?P<colons>:{3,})[ \t]*(?P<brace>\{)?(?P<kind>[A-Za-z][\w-]*)(?(brace)\})"
    r"(?:\[(?P<bracket>[^\]\n]*)\]|\{[^}\n]*?title=\"(?P<attr>[^\"]*)\"[^}\n]*\}|\{[^}\n]*\})?"
    r"(?:[ \t]+(?P<title>[^\n]*?))?[ \t]*$"
)
# ERB (a ".md.erb" page): <% if x %>, <%= partial "y" %>, <%# comment %> alone on a line
_ERB_LINE = re.compile(r"^[ \t]*<%[=#-]?.*?-?%>[ \t]*$")
_COLONS_CLOSE = re.compile(r"^[ \t]*(?P<colons>:{3,})[ \t]*$")

_CALLOUT_SHORTCODES = frozenset("notice alert hint callout admonition".split())
# Hugo's tabs (``{{< tabs >}}``, Docsy's ``{{< tabpane >}}``), each ``{{< tab name="Ubuntu" >}}``
_TABS = frozenset("tabs tabpane tab".split())
# a callout's kind as GitHub's alert marker names it; kinds without one get a bold title
KINDS: Mapping[str, str] = MappingProxyType(
    {
        "warning": "WARNING",
        "warn": "WARNING",
        "attention": "WARNING",
        "caution": "CAUTION",
        "danger": "DANGER",
        "error": "DANGER",
        "failure": "DANGER",
        "fail": "DANGER",
        "bug": "DANGER",
        "important": "IMPORTANT",
        "note": "NOTE",
        "info": "INFO",
        "information": "INFO",
        "abstract": "NOTE",
        "summary": "NOTE",
        "tldr": "NOTE",
        "todo": "NOTE",
        "seealso": "NOTE",
        "tip": "TIP",
        "hint": "TIP",
        "success": "TIP",
        "check": "TIP",
    }
)


# GitHub's alert marker at the start of a quote (``> [!WARNING]``), as the callouts above
# are written for every renderer: its kind, and the text after it on its line
_ALERT_MARKER = re.compile(
    r"^\[!(?P<kind>" + "|".join(sorted(set(KINDS.values()), key=len, reverse=True)) + r")\]"
    r"[ \t]*(?P<rest>.*)$",
    re.I,
)


def alert_marker(line: str) -> tuple[str, str] | None:
    """The kind (``"warning"``) and the rest of a quote's first line that opens with
    GitHub's alert marker; the rest without the kind said again ("[!TIP] Tip: use
    queues" is a tip that says "use queues"). None for any other line."""
    m = _ALERT_MARKER.match(line.strip())
    if m is None:
        return None
    kind = m["kind"].lower()
    rest = re.sub(rf"^{kind}\s*:\s*", "", m["rest"], flags=re.I)
    return kind, rest


def as_markdown(text: str, *, jsx: bool = False) -> str:
    """``text`` with site generators' shortcodes and admonitions as CommonMark; ``jsx``
    (an MDX page): its components' tag lines too (in Markdown, "<Namespace>" alone on a
    line is a placeholder, not a component)."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = fence_open(line)
        if fence is not None:
            end = _fence_end(lines, i, fence)
            out.extend(_directive(lines[i:end], fence) or lines[i:end])
            i = end
            continue
        if _ERB_LINE.match(line):  # an ERB tag alone on its line: template logic, no text
            i += 1
            continue
        for convert in (_mkdocs, _colons, _shortcode, *((_jsx,) if jsx else ())):
            done = convert(lines, i)
            if done is not None:
                converted, i = done
                out.extend(converted)
                break
        else:
            out.append(_REF.sub(_ref_target, line))
            i += 1
    return "\n".join(out)


# MyST: ```{name} arguments, whose first lines may be options (":class: tip")
_DIRECTIVE = re.compile(
    r"^(?P<indent>[ \t]*)[`~]{3,}[ \t]*\{(?P<name>[\w-]+)\}[ \t]*(?P<args>.*?)[ \t]*$"
)
_OPTION = re.compile(r"^[ \t]*:[\w-]+:(?:[ \t].*)?$")
_CODE_DIRECTIVES = frozenset(("code", "code-block", "sourcecode"))


def _directive(block: list[str], marker: str) -> list[str] | None:
    """A MyST directive fenced as code (its lines, fences included) as CommonMark: an
    admonition as a callout, code as a fenced block in its language, a figure as its
    image; None for any other fence, which stays as written."""
    m = _DIRECTIVE.match(block[0])
    if m is None:
        return None
    closed = len(block) > 1 and fence_closes(block[-1], marker)
    body = block[1 : -1 if closed else None]
    while body and _OPTION.match(body[0]):
        body = body[1:]
    indent, name, args = m["indent"], m["name"].lower(), m["args"]
    body = [ln[len(indent) :] if ln.startswith(indent) else ln for ln in body]
    if name in _CODE_DIRECTIVES:
        return [f"{indent}```{args}", *(indent + ln for ln in body), f"{indent}```"]
    if name == "figure" and args:
        caption = " ".join(ln.strip() for ln in body if ln.strip())
        return [f"{indent}![{caption}]({args})"]
    if name == "admonition" or name in KINDS:
        return _callout(indent, name, args if name == "admonition" else None, _trimmed(body))
    return None


def _fence_end(lines: list[str], i: int, marker: str) -> int:
    """The index after the line that closes the fence opened on line ``i``."""
    for j in range(i + 1, len(lines)):
        if fence_closes(lines[j], marker):
            return j + 1
    return len(lines)


def _ref_target(m: re.Match[str]) -> str:
    return next(g for g in (m["dq"], m["bq"], m["bare"]) if g is not None)


def _callout(
    indent: str, kind: str, title: str | None, body: list[str], *, jsx: bool = False
) -> list[str]:
    """A callout as a CommonMark quote: its marker (or bold title) and its body."""
    marker = KINDS.get(kind.lower())
    title = (title or "").strip()
    if title.lower() == kind.lower():
        title = ""
    inner = as_markdown("\n".join(body), jsx=jsx).split("\n") if body else []
    while inner and not inner[-1].strip():
        inner.pop()
    if marker is not None:
        head = [f"[!{marker}]" + (f" **{title}**" if title else "")]
    else:  # the title a paragraph of its own
        head = [f"**{title or kind.capitalize()}**", *([""] if inner else [])]
    return [f"{indent}> {ln}".rstrip() for ln in (*head, *inner)]


def _mkdocs(lines: list[str], i: int) -> tuple[list[str], int] | None:
    m = _MKDOCS.match(lines[i])
    if m is None:
        return None
    indent = m["indent"]
    width = len(indent.expandtabs(4)) + 4
    body: list[str] = []
    j = i + 1
    while j < len(lines):
        ln = lines[j]
        if ln.strip() and len(ln.expandtabs(4)) - len(ln.expandtabs(4).lstrip()) < width:
            break
        body.append(ln.expandtabs(4)[width:] if ln.strip() else "")
        j += 1
    while body and not body[-1].strip():  # trailing blank lines are not the admonition's
        body.pop()
        j -= 1
    body = _trimmed(body)
    if not body and not m["title"]:
        return None  # "??? what is this" at the start of a line: prose, not an admonition
    return _callout(indent, m["kind"], m["title"], body), j


def _colons(lines: list[str], i: int) -> tuple[list[str], int] | None:
    m = _COLONS_OPEN.match(lines[i])
    if m is None:
        return None
    width = len(m["colons"])
    j = i + 1
    while j < len(lines):
        fence = fence_open(lines[j])
        if fence is not None:
            j = _fence_end(lines, j, fence)
            continue
        close = _COLONS_CLOSE.match(lines[j])
        if close is not None and len(close["colons"]) == width:
            break
        j += 1
    if j >= len(lines):
        return None  # never closed: not an admonition
    body = [ln[len(m["indent"]) :] if ln.startswith(m["indent"]) else ln for ln in lines[i + 1 : j]]
    while m["brace"] and body and _OPTION.match(body[0]):  # MyST: ":class: tip" is no text
        body = body[1:]
    title = m["bracket"] or m["attr"] or m["title"]
    return _callout(m["indent"], m["kind"], title, _trimmed(body)), j + 1


def _trimmed(body: list[str]) -> list[str]:
    lo, hi = 0, len(body)
    while lo < hi and not body[lo].strip():
        lo += 1
    while hi > lo and not body[hi - 1].strip():
        hi -= 1
    return body[lo:hi]


_BACKTICKS = re.compile(r"`+")


def _code_language(name: str, positional: list[str], named: Mapping[str, str]) -> str | None:
    """The language tag of a shortcode that holds code, or None for any other (a tab, a
    callout): Hugo's ``{{< highlight bash >}}``, a site's own that names its language
    (``{{< code-block lang="yaml" >}}``), or one whose name or first argument is a
    language the Pygments highlighter knows (``{{< text yaml >}}``), or one named ``text``
    (``{{< text plain >}}``: plain text to Pygments). A shortcode named after a markup
    language (``{{< md >}}``) wraps text, not code."""
    given = named.get("lang") or named.get("language")
    if given:
        return given
    first = positional[0] if positional else ""
    if name == "highlight" or (first and _lexer(first)) or _lexer(name) == "TextLexer":
        return first
    return None


@lru_cache(maxsize=256)
def _lexer(alias: str) -> str | None:
    """The Pygments lexer that knows ``alias`` as the name of a language, by class name
    (``TextLexer`` for ``text``: preformatted plain text), or None."""
    from pygments.lexers import find_lexer_class_by_name
    from pygments.util import ClassNotFound

    try:
        return find_lexer_class_by_name(alias.lower()).__name__
    except ClassNotFound:
        return None


def opens_a_tab(block: str) -> bool:
    """Is ``block`` one line that opens a tab (``{{< tab name="RHEL" >}}``) or a set of
    them? Its label names what follows it, so it is never cut from it."""
    m = _SHORTCODE_LINE.match(block.strip())
    return m is not None and not m["close"] and m["name"].lower() in _TABS


def _shortcode(lines: list[str], i: int) -> tuple[list[str], int] | None:
    m = _SHORTCODE_LINE.match(lines[i])
    if m is None:
        return None
    name = m["name"].lower()
    positional, named = _args(m["args"])
    if name in _TABS:  # a tab's label as a bold line; the tabs' own tags are no text
        label = named.get("name") or named.get("header") or named.get("title")
        label = label or (positional[0] if positional else "")
        shown = name == "tab" and not m["close"] and label
        return ([f"{m['indent']}**{label}**"] if shown else []), i + 1
    if m["close"]:
        return None
    closing = re.compile(
        r"^[ \t]*\{\{[<%]-?\s*/\s*" + re.escape(m["name"]) + r"\s*-?[>%]\}\}[ \t]*$"
    )
    j = next((k for k in range(i + 1, len(lines)) if closing.match(lines[k])), None)
    if j is None:
        return None  # a shortcode without a body: left as written
    body = lines[i + 1 : j]
    indent = m["indent"]
    if name in _CALLOUT_SHORTCODES or name in KINDS:
        candidates = [*positional, named.get("type", ""), named.get("color", ""), name]
        if named.get("title"):
            candidates.insert(0, named["title"])
        kind = next((c for c in candidates if c.lower() in KINDS), name)
        # the body is indented as its shortcode is (inside a list item): the quote is
        # indented so, the body's own lines not again
        inner = [ln[len(indent) :] if ln.startswith(indent) else ln for ln in body]
        return _callout(indent, kind, named.get("title"), _trimmed(inner)), j + 1
    lang = _code_language(name, positional, named)
    if lang is not None:
        fence = "`" * max(
            3, 1 + max((len(r) for r in _BACKTICKS.findall("\n".join(body))), default=0)
        )
        return [f"{indent}{fence}{lang}", *body, f"{indent}{fence}"], j + 1
    return None


# a line that is one JSX element's tag (MDX): <Tabs>, <TabItem value="aws" label="AWS">,
# </TabItem>, <Admonition type="warning" title="…">
_JSX_LINE = re.compile(
    r"^(?P<indent>[ \t]*)<(?P<close>/)?(?P<name>[A-Z][a-z][\w.]*)(?P<args>[^<>]*?)/?>[ \t]*$"
)


def _jsx(lines: list[str], i: int) -> tuple[list[str], int] | None:
    """An MDX component's tag line: an ``<Admonition>`` as a callout, a tab's label as a
    bold line, other components' tags dropped (their text stays)."""
    m = _JSX_LINE.match(lines[i])
    if m is None:
        return None
    _positional, named = _args(m["args"])
    if m["name"] == "Admonition" and not m["close"]:
        closing = re.compile(r"^[ \t]*</Admonition>[ \t]*$")
        j = next((k for k in range(i + 1, len(lines)) if closing.match(lines[k])), None)
        if j is not None:
            kind = named.get("type") or "note"
            body = _trimmed(lines[i + 1 : j])
            return _callout(m["indent"], kind, named.get("title"), body, jsx=True), j + 1
    if m["name"] == "TabItem" and not m["close"]:
        label = named.get("label") or named.get("value")
        return ([f"**{label}**"] if label else []), i + 1  # a tab's body is not indented
    return [], i + 1


def _args(text: str) -> tuple[list[str], dict[str, str]]:
    positional: list[str] = []
    named: dict[str, str] = {}
    for m in _ARG.finditer(text):
        value = m["dq"] if m["dq"] is not None else m["bare"]
        if m["key"]:
            named[m["key"].lower()] = value
        elif value:
            positional.append(value)
    return positional, named
