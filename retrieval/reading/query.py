"""Query shaping: alert messages to focused queries, and the acronym glossary.

* :func:`parse_alert_text` pulls the alert name, service, summary and error lines out of
  an Alertmanager or PagerDuty Slack message; :func:`build_query` turns them into a short
  query (alert name first: it matches runbook titles exactly) without timestamps, ids,
  IPs and numeric noise.
* :class:`Glossary` appends expansions of team acronyms ("PG down" -> "PG down
  (PostgreSQL)"); usable as ``ExtractiveAnswerer(rewrite=glossary)``.

The dense side of a query (HyDE) is :mod:`retrieval.search.hyde`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from retrieval.errors import RetrievalError
from retrieval.reading.tokenize import STOPWORDS

# --------------------------------------------------------------------------- alerts


@dataclass(frozen=True)
class AlertContext:
    service: str | None = None
    category: str | None = None
    summary: str | None = None
    evidence: str | None = None
    alert_name: str | None = None
    question: str | None = None


MAX_EVIDENCE_LINES = 3

_ISO_TS = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)?"
    r"(?:\s?(?:Z|[+-]\d{2}:?\d{2}|UTC)\b)?"
)
_CLF_TS = re.compile(r"\[?\d{1,2}/[A-Z][a-z]{2}/\d{4}(?::\d{2}){3}(?:\s[+-]\d{4})?\]?")
_SYSLOG_TS = re.compile(
    r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{1,2}\s+\d{1,2}:\d{2}:\d{2}\b"
)
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:\s?(?:Z|UTC|[AP]M)\b)?")
_UUID = re.compile(
    r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
)
_IPV4 = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?(?:/\d{1,2})?\b")
_EC2_HOST = re.compile(r"\bip-\d{1,3}(?:-\d{1,3}){3}(?:\.[\w-]+)*(?::\d+)?")
_IPV6 = re.compile(r"\b(?:[0-9a-fA-F]{1,4}:){3,7}[0-9a-fA-F]{1,4}\b")
# fields whose values are noise by name: ts=..., trace_id=..., request-id: ...
_NOISE_FIELD = re.compile(
    r"\b(?:ts|time|timestamp|date|trace_?id|span_?id|request_?id|req_?id|correlation_?id|"
    r"x-request-id|caller|pid|tid|thread|goroutine|line|offset|seq)\s*[=:]\s*"
    r"(?:\"[^\"]*\"|'[^']*'|\S+)",
    re.IGNORECASE,
)
_LOG_LEVEL = re.compile(r"\blevel\s*=\s*", re.IGNORECASE)
_URL = re.compile(r"<?https?://\S+", re.IGNORECASE)
_URL_ONLY = re.compile(r"^\s*<?(?:https?:)?//\S+\s*$", re.IGNORECASE)
_HEX_ID = re.compile(r"\b(?:0x)?[0-9a-fA-F]{12,}\b")
_HEX_WITH_DIGIT = re.compile(r"^(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}$")
_POD_SUFFIX = re.compile(r"^([a-z][a-z0-9-]*?)-[a-z0-9]{8,10}-[a-z0-9]{5}$")
_NUMERIC = re.compile(r"^(?=.*\d)[+-]?[\d.,:%/]+(?:[a-zµ]{1,3})?$", re.IGNORECASE)
_SPLIT = re.compile(r"[\s/(){}\[\]\"'`=,;|<>]+")
_STATUS_CODE = re.compile(r"^[45]\d\d$")
_STRIP = "\"'`()[]{}<>,;*_|"
_ERROR_WORDS = re.compile(
    r"\b(?:error|errors|err|fatal|panic|exception|failed|failure|fail|refused|timeout|"
    r"timed out|denied|forbidden|unauthorized|unavailable|cannot|can't|unable|invalid|"
    r"exceeded|too many|oom|oomkilled|killed|crash\w*|backoff|reset|rejected|expired|"
    r"not found|no space|full|unreachable|deadline|broken)\b",
    re.IGNORECASE,
)


def drop_links(text: str) -> str:
    """``text`` without its web links: a pasted dashboard or ticket link is context for a
    person, and its host and path are no words of the question (``grafana.example.com``
    is not a system the question is about). Unchanged when nothing else is left."""
    rest = " ".join(_URL.sub(" ", text).split())
    return rest or text


def _clean_line(line: str) -> str:
    s = _NOISE_FIELD.sub(" ", line)
    s = _LOG_LEVEL.sub("", s)
    for pattern in (
        _URL,
        _ISO_TS,
        _CLF_TS,
        _SYSLOG_TS,
        _UUID,
        _EC2_HOST,
        _IPV6,
        _IPV4,
        _CLOCK,
        _HEX_ID,
    ):
        s = pattern.sub(" ", s)
    return " ".join(s.split())


def _keep_token(tok: str) -> str | None:
    """The token with surrounding punctuation stripped, or None when it is noise."""
    t = tok.strip(_STRIP).rstrip(":.!?=")
    t = t.lstrip(":=")
    if not t or not any(ch.isalnum() for ch in t):
        return None
    if _NUMERIC.match(t) and not _STATUS_CODE.match(t):
        return None
    if _HEX_WITH_DIGIT.match(t.lower()):
        return None
    pod = _POD_SUFFIX.match(t)
    if pod:  # checkout-api-7d9f8b6c5d-x2x7q -> checkout-api
        return pod.group(1)
    return t


def _informative(line: str) -> int:
    """How much an evidence line looks like an error message (higher is better)."""
    score = 3 * len(_ERROR_WORDS.findall(line))
    score += sum(1 for t in line.split() if len(t) > 3 and not t.isdigit())
    return score


def evidence_lines(evidence: str, limit: int = MAX_EVIDENCE_LINES) -> list[str]:
    """The most informative cleaned evidence lines, in their original order."""
    seen: set[str] = set()
    cleaned: list[tuple[int, int, str]] = []
    for i, raw in enumerate(evidence.splitlines()):
        line = _clean_line(raw)
        key = line.lower()
        if not line or key in seen or not re.search(r"[A-Za-z]{3}", line):
            continue
        seen.add(key)
        cleaned.append((_informative(line), i, line))
    best = sorted(cleaned, key=lambda t: (-t[0], t[1]))[:limit]
    return [line for _, _, line in sorted(best, key=lambda t: t[1])]


def build_query(ctx: AlertContext, max_chars: int = 400) -> str:
    """A focused search query from an alert: name, service, question, summary, errors.

    Words are de-duplicated case-insensitively (first occurrence wins); summary, category
    and evidence also lose stopwords. The result is at most ``max_chars`` long.
    """
    parts: list[tuple[str, bool]] = []  # (text, drop stopwords)
    for value, terse in (
        (ctx.alert_name, False),
        (ctx.service, False),
        (ctx.question, False),
        (ctx.summary, True),
        (ctx.category, True),
    ):
        if value:
            parts.append((_clean_line(value), terse))
    if ctx.evidence:
        parts.extend((line, True) for line in evidence_lines(ctx.evidence))
    out: list[str] = []
    seen: set[str] = set()
    length = 0
    for part, terse in parts:
        for raw in _SPLIT.split(part):
            tok = _keep_token(raw)
            if tok is None:
                continue
            key = tok.lower()
            if key in seen or (terse and key in STOPWORDS):
                continue
            extra = len(tok) + (1 if out else 0)
            if length + extra > max_chars:
                return " ".join(out)
            seen.add(key)
            out.append(tok)
            length += extra
    return " ".join(out)


_HEADER = re.compile(
    r"\[(?:FIRING|RESOLVED)(?::\s*\d+)?\]\s*\**\s*(?P<name>[A-Za-z_][\w:.-]*)\**"
    r"(?:\s*\((?P<labels>[^)\n]*)\))?",
    re.IGNORECASE,
)
_PD_HEADER = re.compile(  # PagerDuty: "*Triggered* #48213: AlertName on service"
    r"\b(?i:triggered|acknowledged|resolved|escalated)\b[^:\n]*?:\s*\**\s*"
    r"(?P<name>[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)\b"
    r"(?:\s+(?:on|for|in)\s+`?(?P<service>[a-z][a-z0-9_-]*[a-z0-9])`?)?"
)
_LABEL_PAIR = re.compile(r"\b(?P<key>[a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*\"(?P<value>[^\"\n]*)\"")
_KV_LINE = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9 _./-]{0,40}?)\s*(?::|=)\s*(?P<value>.*)$")
_CAMEL_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*(?:[A-Z][A-Za-z0-9]*)+$")
_BULLET = re.compile(r"^[\s>•\-*·◦‣+]*")
_FENCE = re.compile(r"```(?:[a-z]*\n)?(?P<body>.*?)```", re.DOTALL)

_ALERTNAME_KEYS = {"alertname", "alert_name", "alert name", "alert"}
_SERVICE_KEYS = {
    "service",
    "service_name",
    "svc",
    "app",
    "application",
    "app_kubernetes_io_name",
    "app.kubernetes.io/name",
    "k8s_app",
    "impacted service",
    "affected service",
}
_SUMMARY_KEYS = {"summary", "title", "message"}
_DESCRIPTION_KEYS = {"description", "details", "detail"}
_CATEGORY_KEYS = {"category", "alert_category", "alert category", "type", "alert_type"}
_EVIDENCE_KEYS = {"error", "errors", "log", "logs", "last error", "error message", "exception"}
_NOT_SERVICE = {
    "prod",
    "production",
    "staging",
    "stage",
    "dev",
    "test",
    "qa",
    "critical",
    "warning",
    "info",
    "page",
    "high",
    "low",
    "firing",
    "resolved",
}
_REGION = re.compile(r"^[a-z]{2}-[a-z]+-\d$")


def _plain(line: str) -> str:
    """A Slack line without bullets, bold/italic markers and backticks."""
    s = _BULLET.sub("", line)
    s = s.replace("*", "").replace("`", "")
    s = re.sub(r"(?<!\w)_|_(?!\w)", "", s)  # _italic_, keep snake_case
    s = re.sub(r"<(https?://[^|>]+)\|([^>]+)>", r"\2", s)  # <url|text> -> text
    return s.strip()


def _service_from_values(values: list[str]) -> str | None:
    for v in values:
        v = v.strip(" `'\"").lower()
        if (
            v
            and v not in _NOT_SERVICE
            and not _REGION.match(v)
            and re.fullmatch(r"[a-z][a-z0-9_-]*[a-z0-9]", v)
            and ("-" in v or "_" in v or len(v) > 3)
        ):
            return v
    return None


def parse_alert_text(text: str) -> AlertContext:
    """Alert name, service, summary, category and error lines of a pasted alert message."""
    fields: dict[str, str] = {}
    evidence: list[str] = []
    questions: list[str] = []
    descriptions: list[str] = []
    summaries: list[str] = []

    def put(key: str, value: str) -> None:
        if value and key not in fields:
            fields[key] = value

    for m in _LABEL_PAIR.finditer(text):  # {alertname="X", service="y"}
        key, value = m.group("key").lower(), m.group("value").strip()
        if key == "alertname":
            put("alert_name", value)
        elif key in _SERVICE_KEYS:
            put("service", value)
        elif key in _CATEGORY_KEYS:
            put("category", value)

    header_service: str | None = None
    header = _HEADER.search(text)
    if header:
        put("alert_name_header", header.group("name"))
        if header.group("labels"):
            header_service = _service_from_values(header.group("labels").split())
    pd = _PD_HEADER.search(text)
    if pd:
        put("alert_name_header", pd.group("name"))
        if pd.group("service"):
            header_service = header_service or pd.group("service")

    for fence in _FENCE.finditer(text):
        evidence.extend(ln for ln in fence.group("body").splitlines() if ln.strip())
    outside = _FENCE.sub("\n", text)

    for raw in outside.splitlines():
        line = _plain(raw)
        if not line or _HEADER.search(line) or (pd and pd.group(0).strip() in raw):
            continue
        kv = _KV_LINE.match(line)
        key = kv.group("key").strip().lower() if kv else ""
        value = kv.group("value").strip().strip("`'\"") if kv else ""
        if kv and key in _ALERTNAME_KEYS:
            name = value.partition(" - ")[0]  # "*Alert:* Name - critical"
            name = name.strip()
            if _CAMEL_NAME.match(name) or (key != "alert" and re.fullmatch(r"[\w:.-]+", name)):
                put("alert_name_field" if key != "alert" else "alert_title_name", name)
            elif name:
                summaries.append(name)
        elif kv and key in _SERVICE_KEYS:
            put("service", value)
        elif kv and key in _SUMMARY_KEYS:
            if value:
                summaries.append(value)
        elif kv and key in _DESCRIPTION_KEYS:
            if value:
                descriptions.append(value)
        elif kv and key in _CATEGORY_KEYS:
            put("category", value)
        elif kv and key in _EVIDENCE_KEYS:
            if value:
                evidence.append(value)
        elif line.endswith("?") and not kv:
            questions.append(line)
        elif _ERROR_WORDS.search(line) and not _URL_ONLY.match(value or line):
            evidence.append(line)  # error lines, also "FATAL: ..." or "reason: OOMKilled"
        # anything else (other labels, links, assignees) is not part of the query

    alert_name = (
        fields.get("alert_name")
        or fields.get("alert_name_field")
        or fields.get("alert_name_header")
        or fields.get("alert_title_name")
    )
    summary_parts = list(dict.fromkeys(summaries + descriptions))
    return AlertContext(
        service=fields.get("service") or header_service,
        category=fields.get("category"),
        summary=" — ".join(summary_parts) or None,
        evidence="\n".join(dict.fromkeys(evidence)) or None,
        alert_name=alert_name,
        question=" ".join(questions) or None,
    )


# --------------------------------------------------------------------------- glossary


class GlossaryError(RetrievalError):
    """The glossary file is not a YAML mapping of acronym to expansion."""


_WORD = r"A-Za-z0-9_"


class Glossary:
    """Team acronyms and their expansions; ``expand`` appends the ones a question uses."""

    def __init__(self, entries: dict[str, str] | None = None) -> None:
        self._entries = dict(entries or {})
        self._patterns: list[tuple[re.Pattern[str], str]] = []
        for acronym, expansion in self._entries.items():
            forms = {acronym, acronym.upper()}
            alt = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
            pattern = re.compile(rf"(?<![{_WORD}])(?:{alt})(?![{_WORD}])")
            self._patterns.append((pattern, expansion))

    @property
    def entries(self) -> dict[str, str]:
        return dict(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __bool__(self) -> bool:
        return bool(self._entries)

    def expand(self, question: str) -> str:
        """``"PG down"`` -> ``"PG down (PostgreSQL)"``; whole words, case as written or upper."""
        found: list[str] = []
        lowered = question.lower()
        for pattern, expansion in self._patterns:
            if expansion in found or expansion.lower() in lowered:
                continue
            if pattern.search(question):
                found.append(expansion)
        return f"{question} ({'; '.join(found)})" if found else question

    def __call__(self, question: str) -> str:  # ExtractiveAnswerer(rewrite=glossary)
        return self.expand(question)


def _mark(node: yaml.Node | None, path: Path) -> str:
    line = node.start_mark.line + 1 if node is not None else 1
    return f"{path}:{line}"


def load_glossary(path: Path | None) -> Glossary:
    """``{acronym: expansion}`` from a YAML file; no path or a missing file -> empty."""
    if path is None or not path.exists():
        return Glossary()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GlossaryError(f"{path}: cannot read glossary: {exc}") from exc
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise GlossaryError(f"{path}:{line}: invalid YAML: {problem}") from exc
    if root is None:
        return Glossary()
    if not isinstance(root, yaml.MappingNode):
        raise GlossaryError(f"{_mark(root, path)}: glossary must be a mapping acronym: expansion")
    entries: dict[str, str] = {}
    for key_node, value_node in root.value:
        # raw scalar text: "NO: Norway" stays the acronym "NO", not False
        if not isinstance(key_node, yaml.ScalarNode) or not str(key_node.value).strip():
            raise GlossaryError(f"{_mark(key_node, path)}: acronym must be a plain word")
        acronym = str(key_node.value).strip()
        if re.search(r"\s", acronym):
            raise GlossaryError(f"{_mark(key_node, path)}: acronym {acronym!r} contains spaces")
        if acronym in entries:
            raise GlossaryError(f"{_mark(key_node, path)}: duplicate acronym {acronym!r}")
        if not isinstance(value_node, yaml.ScalarNode) or value_node.tag.endswith(":null"):
            raise GlossaryError(
                f"{_mark(value_node, path)}: expansion of {acronym!r} must be a string"
            )
        expansion = " ".join(str(value_node.value).split())
        if not expansion:
            raise GlossaryError(f"{_mark(value_node, path)}: expansion of {acronym!r} is empty")
        entries[acronym] = expansion
    return Glossary(entries)
