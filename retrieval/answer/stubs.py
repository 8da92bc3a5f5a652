"""Sections not written yet: a template's headings with nothing (or "TODO") under them."""

from __future__ import annotations

import re

_COMMENT = re.compile(r"<!--.*?-->", re.S)
_STUB_MARK = re.compile(r"^[\W_]*(todo|tbd|tba|fixme|wip|n/?a|coming soon)\b", re.I)
# a template's prompt left in a list item: "- > Basic troubleshooting order"
_PROMPT = re.compile(r"^\s*[-*+]\s+>")
# a table of contents the site renders: "**Table of Contents**", "[TOC]", "[[_TOC_]]"
_TOC = re.compile(
    r"^\s*(?:\[\[?_?toc_?\]\]?|\{:toc\}|(?:\*\*|__)?table of contents:?(?:\*\*|__)?)\s*$", re.I
)


def _lines(body: str) -> list[str]:
    """The section's written lines: no comments, blank lines or rendered contents."""
    return [ln for ln in _COMMENT.sub("", body).splitlines() if ln.strip() and not _TOC.match(ln)]


def stub(body: str) -> bool:
    """A section not written yet: empty (or only a table of contents the site renders),
    a comment, one line that says "TODO" or "TBD" ("TODO: Command needed"), or nothing
    but a template's prompts ("- > Basic troubleshooting order"). Quoted, it would show
    an engineer nothing to do."""
    lines = _lines(body)
    if not any(ch.isalnum() for ln in lines for ch in ln):
        return True
    if all(_PROMPT.match(ln) for ln in lines):
        return True
    return len(lines) == 1 and bool(_STUB_MARK.match(lines[0]))


def without_trailing_prompts(text: str) -> str:
    """``text`` without the template's prompts left after what was written ("- > Describe
    the expected behavior of the metric"), unless nothing else is written."""
    lines = text.rstrip().split("\n")
    end = len(lines)
    while end > 1 and (not lines[end - 1].strip() or _PROMPT.match(lines[end - 1])):
        end -= 1
    kept = "\n".join(lines[:end]).rstrip()
    return kept if any(ch.isalnum() for ch in kept) and not stub(kept) else text.rstrip()
