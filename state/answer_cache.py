"""The answer cache: answers keyed by question, permission scope, index generation and mode.

A cached answer is only served while every revision it cites is still live: the
caller passes an ``is_live`` check and a retired revision evicts the entry. The cache
is an optimisation, so Redis being down never fails a request: every method degrades
(a miss, a no-op), warns once per outage and logs when Redis answers again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import redis
from pydantic import ValidationError

from core.health import DEFAULT_RETRY_AFTER_SECONDS
from core.models import Answer
from core.storable import storable_answer
from state.fail_soft import UNAVAILABLE, FailSoftRedis
from state.keys import DEFAULT_NAMESPACE

log = logging.getLogger("runbook_bot.cache")

#: ``is_live([(source_id, revision), ...])``: are all these revisions still in the index?
LivenessCheck = Callable[[Sequence[tuple[str, str]]], bool]

_TRAILING_PUNCTUATION = re.compile(r"[\s?.!,;:…？！。]+$")
_SCAN_BATCH = 1000
_DELETE_BATCH = 500


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


class RedisAnswerCache:
    """Answers as JSON under ``{ns}:answer:{generation}:{digest}``, expiring after the TTL.

    The stored answer's ``question`` is blanked (it may hold a pasted secret), no secret of
    the question is left anywhere else in it (:func:`core.storable.storable_answer`),
    and a hit carries the asker's own question.
    """

    def __init__(
        self,
        client: redis.Redis,
        ttl_seconds: int,
        namespace: str = DEFAULT_NAMESPACE,
        *,
        retry_after_seconds: float = DEFAULT_RETRY_AFTER_SECONDS,
    ) -> None:
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self._ttl = ttl_seconds
        self._redis = FailSoftRedis(
            client,
            logger=log,
            name="cache",
            fallback="answering without the cache",
            namespace=namespace,
            retry_after_seconds=retry_after_seconds,
        )
        self._stats_key = self._redis.key("stats")
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0

    # --- keys ------------------------------------------------------------------------

    def redis_key(self, key: CacheKey) -> str:
        return self._redis.key("answer", key.generation, key.digest())

    def _generation_of(self, redis_key: str) -> int | None:
        generation = redis_key[len(self._redis.keys.prefix("answer")) :].split(":", 1)[0]
        try:
            return int(generation)
        except ValueError:
            return None

    def _answer_keys(self, client: redis.Redis) -> Iterator[str]:
        pattern = self._redis.keys.pattern("answer")
        for key in client.scan_iter(match=pattern, count=_SCAN_BATCH):
            yield _text(key)

    # --- AnswerCache -----------------------------------------------------------------

    def get(self, key: CacheKey, is_live: LivenessCheck) -> Answer | None:
        """The cached answer, or None (miss, Redis down, or a cited revision retired)."""
        rkey = self.redis_key(key)
        raw = self._redis.run(lambda r: r.get(rkey), UNAVAILABLE)
        if raw is UNAVAILABLE:
            self._count(hit=False, shared=False)
            return None
        if raw is None:
            self._count(hit=False)
            return None
        try:
            answer = Answer.model_validate_json(raw)
        except ValidationError:
            log.info("dropping an unreadable cache entry %s", rkey)  # e.g. an older schema
            self._delete(rkey)
            self._count(hit=False)
            return None
        if not is_live([(c.source_id, c.revision) for c in answer.citations]):
            self._delete(rkey)
            self._count(hit=False)
            return None
        self._count(hit=True)
        return answer.model_copy(update={"question": key.question})

    def put(self, key: CacheKey, answer: Answer) -> None:
        if not self._redis.usable():
            return  # not even the work of making it storable
        stored = storable_answer(answer, key.question).model_copy(update={"question": ""})
        payload = stored.model_dump_json()
        self._redis.run(lambda r: r.set(self.redis_key(key), payload, ex=self._ttl), None)

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

        def shared(r: redis.Redis) -> CacheStats:
            counters = {_text(k): int(v) for k, v in r.hgetall(self._stats_key).items()}
            keys = sum(1 for _ in self._answer_keys(r))
            hits, misses = counters.get("hits", 0), counters.get("misses", 0)
            return CacheStats(hits, misses, keys, True, local_hits, local_misses)

        local = CacheStats(local_hits, local_misses, 0, False, local_hits, local_misses)
        return self._redis.run(shared, local)

    # --- helpers ---------------------------------------------------------------------

    def _count(self, hit: bool, shared: bool = True) -> None:
        with self._lock:
            if hit:
                self._hits += 1
            else:
                self._misses += 1
        if shared:
            field = "hits" if hit else "misses"
            self._redis.run(lambda r: r.hincrby(self._stats_key, field, 1), None)

    def _delete(self, rkey: str) -> None:
        self._redis.run(lambda r: r.delete(rkey), None)

    def _delete_matching(self, wanted: Callable[[str], bool]) -> int:
        deleted = [0]  # what was deleted before a failure still counts

        def delete(r: redis.Redis) -> None:
            batch: list[str] = []
            for k in self._answer_keys(r):
                if wanted(k):
                    batch.append(k)
                if len(batch) >= _DELETE_BATCH:
                    deleted[0] += int(r.unlink(*batch))
                    batch.clear()
            if batch:
                deleted[0] += int(r.unlink(*batch))

        self._redis.run(delete, None)
        return deleted[0]
