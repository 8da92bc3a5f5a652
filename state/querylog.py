"""The query log: what was asked, how it was answered, and what people thought of it.

Questions are stored redacted (:func:`core.redact.redact`) and users as salted
hashes. :func:`build_record` and :func:`build_feedback` redact on the way in, and both
logs redact again when they serialize (redaction is idempotent), so a record built by
hand cannot put raw text in storage either.

Records and feedback may carry the access groups of each runbook the answer cited
(``cited_access``), so a report shows a row that stems from a restricted answer only to
people who may read that runbook, even after the runbook has left the index.

Writing never fails a request: a storage error is logged once per outage and the
record dropped. Reading (reports) raises :class:`QueryLogError` instead of returning
an empty list that would look like "nobody asked anything".
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import logging
import os
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, TypeVar, get_args

import redis
from pydantic import TypeAdapter, ValidationError

from core.health import DEFAULT_RETRY_AFTER_SECONDS, ServiceHealth
from core.redact import redact
from state.client import REDIS_ERRORS
from state.errors import QueryLogError
from state.fail_soft import FailSoftRedis
from state.keys import DEFAULT_NAMESPACE
from state.private_file import open_private

log = logging.getLogger("runbook_bot.querylog")

FeedbackValue = Literal["helpful", "not_helpful"]
DAY_SECONDS = 86_400
_XRANGE_PAGE = 500
_JSON_FIELD = "json"


@dataclass(frozen=True, kw_only=True)
class QueryRecord:
    request_id: str
    ts: float  # epoch seconds
    user_hash: str
    channel: str | None
    scope_id: str
    question: str  # redacted
    state: str
    reason: str | None = None
    cited: tuple[str, ...] = ()  # source ids
    latencies_ms: dict[str, float] = field(default_factory=dict, hash=False)
    cache_hit: bool = False
    service: str | None = None
    #: source id -> the access groups of that cited runbook when it was answered from
    cited_access: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, kw_only=True)
class Feedback:
    request_id: str
    ts: float  # epoch seconds
    user_hash: str
    value: FeedbackValue
    question: str  # redacted
    service: str | None = None
    cited: tuple[str, ...] = ()
    #: source id -> the access groups of that cited runbook (see QueryRecord)
    cited_access: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False)


def hash_user(user_id: str, salt: str) -> str:
    """A stable pseudonym for a Slack user id: HMAC-SHA256 keyed by ``salt``, 16 hex.

    The salt is a secret: without it the hashes cannot be linked back to user ids.
    """
    if not salt:
        raise ValueError("hash_user needs a non-empty salt")
    return hmac.new(salt.encode(), user_id.encode(), hashlib.sha256).hexdigest()[:16]


def build_record(
    *,
    request_id: str,
    user_hash: str,
    channel: str | None,
    scope_id: str,
    question: str,
    state: str,
    reason: str | None = None,
    cited: Iterable[str] = (),
    latencies_ms: Mapping[str, float] | None = None,
    cache_hit: bool = False,
    service: str | None = None,
    cited_access: Mapping[str, Iterable[str]] | None = None,
    ts: float | None = None,
) -> QueryRecord:
    """A :class:`QueryRecord` with ``question`` redacted; ``ts`` defaults to now."""
    return QueryRecord(
        request_id=request_id,
        ts=time.time() if ts is None else ts,
        user_hash=user_hash,
        channel=channel,
        scope_id=scope_id,
        question=redact(question),
        state=state,
        reason=reason,
        cited=tuple(cited),
        latencies_ms=dict(latencies_ms or {}),
        cache_hit=cache_hit,
        service=service,
        cited_access=_access(cited_access),
    )


def build_feedback(
    *,
    request_id: str,
    user_hash: str,
    value: FeedbackValue,
    question: str,
    service: str | None = None,
    cited: Iterable[str] = (),
    cited_access: Mapping[str, Iterable[str]] | None = None,
    ts: float | None = None,
) -> Feedback:
    """A :class:`Feedback` with ``question`` redacted; ``ts`` defaults to now."""
    if value not in get_args(FeedbackValue):
        raise ValueError(f"feedback must be one of {get_args(FeedbackValue)}, not {value!r}")
    return Feedback(
        request_id=request_id,
        ts=time.time() if ts is None else ts,
        user_hash=user_hash,
        value=value,
        question=redact(question),
        service=service,
        cited=tuple(cited),
        cited_access=_access(cited_access),
    )


def _access(cited_access: Mapping[str, Iterable[str]] | None) -> dict[str, tuple[str, ...]]:
    return {source: tuple(groups) for source, groups in (cited_access or {}).items()}


class QueryLogReader(Protocol):
    """What reports read of the query log: recent questions and the feedback on them."""

    def recent(self, days: float) -> list[QueryRecord]: ...

    def recent_feedback(self, days: float) -> list[Feedback]: ...


class QueryLog(QueryLogReader, Protocol):
    """Questions and the feedback on their answers: written fail-soft, read by reports."""

    def record(self, rec: QueryRecord) -> None: ...

    def record_feedback(self, fb: Feedback) -> None: ...


# --- serialization ---------------------------------------------------------------------

_Item = TypeVar("_Item", QueryRecord, Feedback)
_RECORDS: TypeAdapter[QueryRecord] = TypeAdapter(QueryRecord)
_FEEDBACK: TypeAdapter[Feedback] = TypeAdapter(Feedback)


def _dump(item: QueryRecord | Feedback) -> str:
    safe = dataclasses.replace(item, question=redact(item.question))
    if isinstance(safe, QueryRecord):
        return _RECORDS.dump_json(safe).decode("utf-8")
    return _FEEDBACK.dump_json(safe).decode("utf-8")


def _load(adapter: TypeAdapter[_Item], raw: str | bytes) -> _Item | None:
    try:
        return adapter.validate_json(raw)
    except ValidationError:
        log.debug("skipping an unreadable query log entry")
        return None


def _cutoff(days: float, retention_days: float) -> float:
    """The oldest timestamp worth returning: never older than the retention."""
    return time.time() - min(days, retention_days) * DAY_SECONDS


# --- Redis -----------------------------------------------------------------------------


class RedisQueryLog:
    """Records as JSON in the streams ``{ns}:querylog`` and ``{ns}:feedback``.

    Every append trims entries older than the retention (``XADD ... MINID ~``; the
    ``~`` lets Redis trim whole stream nodes lazily, and reads skip what is left).
    """

    def __init__(
        self,
        client: redis.Redis,
        retention_days: float = 30,
        namespace: str = DEFAULT_NAMESPACE,
        *,
        retry_after_seconds: float = DEFAULT_RETRY_AFTER_SECONDS,
    ) -> None:
        if retention_days <= 0:
            raise ValueError("retention_days must be positive")
        self._retention = retention_days
        self._redis = FailSoftRedis(
            client,
            logger=log,
            name="query log",
            fallback="dropping query log records",
            namespace=namespace,
            retry_after_seconds=retry_after_seconds,
        )
        self._client = client
        self.stream = self._redis.key("querylog")
        self.feedback_stream = self._redis.key("feedback")

    def record(self, rec: QueryRecord) -> None:
        self._append(self.stream, _dump(rec))

    def record_feedback(self, fb: Feedback) -> None:
        self._append(self.feedback_stream, _dump(fb))

    def recent(self, days: float) -> list[QueryRecord]:
        return self._read(self.stream, days, _RECORDS)

    def recent_feedback(self, days: float) -> list[Feedback]:
        return self._read(self.feedback_stream, days, _FEEDBACK)

    def _append(self, stream: str, payload: str) -> None:
        min_id = max(0, int(_cutoff(self._retention, self._retention) * 1000))
        self._redis.run(
            lambda r: r.xadd(stream, {_JSON_FIELD: payload}, minid=min_id, approximate=True), None
        )

    def _read(self, stream: str, days: float, adapter: TypeAdapter[_Item]) -> list[_Item]:
        """Every readable entry since ``days`` ago; raises QueryLogError (a report must not
        take an outage for "nobody asked anything")."""
        start = f"{max(0, int(_cutoff(days, self._retention) * 1000))}-0"
        items: list[_Item] = []
        try:
            while True:
                page = self._client.xrange(stream, min=start, max="+", count=_XRANGE_PAGE) or []
                for _entry_id, fields in page:
                    item = _load(adapter, _payload(fields))
                    if item is not None:
                        items.append(item)
                if len(page) < _XRANGE_PAGE or page[-1][0] is None:
                    return items
                start = "(" + _text(page[-1][0])
        except REDIS_ERRORS as exc:
            raise QueryLogError(f"cannot read the query log from Redis: {exc}") from exc


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _payload(fields: Mapping[bytes | str, bytes | str] | None) -> bytes | str:
    if not fields:
        return ""
    return fields.get(_JSON_FIELD.encode()) or fields.get(_JSON_FIELD) or ""


# --- files -----------------------------------------------------------------------------


def feedback_path_for(path: Path) -> Path:
    """``queries.jsonl`` -> ``queries.feedback.jsonl``; any other name gets the suffix."""
    if path.suffix == ".jsonl":
        return path.with_suffix(".feedback.jsonl")
    return path.with_name(path.name + ".feedback.jsonl")


class FileQueryLog:
    """Records as JSON lines appended to ``path`` (feedback: :func:`feedback_path_for`).

    Appends are single ``write`` calls on a file opened for appending, so several
    processes may log to one file; :meth:`prune` rewrites the files and is meant to
    run from one place (a scheduled job or the bot at start-up). Only the owner may read
    the files (0600, also enforced on files that existed before).
    """

    def __init__(self, path: Path, retention_days: float = 30) -> None:
        if retention_days <= 0:
            raise ValueError("retention_days must be positive")
        self.path = path
        self.feedback_path = feedback_path_for(path)
        self._retention = retention_days
        self._lock = threading.Lock()
        self._health = ServiceHealth(log, "query log file", "dropping query log records", 0.0)

    def record(self, rec: QueryRecord) -> None:
        self._append(self.path, _dump(rec))

    def record_feedback(self, fb: Feedback) -> None:
        self._append(self.feedback_path, _dump(fb))

    def recent(self, days: float) -> list[QueryRecord]:
        cutoff = _cutoff(days, self._retention)
        return [r for r in self._read(self.path, _RECORDS) if r.ts >= cutoff]

    def recent_feedback(self, days: float) -> list[Feedback]:
        cutoff = _cutoff(days, self._retention)
        return [f for f in self._read(self.feedback_path, _FEEDBACK) if f.ts >= cutoff]

    def prune(self) -> int:
        """Drop lines older than the retention (and unreadable lines); how many went."""
        cutoff = _cutoff(self._retention, self._retention)
        with self._lock:
            return self._prune(self.path, _RECORDS, cutoff) + self._prune(
                self.feedback_path, _FEEDBACK, cutoff
            )

    def _append(self, path: Path, payload: str) -> None:
        data = (payload + "\n").encode("utf-8")
        try:
            with self._lock:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd = open_private(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
                try:
                    os.write(fd, data)
                finally:
                    os.close(fd)
        except OSError as exc:
            self._health.failed(exc)
            return
        self._health.ok()

    def _lines(self, path: Path) -> Iterator[str]:
        try:
            with path.open(encoding="utf-8", errors="replace") as fh:
                yield from fh
        except FileNotFoundError:
            return
        except OSError as exc:
            raise QueryLogError(f"cannot read the query log {path}: {exc}") from exc

    def _read(self, path: Path, adapter: TypeAdapter[_Item]) -> list[_Item]:
        items = (_load(adapter, line) for line in self._lines(path) if line.strip())
        return [item for item in items if item is not None]

    def _prune(self, path: Path, adapter: TypeAdapter[_Item], cutoff: float) -> int:
        kept: list[str] = []
        dropped = 0
        for line in self._lines(path):
            if not line.strip():
                continue
            item = _load(adapter, line)
            if item is None or item.ts < cutoff:
                dropped += 1
            else:
                kept.append(line if line.endswith("\n") else line + "\n")
        if not dropped:
            return 0
        tmp = path.with_name(path.name + ".tmp")
        try:
            fd = open_private(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write("".join(kept))
            os.replace(tmp, path)
        except OSError as exc:
            raise QueryLogError(f"cannot rewrite the query log {path}: {exc}") from exc
        return dropped
