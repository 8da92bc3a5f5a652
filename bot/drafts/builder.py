"""A runbook drafted from an incident thread, as Markdown the ingest accepts.

The draft is built only from what the thread says, in the thread's order:

* front matter: the title (the question or the alert's name), ``service``, ``alerts``,
  ``owner``, ``updated``, ``review_every`` and, for a restricted channel, ``access``;
* **Symptoms**: the alert's text and labels, and the error lines people posted;
* **Diagnosis** and **Mitigation**: every command and code block, each attributed to who
  posted it and linked to its message (a command that changes something is a
  mitigation, one that looks is a diagnosis), and the sentences that state a finding
  ("root cause was …") or a fix ("fixed by …") as prose;
* **Escalation**: the people and user groups who were pulled in.

A section the thread says nothing for holds a ``TODO`` naming what is missing: no step
is ever invented. Everything passes through the redaction the query log uses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import yaml

from bot.drafts.thread import Subject, ThreadMessage
from bot.drafts.words import DraftWords, draft_words
from core.redact import redact

_CODE_BLOCK = re.compile(r"```[ \t]*\n?(.*?)```", re.S)
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_PROMPT = re.compile(r"^\s*[$#>]\s+")
_MAX_ERROR_LINES = 12
_MAX_LINE = 300
_DESCRIPTION = 160

NO_DIAGNOSIS = (
    "TODO: the thread has no command or finding for diagnosing this. "
    "Write how to confirm the problem before merging."
)
NO_MITIGATION = (
    "TODO: the thread has no command or fix for this. "
    "Write the steps that mitigate it before merging."
)
NO_ESCALATION = "TODO: nobody was pulled into the thread. Name who to call when this fails."
NO_SYMPTOMS = "TODO: the thread has no alert or error line. Describe what is seen."


@dataclass(frozen=True)
class Step:
    """A command or code block someone posted, or a sentence stating a finding or fix."""

    kind: str  # "code", "inline" or "prose"
    text: str  # the code, or the line as written
    description: str  # the words around it ("" for none)
    author: str
    link: str | None
    changing: bool


@dataclass(frozen=True)
class DraftSections:
    """What the thread gave each section (for a preview and for tests)."""

    symptoms: tuple[str, ...]
    diagnosis: tuple[Step, ...]
    mitigation: tuple[Step, ...]
    escalation: tuple[str, ...]


@dataclass(frozen=True)
class Draft:
    subject: Subject
    markdown: str
    sections: DraftSections


def build_draft(
    messages: Sequence[ThreadMessage],
    subject: Subject,
    *,
    today: date,
    words: DraftWords | None = None,
) -> Draft:
    """The runbook ``messages`` (in thread order) make for ``subject``."""
    w = words or draft_words()
    symptoms: list[str] = []
    steps: list[Step] = []
    pulled: list[str] = []
    for message in messages:
        if message.integration:
            symptoms.extend(_error_lines(message.text, w))
            continue
        steps.extend(_steps(message, w))
        for label, kind in message.mentions:
            entry = _escalation_line(label, kind, message)
            if entry not in pulled and not any(p.startswith(_who(label, kind)) for p in pulled):
                pulled.append(entry)
        for m in _CODE_BLOCK.finditer(message.text):  # pasted output: its error lines
            if not any(_is_command(ln, w) for ln in m.group(1).splitlines()):
                symptoms.extend(_error_lines(m.group(1), w))
        prose = _CODE_BLOCK.sub("\n", message.text)
        symptoms.extend(
            line.replace("`", "")
            for line in _error_lines(prose, w)
            if not _is_conclusion(line, w)
            and not any(_is_command(c, w) for c in _INLINE_CODE.findall(line))
        )
    symptoms = list(dict.fromkeys(redact(s) for s in symptoms))[:_MAX_ERROR_LINES]
    sections = DraftSections(
        symptoms=tuple(symptoms),
        diagnosis=tuple(s for s in steps if not s.changing),
        mitigation=tuple(s for s in steps if s.changing),
        escalation=tuple(pulled),
    )
    text = _markdown(subject, sections, today)
    return Draft(subject=subject, markdown=redact(text), sections=sections)


# --------------------------------------------------------------------------- reading


def _is_command(line: str, w: DraftWords) -> bool:
    stripped = _PROMPT.sub("", line).strip()
    if not stripped:
        return False
    first = stripped.split()[0]
    return first in w.commands or first.upper() in w.commands or bool(_PROMPT.match(line))


def _changes(code: str, w: DraftWords) -> bool:
    tokens = re.findall(r"[A-Za-z_][A-Za-z0-9_-]*", code.lower())
    return any(t in w.changing for t in tokens)


def _is_conclusion(line: str, w: DraftWords) -> bool:
    low = line.lower()
    return any(p in low for p in (*w.finding, *w.fix))


def _is_fix(line: str, w: DraftWords) -> bool:
    low = line.lower()
    return any(p in low for p in w.fix)


def _error_lines(text: str, w: DraftWords) -> list[str]:
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if line and any(e in line.lower() for e in w.error_words):
            out.append(line[:_MAX_LINE])
    return out


def _steps(message: ThreadMessage, w: DraftWords) -> list[Step]:
    """The commands, code blocks and conclusions of one message, in its order."""
    text = message.text
    prose = [ln.strip() for ln in _CODE_BLOCK.sub("\n", text).splitlines() if ln.strip()]
    plain = [ln for ln in prose if not _INLINE_CODE.search(ln) and not _is_conclusion(ln, w)]
    description = _clip(plain[0]) if plain else ""
    found: list[tuple[int, Step]] = []
    for m in _CODE_BLOCK.finditer(text):
        code = m.group(1).strip("\n")
        if not code.strip():
            continue
        lines = [ln for ln in code.splitlines() if ln.strip()]
        commands = any(_is_command(ln, w) for ln in lines)
        if not commands and _error_lines(code, w):
            continue  # output someone pasted: its error lines are symptoms
        step = Step(
            "code", code, description, message.author, message.link, _changes(code, w) and commands
        )
        found.append((m.start(), step))
    offset = 0
    rest = _CODE_BLOCK.sub(lambda m: " " * len(m.group(0)), text)
    for raw in rest.splitlines(keepends=True):
        line = raw.strip()
        start = offset
        offset += len(raw)
        if not line:
            continue
        codes = [c for c in _INLINE_CODE.findall(line) if _is_command(c, w)]
        if codes:
            changing = any(_changes(c, w) for c in codes)
            found.append((start, Step("inline", line, "", message.author, message.link, changing)))
        elif _is_conclusion(line, w):
            fix = _is_fix(line, w)
            found.append((start, Step("prose", line, "", message.author, message.link, fix)))
    return [step for _, step in sorted(found, key=lambda pair: pair[0])]


def _who(label: str, kind: str) -> str:
    return f"- {label}" + (" (user group)" if kind == "group" else "")


def _escalation_line(label: str, kind: str, message: ThreadMessage) -> str:
    by = f", pulled in by {message.author}" if message.author else ""
    link = _link(message.link)
    return _who(label, kind) + by + (f" ({link})" if link else "")


# --------------------------------------------------------------------------- writing


def _clip(text: str, limit: int = _DESCRIPTION) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _link(url: str | None) -> str:
    return f"[message]({url})" if url else ""


def _safe_prose(text: str) -> str:
    """A line of chat as one Markdown paragraph line: no heading, rule or fence."""
    text = " ".join(text.split())
    if re.match(r"^(#|[-*_=]{3,}|~~~|```|\d+[.)]\s|[-*+]\s|>)", text):
        text = "\\" + text
    return text


def _fence(code: str) -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}|~{3,}", code)), default=2)
    return "`" * max(3, longest + 1)


def _attribution(step: Step) -> str:
    link = _link(step.link)
    return (step.author or "someone") + (f", {link}" if link else "")


def _step_lines(n: int, step: Step) -> list[str]:
    if step.kind == "code":
        lead = f"{_safe_prose(step.description)} " if step.description else "Posted "
        fence = _fence(step.text)
        body = [f"   {ln}" if ln.strip() else "" for ln in step.text.splitlines()]
        return [
            f"{n}. {lead}({_attribution(step)}):",
            "",
            f"   {fence}",
            *body,
            f"   {fence}",
        ]
    return [f"{n}. {_safe_prose(step.text)} ({_attribution(step)})"]


def _front_matter(subject: Subject, today: date) -> str:
    fields: dict[str, object] = {"title": subject.title}
    if subject.service:
        fields["service"] = subject.service
    if subject.alert is not None and subject.alert.name:
        fields["alerts"] = [subject.alert.name]
    if subject.owner:
        fields["owner"] = subject.owner
    fields["updated"] = today
    fields["review_every"] = subject.review_every
    if subject.access:
        fields["access"] = list(subject.access)
    dumped = yaml.safe_dump(fields, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{dumped}---\n"


def _section(title: str, lines: list[str], missing: str) -> list[str]:
    return [f"## {title}", "", *(lines or [missing]), ""]


def _markdown(subject: Subject, sections: DraftSections, today: date) -> str:
    out = [_front_matter(subject, today), f"# {_safe_prose(subject.title)}", ""]
    origin = (
        f"Drafted from [the incident thread]({subject.thread_url})"
        if subject.thread_url
        else "Drafted from an incident thread"
    )
    out += [f"{origin} on {today.isoformat()}: check every step before relying on it.", ""]
    if subject.question:
        out += [f"Asked before this runbook existed: “{_safe_prose(subject.question)}”", ""]

    symptoms: list[str] = []
    alert = subject.alert
    if alert is not None:
        status = f" ({alert.status})" if alert.status else ""
        symptoms.append(f"- Alert `{alert.name}`{status}")
        if alert.text:
            symptoms.append(f"  - {_safe_prose(_clip(alert.text, _MAX_LINE))}")
        if alert.labels:
            labels = ", ".join(f"`{k}={v}`" for k, v in alert.labels)
            symptoms.append(f"  - Labels: {labels}")
    if sections.symptoms:
        symptoms += ["", "Error lines from the thread:", ""]
        symptoms += [f"> {_safe_prose(line)}  " for line in sections.symptoms]
    out += _section("Symptoms", symptoms, NO_SYMPTOMS)

    for title, steps, missing in (
        ("Diagnosis", sections.diagnosis, NO_DIAGNOSIS),
        ("Mitigation", sections.mitigation, NO_MITIGATION),
    ):
        lines: list[str] = []
        for n, step in enumerate(steps, 1):
            lines += _step_lines(n, step)
            lines.append("")
        out += _section(title, lines[:-1] if lines else [], missing)

    out += _section("Escalation", list(sections.escalation), NO_ESCALATION)
    return "\n".join(out).rstrip() + "\n"
