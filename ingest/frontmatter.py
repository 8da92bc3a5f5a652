"""Document metadata: YAML front matter and the ``Service: x`` header-line style."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import yaml

from ingest.errors import MalformedDocumentError

HEADER_LINE_SCAN = 25
_HEADER_LINE = re.compile(
    r"^\s*(?:[-*]\s+)?(?:\*\*|__)?(?P<key>service|owner|owners|updated|last[ _-]?reviewed|"
    r"last[ _-]?updated|status|access|doc[ _-]?type|review[ _-]?every|superseded[ _-]?by)"
    r"(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(?P<value>.+?)\s*$",
    re.IGNORECASE,
)
_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$")
_SUPERSEDED_TEXT = re.compile(
    r"\b(superseded|replaced)\s+by\s+\[?(?P<what>[^\]\n.;,()]+)", re.IGNORECASE
)
_DURATION = re.compile(r"^\s*(\d+)\s*([dwmy]?)\s*$", re.IGNORECASE)
_UNIT_DAYS = {"": 1, "d": 1, "w": 7, "m": 30, "y": 365}


@dataclass(frozen=True)
class FrontMatter:
    fields: dict[str, Any]
    body_start: int  # character offset where the body begins


def split_front_matter(text: str, path: str) -> FrontMatter:
    """YAML front matter between ``---`` lines at the very top, if any."""
    start = 1 if text.startswith("\ufeff") else 0
    if not text.startswith("---", start):
        return FrontMatter({}, 0)
    first_nl = text.find("\n", start)
    if first_nl == -1 or text[start:first_nl].strip() != "---":
        return FrontMatter({}, 0)
    pos = first_nl + 1
    while True:
        nl = text.find("\n", pos)
        line = text[pos : nl if nl != -1 else len(text)]
        if line.strip() in ("---", "..."):
            block = text[first_nl + 1 : pos]
            end = nl + 1 if nl != -1 else len(text)
            break
        if nl == -1:
            raise MalformedDocumentError(path, "front matter is not closed with '---'", 1)
        pos = nl + 1
    try:
        data = yaml.safe_load(block) if block.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line_no = mark.line + 2 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise MalformedDocumentError(
            path, f"invalid YAML front matter: {problem}", line_no
        ) from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise MalformedDocumentError(path, "front matter must be a YAML mapping", 2)
    return FrontMatter({str(k).lower(): v for k, v in data.items()}, end)


def header_lines(body: str) -> dict[str, str]:
    """``Service: x`` / ``Owner: y`` lines near the top of the body."""
    found: dict[str, str] = {}
    for line in body.splitlines()[:HEADER_LINE_SCAN]:
        m = _HEADER_LINE.match(line)
        if m:
            key = re.sub(r"[ _-]", "_", m.group("key").lower())
            found.setdefault(key, m.group("value").strip().strip("`"))
    return found


def first_h1(body: str) -> str | None:
    in_fence = False
    for line in body.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if not in_fence:
            m = _H1.match(line)
            if m:
                return m.group(1).strip()
    return None


def superseded_by_text(body: str) -> str | None:
    m = _SUPERSEDED_TEXT.search(body[:4000])
    return m.group("what").strip() if m else None


def parse_date(value: object, path: str, key: str) -> date | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value).strip()
    for candidate in (text, text[:10]):
        try:
            return date.fromisoformat(candidate)
        except ValueError:
            continue
    raise MalformedDocumentError(path, f"{key}: {text!r} is not a date (use YYYY-MM-DD)")


def parse_duration_days(value: object, path: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, int):
        return value
    m = _DURATION.match(str(value))
    if not m:
        raise MalformedDocumentError(
            path, f"review_every: {value!r} is not a duration (e.g. 90d, 12w, 6m, 1y)"
        )
    return int(m.group(1)) * _UNIT_DAYS[m.group(2).lower()]


def as_list(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        items = [v for v in re.split(r"[,\s]+", value.strip("[] ")) if v]
    elif isinstance(value, list | tuple | set):
        items = [str(v) for v in value if v is not None]
    else:
        items = [str(value)]
    return tuple(i.strip().strip("'\"") for i in items if i.strip())
