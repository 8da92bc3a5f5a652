"""An alert as an alerting integration posts it in Slack: what fired, where, its runbook.

:func:`parse_alert_post` reads the Slack messages of

* Alertmanager's Slack receiver: the default title ``[FIRING:1] AlertName (label
  values)`` and the usual text templates (``*Alert:*``/``*Description:*``/``*Runbook:*``
  lines, a ``*Details:*`` list of labels, a "Runbook" button);
* Grafana alerting's Slack contact point: the same title, and ``Labels:`` /
  ``Annotations:`` lists of ``- key = value`` lines;
* PagerDuty (``Triggered``/``Resolved`` and the incident title, blocks or attachments);
* Opsgenie (``New alert``/``closed``, ``#id: [source]: AlertName``, fields);

into an :class:`AlertPost`: the alert name, labels, annotations (``runbook_url`` among
them), whether it fires or is resolved, and a fingerprint (the alert name and its sorted
labels) that a re-notification and the resolution of the same alert share.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from bot.slack.messages import is_from_integration
from retrieval.reading import AlertContext, build_query, parse_alert_text

AlertStatus = Literal["firing", "resolved"]
AlertSource = Literal["alertmanager", "grafana", "pagerduty", "opsgenie", "integration"]

MAX_LINES = 400
_STATUS_TAG = re.compile(r"\[\s*(FIRING|RESOLVED)\s*(?::\s*\d+)?\s*\]", re.IGNORECASE)
_TITLE_AFTER_TAG = re.compile(r"\[\s*(?:FIRING|RESOLVED)\s*(?::\s*\d+)?\s*\]\s*(?P<rest>[^\n]*)")
_LINK = re.compile(r"<((?:https?|mailto):[^|>\s]+)(?:\|([^>]*))?>")
_BARE_URL = re.compile(r"https?://[^\s|>)\"'`]+")
_SECTION = re.compile(r"^\W*(labels|annotations|details|common labels|group labels)\W*$", re.I)
_KV = re.compile(r"^(?P<key>[A-Za-z_][\w.\-/]{0,63})\s*(?::|=)\s*(?P<value>.*?)\s*$")
_LABEL_PAIR = re.compile(r"\b(?P<key>[a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*\"(?P<value>[^\"\n]*)\"")
_ALERT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_:.-]*$")
_CAMEL = re.compile(r"^[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*$")
_INCIDENT_PREFIX = re.compile(r"^\s*#\d+\s*[:\-]?\s*")
_SOURCE_PREFIX = re.compile(r"^\s*\[[^\]\n]{1,40}\]\s*:?\s*")
_RESOLVED_WORDS = re.compile(r"\b(?:resolved|closed|recovered|ok)\b", re.IGNORECASE)
_FIRING_WORDS = re.compile(
    r"\b(?:triggered|firing|alerting|new alert|acknowledged|escalated|reassigned|created)\b",
    re.IGNORECASE,
)
_PD_STATUS = re.compile(
    r"(?:^|[\s:*_])(triggered|acknowledged|escalated|reassigned|resolved)(?=[\s:*_#]|$)",
    re.IGNORECASE,
)
_OPSGENIE_STATUS = re.compile(
    r"\b(new alert|alert created|created|closed|acknowledged|escalated)\b", re.I
)
_SUMMARY_KEYS = ("summary", "message", "title", "alert")
_DESCRIPTION_KEYS = ("description", "details", "detail")
_RUNBOOK_KEYS = ("runbook_url", "runbook", "runbookurl", "runbook_link", "playbook")
_SERVICE_KEYS = (
    "service",
    "service_name",
    "app",
    "application",
    "app_kubernetes_io_name",
    "k8s_app",
    "job",
)
#: labels that say how loud, not which alert: left out of nothing, but never a service
_NOT_A_SERVICE = frozenset({"prod", "production", "staging", "critical", "warning", "info"})


@dataclass(frozen=True)
class AlertPost:
    """One alert notification in Slack."""

    source: AlertSource
    status: AlertStatus
    alertname: str | None
    labels: tuple[tuple[str, str], ...] = ()  # sorted
    annotations: tuple[tuple[str, str], ...] = ()
    runbook_url: str | None = None
    title: str = ""  # the notification's headline, as posted
    text: str = ""  # everything the message says, one string
    group_values: tuple[str, ...] = ()  # label values of an Alertmanager title

    @property
    def label_map(self) -> dict[str, str]:
        return dict(self.labels)

    @property
    def annotation_map(self) -> dict[str, str]:
        return dict(self.annotations)

    @property
    def service(self) -> str | None:
        labels = self.label_map
        for key in _SERVICE_KEYS:
            value = labels.get(key)
            if value and value.lower() not in _NOT_A_SERVICE:
                return value
        return None

    @property
    def summary(self) -> str | None:
        notes = self.annotation_map
        found = [notes[k] for k in (*_SUMMARY_KEYS, *_DESCRIPTION_KEYS) if notes.get(k)]
        return " — ".join(dict.fromkeys(found)) or None

    @property
    def fingerprint(self) -> str:
        """The alert name and its sorted labels (or, with no labels in the message, the
        label values of the title), hashed: the same for every notification of one
        alert, firing or resolved."""
        name = (self.alertname or self.title).strip().lower()
        parts = [f"{k}={v}" for k, v in self.labels if k != "alertname"]
        if not parts:
            parts = sorted(v.lower() for v in self.group_values)
        raw = "\x1f".join([name, *parts])
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:24]

    def context(self) -> AlertContext:
        """What the search for this alert's runbook is built from."""
        parsed = parse_alert_text(self.text)
        return AlertContext(
            service=self.service or parsed.service,
            category=parsed.category,
            summary=self.summary or parsed.summary,
            evidence=parsed.evidence,
            alert_name=self.alertname or parsed.alert_name,
        )

    def query(self) -> str:
        """A focused search query: the alert name first, then its service and summary."""
        return build_query(self.context()) or (self.alertname or self.title)


# --------------------------------------------------------------------------- reading


def _plain(text: str) -> str:
    """A Slack line without formatting: bullets, ``*bold*``, backticks; links as their URL
    when the label is an icon or the URL itself, else as the label."""

    def link(m: re.Match[str]) -> str:
        url, label = m.group(1), (m.group(2) or "").strip()
        if not label or label.startswith(":") or label == url:
            return url
        return label

    s = _LINK.sub(link, text)
    s = re.sub(r"^[\s>•\-*·◦‣+]+", "", s)
    s = s.replace("*", "").replace("`", "")
    s = re.sub(r"(?<!\w)_|_(?!\w)", "", s)
    return s.strip()


def _links(text: str) -> Iterator[tuple[str, str]]:
    """(url, label) of every ``<url|label>`` link in Slack text."""
    for m in _LINK.finditer(text):
        yield m.group(1), (m.group(2) or "")


@dataclass
class _Parts:
    """A message's text, line by line, and its buttons."""

    headline: str
    lines: list[str]
    raw: list[str]  # the lines with their Slack links
    buttons: list[tuple[str, str]]  # (text, url)
    names: str  # username, bot profile, footer: who posted it


def _field_lines(title: str, value: str) -> list[str]:
    name = _plain(title).rstrip(":").strip()
    return [f"{name}: {value.strip()}"] if name else [value]


def _collect(message: Mapping[str, Any]) -> _Parts:
    headline = ""
    raw: list[str] = []
    buttons: list[tuple[str, str]] = []
    names = [str(message.get("username") or "")]
    profile = message.get("bot_profile")
    if isinstance(profile, Mapping):
        names.append(str(profile.get("name") or ""))

    def add(text: Any) -> None:
        if text:
            raw.extend(str(text).splitlines())

    add(message.get("text"))
    for att in message.get("attachments") or []:
        if not isinstance(att, Mapping):
            continue
        names.append(str(att.get("footer") or ""))
        names.append(str(att.get("title_link") or ""))
        add(att.get("pretext"))
        if att.get("title"):
            headline = headline or str(att["title"]).strip()
            add(att["title"])
        add(att.get("text"))
        for field in att.get("fields") or []:
            if isinstance(field, Mapping):
                raw.extend(
                    _field_lines(str(field.get("title") or ""), str(field.get("value") or ""))
                )
        for action in att.get("actions") or []:
            if isinstance(action, Mapping) and action.get("url"):
                buttons.append(
                    (str(action.get("text") or action.get("name") or ""), str(action["url"]))
                )
        if not att.get("title") and not att.get("text") and att.get("fallback"):
            add(att["fallback"])
    for block in message.get("blocks") or []:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind in ("section", "header"):
            text = block.get("text")
            if isinstance(text, Mapping) and text.get("text"):
                candidate = str(text["text"])
                if candidate not in raw and candidate != message.get("text"):
                    add(candidate)
                headline = headline or candidate.splitlines()[0].strip()
            for field in block.get("fields") or []:
                if isinstance(field, Mapping) and field.get("text"):
                    head, _, rest = str(field["text"]).partition("\n")
                    raw.extend(_field_lines(head, rest) if rest else [head])
            accessory = block.get("accessory")
            if isinstance(accessory, Mapping) and accessory.get("url"):
                buttons.append((_element_text(accessory), str(accessory["url"])))
        elif kind == "context":
            for element in block.get("elements") or []:
                if isinstance(element, Mapping) and element.get("text"):
                    add(element.get("text"))
        elif kind == "actions":
            for element in block.get("elements") or []:
                if isinstance(element, Mapping) and element.get("url"):
                    buttons.append((_element_text(element), str(element["url"])))
    if not headline:
        headline = next((ln.strip() for ln in raw if ln.strip()), "")
    raw = raw[:MAX_LINES]
    return _Parts(headline, [_plain(ln) for ln in raw], raw, buttons, " ".join(names).lower())


def _element_text(element: Mapping[str, Any]) -> str:
    text = element.get("text")
    if isinstance(text, Mapping):
        return str(text.get("text") or "")
    return str(text or "")


def _source(parts: _Parts) -> AlertSource:
    everything = parts.names + " " + " ".join(parts.lines[:5]).lower()
    for source, marks in (
        ("pagerduty", ("pagerduty",)),
        ("opsgenie", ("opsgenie",)),
        ("grafana", ("grafana",)),
        ("alertmanager", ("alertmanager", "prometheus")),
    ):
        if any(mark in everything for mark in marks):
            return source  # type: ignore[return-value]
    return "integration"


def _status(parts: _Parts, source: AlertSource) -> AlertStatus | None:
    """Firing or resolved: the incident tool's own word first (its incident title may
    still read ``[FIRING:1]`` when it is resolved), then Alertmanager's tag, then a
    ``Status:`` field or a leading word."""
    if source == "pagerduty":
        m = _PD_STATUS.search(" ".join(_plain(ln) for ln in parts.raw[:3]))
        if m is not None:
            return "resolved" if m.group(1).lower() == "resolved" else "firing"
    if source == "opsgenie":
        m = _OPSGENIE_STATUS.search(" ".join(parts.lines[:3]))
        if m is not None:
            return "resolved" if m.group(1).lower() == "closed" else "firing"
    fields = {k.lower(): v for k, v in _pairs(parts.lines)}
    for key in ("status", "state", "incident status"):
        if key in fields:
            value = fields[key]
            if _RESOLVED_WORDS.search(value):
                return "resolved"
            if _FIRING_WORDS.search(value):
                return "firing"
    tag = _STATUS_TAG.search("\n".join(parts.raw[:40]))
    if tag is not None:
        return "resolved" if tag.group(1).lower() == "resolved" else "firing"
    first = " ".join(parts.lines[:2])
    if re.match(r"^\W*(?:resolved|closed)\b", first, re.IGNORECASE):
        return "resolved"
    if re.match(r"^\W*(?:firing|triggered|alerting)\b", first, re.IGNORECASE):
        return "firing"
    return None


def _pairs(lines: list[str]) -> Iterator[tuple[str, str]]:
    for line in lines:
        m = _KV.match(line)
        if m is not None and m.group("value"):
            yield m.group("key").strip(), m.group("value").strip()


_LIST_ITEM = re.compile(r"^(?:\s+|\s*[-•*·◦‣+]\s)")


def _sections(parts: _Parts) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(labels, annotations, other ``key: value`` lines) of a message, by the list each
    ``key: value`` / ``key = value`` item sits under (``Labels:``, ``Details:``,
    ``Annotations:``). A label whose value differs between the alerts of one
    notification is not the group's label and is left out."""
    found: dict[str, list[str]] = {}
    annotations: dict[str, str] = {}
    other: dict[str, str] = {}
    current: str | None = None  # "labels", "annotations" or None
    for raw, line in zip(parts.raw, parts.lines, strict=False):
        heading = _SECTION.match(line)
        m = _KV.match(line)
        if heading is None and m is not None and not m.group("value"):
            heading = _SECTION.match(m.group("key"))
        if heading is not None:
            current = "annotations" if heading.group(1).lower() == "annotations" else "labels"
            continue
        if current is not None and not _LIST_ITEM.match(raw):
            current = None  # the list has ended
        if m is None or not m.group("value"):
            continue
        key, value = m.group("key").strip(), m.group("value").strip()
        if current == "labels":
            found.setdefault(key.lower(), []).append(value)
        elif current == "annotations":
            annotations.setdefault(key.lower(), value)
        elif key.lower() not in ("source", "silence", "dashboard", "panel"):  # Grafana's links
            other.setdefault(key, value)
    for pair in _LABEL_PAIR.finditer("\n".join(parts.lines)):  # {alertname="X", service="y"}
        found.setdefault(pair.group("key").lower(), []).append(pair.group("value"))
    labels = {k: v[0] for k, v in found.items() if len(set(v)) == 1}
    return labels, annotations, other


def _title_name(headline: str) -> tuple[str | None, tuple[str, ...]]:
    """The alert name and the other label values of a ``[FIRING:1] Name (values)`` title,
    or of an incident title (``#48213: Name on service``, ``#12: [Prometheus]: Name``)."""
    plain = _plain(headline)
    m = _TITLE_AFTER_TAG.search(plain)
    rest = m.group("rest") if m is not None else plain
    rest = _SOURCE_PREFIX.sub("", _INCIDENT_PREFIX.sub("", rest))
    if m is None:
        tag = _TITLE_AFTER_TAG.search(rest)
        rest = tag.group("rest") if tag is not None else rest
    values = [v for v in re.split(r"[\s()]+", rest) if v]
    name = next((v for v in values if _CAMEL.match(v)), None)
    if name is None and m is not None and values and _ALERT_NAME.match(values[0]):
        name = values[0]
    others = tuple(v for v in values if v != name and v.lower() not in ("on", "for", "in"))
    return name, others if m is not None else ()


def _runbook_url(
    labels: Mapping[str, str],
    annotations: Mapping[str, str],
    other: Mapping[str, str],
    parts: _Parts,
) -> str | None:
    def url_in(value: str) -> str | None:
        for url, _label in _links(value):
            return url
        m = _BARE_URL.search(value)
        return m.group(0) if m else None

    lowered = {k.lower(): v for k, v in other.items()}
    for source in (annotations, labels, lowered):
        for key in _RUNBOOK_KEYS:
            if source.get(key):
                url = url_in(source[key])
                if url:
                    return url
    for raw in parts.raw:  # "*Runbook:* <url|:notebook:>" keeps its URL only in the raw line
        if re.match(r"^\W*(?:runbook(?:_url)?|playbook)\W*[:=]", raw, re.IGNORECASE):
            url = url_in(raw)
            if url:
                return url
        for url, label in _links(raw):
            if "runbook" in label.lower():
                return url
    for text, url in parts.buttons:
        if "runbook" in text.lower() or "playbook" in text.lower():
            return url
    return None


def parse_alert_post(message: Mapping[str, Any]) -> AlertPost | None:
    """The alert in ``message``, or None when it is no alert from an integration."""
    if not is_from_integration(message):
        return None
    parts = _collect(message)
    source = _source(parts)
    status = _status(parts, source)
    labels, annotations, other = _sections(parts)
    title_name, group_values = _title_name(parts.headline)
    name = labels.get("alertname") or title_name
    if name is None:
        for key in ("alertname", "alert name", "alert"):
            value = other.get(key) or other.get(key.title())
            if value and _CAMEL.match(value.split()[0]):
                name = value.split()[0]
                break
    if name is None:
        name = parse_alert_text("\n".join(parts.lines)).alert_name
    if status is None and name is None:
        return None
    for key, value in other.items():  # "*Alert:* summary", "*Description:* ..." lines
        k = key.lower()
        if k in (*_SUMMARY_KEYS, *_DESCRIPTION_KEYS) and k not in annotations:
            annotations[k] = re.sub(r"\s+-\s+\S+$", "", value) if k == "alert" else value
    if "service" not in labels:
        service = other.get("Service") or other.get("service")
        if service and re.fullmatch(r"[A-Za-z0-9_.-]+", service):
            labels["service"] = service
    if name is not None:
        labels.setdefault("alertname", name)
    return AlertPost(
        source=source,
        status=status or "firing",
        alertname=name,
        labels=tuple(sorted(labels.items())),
        annotations=tuple(sorted(annotations.items())),
        runbook_url=_runbook_url(labels, annotations, other, parts),
        title=parts.headline,
        text="\n".join(parts.lines),
        group_values=group_values,
    )
