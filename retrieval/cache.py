"""The answer cache: answers keyed by question, permission scope, index generation and mode.

A cached answer is only served while every revision it cites is still live: the
caller passes an ``is_live`` check and a retired revision evicts the entry. The cache
is an optimisation, so Redis being down never fails a request: every method degrades
(a miss, a no-op), warns once per outage and logs when Redis answers again.

:class:`ServiceHealth` (the warn-once / retry-later bookkeeping) and :data:`REDIS_ERRORS`
are shared with the other Redis-backed helpers (dedup, query log, permissions).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import redis
from pydantic import ValidationError
from redis.backoff import NoBackoff
from redis.retry import Retry

from core.models import Answer
from retrieval.storable import storable_answer

log = logging.getLogger("runbook_bot.cache")

#: What a Redis call raises when Redis is down, slow or unhappy.
REDIS_ERRORS: tuple[type[Exception], ...] = (redis.RedisError, ConnectionError, TimeoutError)

#: ``is_live([(source_id, revision), ...])``: are all these revisions still in the index?
LivenessCheck = Callable[[Sequence[tuple[str, str]]], bool]

#: Every Redis key of a deployment starts with ``{namespace}:``.
DEFAULT_NAMESPACE = "rbb"
#: No ``:`` (one namespace could otherwise be a prefix of another's keys) and no glob
#: characters (cache clear matches ``{namespace}:answer:*``).
NAMESPACE_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"


def check_namespace(namespace: str) -> str:
    """``namespace`` when it is a valid key prefix; ValueError otherwise."""
    if not re.fullmatch(NAMESPACE_PATTERN, namespace):
        raise ValueError(f"invalid Redis namespace {namespace!r} (letters, digits, _ . -)")
    return namespace


_TRAILING_PUNCTUATION = re.compile(r"[\s?.!,;:…？！。]+$")
_SCAN_BATCH = 1000
_DELETE_BATCH = 500


def redis_client(url: str, timeout: float = 0.5) -> redis.Redis:
    """A client that gives up quickly, so a dead Redis costs milliseconds, not seconds.

    redis-py's default retries a failed command ten times with backoff; for a cache that
    is the wrong trade, so this client retries once, immediately.
    """
    return redis.Redis.from_url(
        url,
        socket_connect_timeout=timeout,
        socket_timeout=timeout,
        health_check_interval=30,
        retry=Retry(NoBackoff(), 1),
    )


class ServiceHealth:
    """Whether an optional backend answers: warn once per outage, note the recovery.

    After a failure the backend is not asked again for ``retry_after_seconds`` (callers
    check :meth:`usable` and take their fallback), so an unreachable host costs one
    timeout per interval instead of one per request.
    """

    def __init__(
        self,
        logger: logging.Logger,
        name: str,
        fallback: str,
        retry_after_seconds: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._log = logger
        self._name = name
        self._fallback = fallback
        self._retry_after = retry_after_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._down = False
        self._next_try = 0.0

    @property
    def down(self) -> bool:
        return self._down

    def usable(self) -> bool:
        """False while the backend is down and the retry interval has not passed."""
        return not self._down or self._clock() >= self._next_try

    def failed(self, exc: BaseException) -> None:
        with self._lock:
            self._next_try = self._clock() + self._retry_after
            if self._down:
                return
            self._down = True
        self._log.warning(
            "%s unavailable (%s: %s); %s", self._name, type(exc).__name__, exc, self._fallback
        )

    def ok(self) -> None:
        if not self._down:  # the common case, without the lock
            return
        with self._lock:
            if not self._down:
                return
            self._down = False
        self._log.info("%s resumed", self._name)


@dataclass(frozen=True)
class CacheKey:
    question: str
    scope_id: str
    generation: int
    mode: str

    def normalized_question(self) -> str:
        """Case-folded, whitespace collapsed, trailing ``?.!`` (and the like) removed."""
        text = " ".join(unicodedata.normalize("NFKC", self.question).casefold().split())
        return _TRAILING_PUNCTUATION.sub("", text)

    def digest(self) -> str:
        # JSON keeps the parts apart: no two different keys encode to the same bytes.
        parts = [self.normalized_question(), self.scope_id, self.generation, self.mode]
        encoded = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


class AnswerCache(Protocol):
    def get(self, key: CacheKey, is_live: LivenessCheck) -> Answer | None: ...

    def put(self, key: CacheKey, answer: Answer) -> None: ...


@dataclass(frozen=True)
class CacheStats:
    """``hits``/``misses`` are the shared counters of all replicas while Redis answers,
    this process's counters otherwise (``available`` says which)."""

    hits: int
    misses: int
    keys: int
    available: bool
    local_hits: int = 0
    local_misses: int = 0


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


class RedisAnswerCache:
    """Answers as JSON under ``{ns}:answer:{generation}:{digest}``, expiring after the TTL.

    The stored answer's ``question`` is blanked (it may hold a pasted secret), no secret of
    the question is left anywhere else in it (:func:`retrieval.storable.storable_answer`),
    and a hit carries the asker's own question. Answers with ``reason="error"`` are not cached.
    """

    def __init__(
        self,
        client: redis.Redis,
        ttl_seconds: int,
        namespace: str = DEFAULT_NAMESPACE,
        *,
        retry_after_seconds: float = 1.0,
    ) -> None:
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self._client = client
        self._ttl = ttl_seconds
        self._ns = check_namespace(namespace)
        self._health = ServiceHealth(
            log, "cache", "answering without the cache", retry_after_seconds
        )
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0

    # --- keys ------------------------------------------------------------------------

    @property
    def _prefix(self) -> str:
        return f"{self._ns}:answer:"

    @property
    def _stats_key(self) -> str:
        return f"{self._ns}:stats"

    def redis_key(self, key: CacheKey) -> str:
        return f"{self._prefix}{key.generation}:{key.digest()}"

    def _generation_of(self, redis_key: str) -> int | None:
        generation = redis_key[len(self._prefix) :].split(":", 1)[0]
        try:
            return int(generation)
        except ValueError:
            return None

    def _answer_keys(self) -> Iterator[str]:
        pattern = _glob_escape(self._prefix) + "*"
        for key in self._client.scan_iter(match=pattern, count=_SCAN_BATCH):
            yield _text(key)

    # --- AnswerCache -----------------------------------------------------------------

    def get(self, key: CacheKey, is_live: LivenessCheck) -> Answer | None:
        """The cached answer, or None (miss, Redis down, or a cited revision retired)."""
        if not self._health.usable():
            self._miss(shared=False)
            return None
        rkey = self.redis_key(key)
        try:
            raw = self._client.get(rkey)
        except REDIS_ERRORS as exc:
            self._health.failed(exc)
            self._miss(shared=False)
            return None
        self._health.ok()
        if raw is None:
            self._miss()
            return None
        try:
            answer = Answer.model_validate_json(raw)
        except ValidationError:
            log.info("dropping an unreadable cache entry %s", rkey)  # e.g. an older schema
            self._delete(rkey)
            self._miss()
            return None
        revisions = [(c.source_id, c.revision) for c in answer.citations + answer.private_citations]
        if not is_live(revisions):
            self._delete(rkey)
            self._miss()
            return None
        self._count(hit=True, shared=True)
        return answer.model_copy(update={"question": key.question})

    def put(self, key: CacheKey, answer: Answer) -> None:
        if answer.reason == "error" or not self._health.usable():
            return
        stored = storable_answer(answer, key.question).model_copy(update={"question": ""})
        payload = stored.model_dump_json()
        try:
            self._client.set(self.redis_key(key), payload, ex=self._ttl)
        except REDIS_ERRORS as exc:
            self._health.failed(exc)
            return
        self._health.ok()

    # --- maintenance -----------------------------------------------------------------

    def cleanup(self, current_generation: int) -> int:
        """Delete the answers of generations older than ``current_generation``."""

        def older(k: str) -> bool:
            generation = self._generation_of(k)
            return generation is not None and generation < current_generation

        return self._delete_matching(older)

    def clear(self) -> int:
        """Delete every cached answer (the hit/miss counters stay)."""
        return self._delete_matching(lambda _k: True)

    def stats(self) -> CacheStats:
        with self._lock:
            local_hits, local_misses = self._hits, self._misses
        local = CacheStats(local_hits, local_misses, 0, False, local_hits, local_misses)
        if not self._health.usable():
            return local
        try:
            counters = self._client.hgetall(self._stats_key)
            keys = sum(1 for _ in self._answer_keys())
        except REDIS_ERRORS as exc:
            self._health.failed(exc)
            return local
        self._health.ok()
        shared = {_text(k): int(v) for k, v in counters.items()}
        return CacheStats(
            shared.get("hits", 0), shared.get("misses", 0), keys, True, local_hits, local_misses
        )

    # --- helpers ---------------------------------------------------------------------

    def _miss(self, shared: bool = True) -> None:
        """Count a miss; ``get`` returns None (a local helper to keep ``get`` flat)."""
        self._count(hit=False, shared=shared)

    def _count(self, hit: bool, shared: bool) -> None:
        with self._lock:
            if hit:
                self._hits += 1
            else:
                self._misses += 1
        if not shared:
            return
        try:
            self._client.hincrby(self._stats_key, "hits" if hit else "misses", 1)
        except REDIS_ERRORS as exc:
            self._health.failed(exc)

    def _delete(self, rkey: str) -> None:
        try:
            self._client.delete(rkey)
        except REDIS_ERRORS as exc:
            self._health.failed(exc)

    def _delete_matching(self, wanted: Callable[[str], bool]) -> int:
        if not self._health.usable():
            return 0
        deleted = 0
        batch: list[str] = []
        try:
            for k in self._answer_keys():
                if wanted(k):
                    batch.append(k)
                if len(batch) >= _DELETE_BATCH:
                    deleted += int(self._client.unlink(*batch))
                    batch.clear()
            if batch:
                deleted += int(self._client.unlink(*batch))
        except REDIS_ERRORS as exc:
            self._health.failed(exc)
            return deleted
        self._health.ok()
        return deleted
