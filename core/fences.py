"""Markdown's fenced code blocks: where one opens and what closes it (CommonMark).

A fence is three or more backticks or tildes; a backtick fence's info string has no
backtick, and only a bare fence of the same character, at least as long, closes it, so
a ```` block can show a ``` block inside it.
"""

from __future__ import annotations

import re

_FENCE_OPEN = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
_FENCE_CLOSE = re.compile(r"^\s*(`{3,}|~{3,})\s*$")


def fence_open(line: str) -> str | None:
    """The fence marker (```` ``` ````, ``~~~~``) a line opens a code block with, or None."""
    m = _FENCE_OPEN.match(line)
    if m is None or (m.group(1)[0] == "`" and "`" in m.group(2)):
        return None
    return m.group(1)


def fence_closes(line: str, marker: str) -> bool:
    """Does ``line`` close the code block opened with ``marker``?"""
    m = _FENCE_CLOSE.match(line)
    return m is not None and m.group(1)[0] == marker[0] and len(m.group(1)) >= len(marker)
