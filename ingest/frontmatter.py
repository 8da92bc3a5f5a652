"""Document metadata: front matter (YAML between ``---`` lines, or TOML between ``+++``
lines as Hugo writes it) and the ``Service: x`` header-line style."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import yaml

from ingest.errors import MalformedDocumentError

HEADER_LINE_SCAN = 25
_HEADER_LINE = re.compile(
    r"^\s*(?:[-*]\s+)?:?(?:\*\*|__)?(?P<key>service|owner|owners|owned[ _-]?by|"
    r"owning[ _-]?team|team that owns(?: (?:the|this) \w+)?|team|maintainers?|updated|"
    r"last[ _-]?reviewed|"
    r"last[ _-]?updated|status|access|doc[ _-]?type|review[ _-]?every|superseded[ _-]?by)"
    r"(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(?P<value>.+?)\s*$",
    re.IGNORECASE,
)
_SUPERSEDED_TEXT = re.compile(
    r"\b(superseded|replaced)\s+by\s+\[?(?P<what>[^\]\n.;,()]+)", re.IGNORECASE
)
_DURATION = re.compile(r"^\s*(\d+)\s*([dwmy]?)\s*$", re.IGNORECASE)
_UNIT_DAYS = {"": 1, "d": 1, "w": 7, "m": 30, "y": 365}


@dataclass(frozen=True)
class FrontMatter:
    fields: dict[str, Any]
    body_start: int  # character offset where the body begins (after a byte order mark)
    lines: dict[str, int] = field(default_factory=dict)  # key -> 1-based line in the file


class _AliasError(yaml.MarkedYAMLError):
    pass


class _FrontMatterLoader(yaml.SafeLoader):
    """The safe loader without anchors and aliases: an alias can expand a few hundred
    bytes into gigabytes ("billion laughs"), and runbook metadata never needs one."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise _AliasError(
                problem="YAML anchors and aliases are not allowed in front matter",
                problem_mark=event.start_mark,
            )
        return super().compose_node(parent, index)


def _load(block: str) -> tuple[Any, dict[str, int]]:
    loader = _FrontMatterLoader(block)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key, _value in node.value:
            lines.setdefault(str(key.value).lower(), key.start_mark.line)
    return data, lines


def _block(text: str, start: int, path: str, fence: str) -> tuple[str, int] | None:
    """The front matter block opened by a ``fence`` line at ``start`` and where the body
    begins after its closing line; None when the text does not open with one."""
    if not text.startswith(fence, start):
        return None
    first_nl = text.find("\n", start)
    if first_nl == -1 or text[start:first_nl].strip() != fence:
        return None
    closers = (fence, "...") if fence == "---" else (fence,)
    pos = first_nl + 1
    while True:
        nl = text.find("\n", pos)
        line = text[pos : nl if nl != -1 else len(text)]
        if line.strip() in closers:
            return text[first_nl + 1 : pos], nl + 1 if nl != -1 else len(text)
        if nl == -1:
            raise MalformedDocumentError(path, f"front matter is not closed with '{fence}'", 1)
        pos = nl + 1


_TOML_KEY = re.compile(r"^\s*(?P<key>[A-Za-z0-9_-]+)\s*=")
_TOML_LINE = re.compile(r"\(at line (\d+)")


def _toml(block: str, end: int, path: str) -> FrontMatter:
    import tomllib  # only for the rare TOML block: a cold `ask` does not pay for it

    try:
        data = tomllib.loads(block)
    except tomllib.TOMLDecodeError as exc:
        m = _TOML_LINE.search(str(exc))
        line_no = int(m.group(1)) + 1 if m else 1
        problem = str(exc).split(" (at ")[0]
        raise MalformedDocumentError(
            path, f"invalid TOML front matter: {problem}", line_no
        ) from exc
    lines: dict[str, int] = {}
    for n, line in enumerate(block.splitlines(), start=2):
        if line.lstrip().startswith("["):
            break  # a table: its keys are not top-level fields
        km = _TOML_KEY.match(line)
        if km:
            lines.setdefault(km.group("key").lower(), n)
    return FrontMatter({str(k).lower(): v for k, v in data.items()}, end, lines)


def split_front_matter(text: str, path: str) -> FrontMatter:
    """Front matter at the very top, if any: YAML between ``---`` lines or TOML between
    ``+++`` lines."""
    start = 1 if text.startswith("\ufeff") else 0
    toml = _block(text, start, path, "+++")
    if toml is not None:
        return _toml(*toml, path)
    yaml_block = _block(text, start, path, "---")
    if yaml_block is None:
        return FrontMatter({}, start)
    block, end = yaml_block
    try:
        data, key_lines = _load(block) if block.strip() else ({}, {})
    except _AliasError as exc:
        line_no = exc.problem_mark.line + 2 if exc.problem_mark is not None else 1
        raise MalformedDocumentError(path, str(exc.problem), line_no) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line_no = mark.line + 2 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise MalformedDocumentError(
            path, f"invalid YAML front matter: {problem}", line_no
        ) from exc
    except RecursionError as exc:
        raise MalformedDocumentError(path, "front matter is nested too deeply", 1) from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise MalformedDocumentError(path, "front matter must be a YAML mapping", 2)
    lines = {k: n + 2 for k, n in key_lines.items()}
    return FrontMatter({str(k).lower(): v for k, v in data.items()}, end, lines)


_MD_LINK = re.compile(r"!?\[(?P<text>[^\]\n]*)\]\([^)\n]*\)")
_MD_MARKS = re.compile(r"\*\*|__|`")


def header_lines(body: str) -> dict[str, str]:
    """``Service: x`` / ``Owner: y`` lines near the top of the body, their values as text:
    ``Owner: [Gitaly Team](https://…)`` is owned by "Gitaly Team", and so is a runbook
    that lists "Team that owns the service: [Gitaly Team](https://…)"."""
    found: dict[str, str] = {}
    for line in body.splitlines()[:HEADER_LINE_SCAN]:
        m = _HEADER_LINE.match(line)
        if m:
            key = re.sub(r"[ _-]", "_", m.group("key").lower())
            if key.startswith("team_that_owns"):  # "Team that owns the service: X"
                key = "owning_team"
            value = _MD_MARKS.sub("", _MD_LINK.sub(lambda x: x["text"], m.group("value")))
            found.setdefault(key, value.strip())
    return found


def header_names(value: str) -> tuple[str, ...]:
    """The names of a header line's value: "Gitaly Team" is one name; "@a, @b", "@a and
    @b" and "@a @b" (handles) are two."""
    out: list[str] = []
    for part in re.split(r",|;|\s+and\s+|\s+&\s+", value):
        words = part.split()
        if words and all(w.startswith(("@", "#")) for w in words):
            out.extend(words)
        elif words:
            out.append(" ".join(words))
    return tuple(out)


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
