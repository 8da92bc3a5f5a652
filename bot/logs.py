"""Logging: JSON lines on stderr, a per-request id, and no secrets in any line.

    configure_logging(settings.log_level, settings.log_format)
    with bind_request_id(new_request_id()) as rid:
        log.info("answered", extra={"state": "answer"})
    # {"ts": "2026-11-29T22:38:59.123Z", "level": "INFO", "logger": "runbook_bot.service",
    #  "msg": "answered", "request_id": "r-0123456789", "state": "answer"}

The request id lives in a :mod:`contextvars` variable: it follows the code that runs in
the ``with`` block (and asyncio tasks started from it), but not new threads. A thread pool
(Slack Bolt runs listeners in one) must bind the id inside the listener.

Every record passes :class:`RedactingFilter` on the handler, which runs the formatted
message, string ``extra`` fields and exception text through
:func:`core.redact.redact`: an engineer pasting a token into a question must not find
it in the log pipeline. Only handlers installed here redact; ``configure_logging`` replaces
the root handlers, so every library logger goes through them.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import secrets
import sys
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import IO, Any

from core.redact import redact

_request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "runbook_bot_request_id", default=None
)

#: Attributes every LogRecord has; anything else on a record came from ``extra``.
_STANDARD_ATTRS = frozenset(vars(logging.LogRecord("x", logging.INFO, "x", 0, "x", None, None))) | {
    "message",
    "asctime",
    "request_id",
    "taskName",
    "color_message",  # uvicorn's ANSI-coloured copy of the message
}
#: Chatty HTTP loggers (one INFO line per request) are kept at WARNING.
_QUIET_LOGGERS = ("httpx", "httpcore", "urllib3", "slack_sdk", "slack_bolt", "uvicorn.access")
_INSTALLED = "_runbook_bot_handler"


# --------------------------------------------------------------------------- request ids


def new_request_id() -> str:
    """``"r-"`` and 10 random hex characters."""
    return "r-" + secrets.token_hex(5)


def current_request_id() -> str | None:
    return _request_id.get()


@contextmanager
def bind_request_id(request_id: str | None = None) -> Iterator[str]:
    """Make ``request_id`` (a new one when None) current for the ``with`` block."""
    rid = request_id or new_request_id()
    token = _request_id.set(rid)
    try:
        yield rid
    finally:
        _request_id.reset(token)


# --------------------------------------------------------------------------- filters


_JSON_ESCAPE = re.compile(r"""\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))""")
_SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}


def _unescape(match: re.Match[str]) -> str:
    if match.group(1) is None:
        return _SIMPLE_ESCAPES[match.group(2)]
    code = int(match.group(1), 16)
    return "?" if 0xD800 <= code <= 0xDFFF else chr(code)


def scrub_text(text: str) -> str:
    """``text`` redacted; a JSON body inside it (bolt logs response bodies with ``\\u201c``
    and ``\\"`` escapes, which hide a label from the patterns) is read unescaped too."""
    redacted = redact(text)
    if "\\" not in text:
        return redacted
    plain = _JSON_ESCAPE.sub(_unescape, text)
    unescaped = redact(plain)
    return unescaped if unescaped != plain else redacted


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, Mapping):
        return {k: _scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_scrub(v) for v in value]
    return value


class RedactingFilter(logging.Filter):
    """Replaces secrets in the message, ``extra`` strings and exception text.

    The message is formatted here (``msg % args``) and stored back without ``args``, so
    a secret passed as an argument is caught too. Never drops a record.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: keep what there is
            message = f"{record.msg!s} {record.args!r}"
        record.msg = scrub_text(message)
        record.args = None
        for key, value in list(vars(record).items()):
            if key not in _STANDARD_ATTRS:
                setattr(record, key, _scrub(value))
        if record.exc_info and not record.exc_text:
            record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        if record.exc_text:
            record.exc_text = scrub_text(record.exc_text)
        if record.stack_info:
            record.stack_info = scrub_text(record.stack_info)
        return True


class RequestIdFilter(logging.Filter):
    """Sets ``record.request_id`` from the context unless ``extra`` already set it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = _request_id.get()
        return True


# --------------------------------------------------------------------------- formatters


def _timestamp(created: float) -> str:
    dt = datetime.fromtimestamp(created, tz=UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg, request_id, extra fields, exc."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": _timestamp(record.created),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        rid = getattr(record, "request_id", None)
        if rid:
            out["request_id"] = rid
        for key, value in vars(record).items():
            if key not in _STANDARD_ATTRS and key not in out:
                out[key] = _jsonable(value)
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(self.formatException(record.exc_info))
        if record.exc_text:
            out["exc"] = record.exc_text
        if record.stack_info:
            out["stack"] = record.stack_info
        return json.dumps(out, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """``ts LEVEL logger [request id] message key=value ...`` for a terminal."""

    def format(self, record: logging.LogRecord) -> str:
        rid = getattr(record, "request_id", None)
        parts = [_timestamp(record.created), record.levelname, record.name]
        if rid:
            parts.append(f"[{rid}]")
        parts.append(record.getMessage())
        extras = [f"{k}={v}" for k, v in vars(record).items() if k not in _STANDARD_ATTRS]
        line = " ".join(parts + extras)
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(self.formatException(record.exc_info))
        if record.exc_text:
            line += "\n" + record.exc_text
        if record.stack_info:
            line += "\n" + record.stack_info
        return line


# --------------------------------------------------------------------------- setup


def configure_logging(level: str, fmt: str = "json", stream: IO[str] | None = None) -> None:
    """Send every logger's records to ``stream`` (default: stderr), redacted.

    ``level`` is a level name (``"INFO"``, ``"debug"``); ``fmt`` is ``"json"`` or
    ``"text"``. Calling it again replaces the handler installed by the previous call.
    """
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        raise ValueError(f"unknown log level {level!r}")
    if fmt not in ("json", "text"):
        raise ValueError(f"unknown log format {fmt!r} (json or text)")
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.addFilter(RequestIdFilter())
    handler.addFilter(RedactingFilter())
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    setattr(handler, _INSTALLED, True)

    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        if getattr(old, _INSTALLED, False):
            old.close()
    root.addHandler(handler)
    root.setLevel(numeric)
    for name in _QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(numeric, logging.WARNING))
    logging.captureWarnings(True)
