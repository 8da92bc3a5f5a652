"""Answering a question for a person in a place: scopes, audience, cache, query log.

This is where the permission rules meet the answerer:

- the asker's scope comes from the PermissionResolver (Slack user groups, explicit
  users, the default group);
- a reply others can read (thread, "Post to channel") cites only documents the
  whole audience may read: it is answered with the audience's groups (and never
  more than the asker's), filtered inside both searches, and then everything else
  it names (related incidents, warnings, superseded-by names) is checked against
  the live index by :meth:`AnswerService.disclose`;
- documents the asker may read but the audience may not are answered separately
  and delivered privately to the asker, never into the thread;
- answers are cached per (question, scope, index generation, answer mode) and a
  cached answer citing a retired revision is never served;
- every question leaves one redacted line in the query log, with the access groups of
  each runbook its answer cited (so a report shows it only to people who may read them);
- every delivery carries its human step (:mod:`bot.oncall`): who to call now about the
  runbook it leads with, found by the injected :class:`~bot.oncall.HumanSteps` and only
  rendered by Slack, the web pages and the terminal.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from bot.oncall import HumanStep, HumanSteps, Target
from core.models import Answer, AnswerWarning
from retrieval.answer import (
    Answerer,
    Disclosure,
    RunbookMatcher,
    RunbookSections,
    chunk_url,
    for_audience,
    snapshot_lookup,
)
from retrieval.permissions import PermissionResolver, Scope
from retrieval.reading import AskContext
from retrieval.search import HybridSearcher
from state.answer_cache import AnswerCache, CacheKey
from state.querylog import FeedbackValue, QueryLog, build_feedback, build_record, hash_user

log = logging.getLogger("runbook_bot.service")


@dataclass(frozen=True)
class Delivery:
    """What to show where: ``public`` may go to the audience; ``private`` only to the asker."""

    request_id: str
    public: Answer
    private: Answer | None = None
    cache_hit: bool = False
    latencies_ms: Mapping[str, float] = field(default_factory=dict)
    step: HumanStep | None = None  # who to call now about ``public`` (None: no lookup)


class Observer(Protocol):
    """Hooks for metrics (:class:`bot.metrics.Metrics` has them)."""

    def stage(self, stage: str, seconds: float) -> None: ...

    def cache(self, hit: bool) -> None: ...

    def answered(self, answer: Answer) -> None: ...


class _Unobserved:
    """The default observer: does nothing."""

    def stage(self, stage: str, seconds: float) -> None:
        return None

    def cache(self, hit: bool) -> None:
        return None

    def answered(self, answer: Answer) -> None:
        return None


class AnswerService:
    def __init__(
        self,
        answerer: Answerer,
        searcher: HybridSearcher,
        resolver: PermissionResolver,
        cache: AnswerCache | None,
        query_log: QueryLog | None,
        user_salt: str,
        mode: str = "extractive",
        observer: Observer | None = None,
        clock: Callable[[], float] = time.perf_counter,
        matcher: RunbookMatcher | None = None,
        sections: RunbookSections | None = None,
        steps: HumanSteps | None = None,
    ) -> None:
        self._steps = steps
        self._answerer = answerer
        self._searcher = searcher
        self._resolver = resolver
        self._cache = cache
        self._log = query_log
        self._salt = user_salt
        self._mode = mode
        self._observer: Observer = observer or _Unobserved()
        self._clock = clock
        self._matcher = matcher or RunbookMatcher(searcher.snapshot)
        self._sections = sections or RunbookSections(searcher.snapshot)

    @property
    def resolver(self) -> PermissionResolver:
        return self._resolver

    def record_feedback(
        self,
        request_id: str,
        value: FeedbackValue,
        *,
        user_id: str,
        question: str,
        service: str | None = None,
        cited_access: Mapping[str, tuple[str, ...]] | None = None,
    ) -> None:
        """Someone's "helpful" or "not helpful" on the answer ``request_id``, into the same
        feedback store the Slack buttons write (the user hashed, the question redacted)."""
        if self._log is None:
            return
        self._log.record_feedback(
            build_feedback(
                request_id=request_id,
                user_hash=hash_user(user_id, self._salt),
                value=value,
                question=question,
                service=service,
                cited=tuple(cited_access or ()),
                cited_access=cited_access,
            )
        )

    def human_step(self, answer: Answer) -> HumanStep | None:
        """Who to call now about the runbook ``answer`` leads with (None: no lookups)."""
        if self._steps is None:
            return None
        try:
            lookup = snapshot_lookup(self._searcher.snapshot())
        except Exception:  # the step names the owner the answer carries
            log.warning("could not read the index for the human step", exc_info=True)
            lookup = None
        return self._steps.for_answer(answer, lookup)

    def human_step_for(self, source_id: str) -> HumanStep | None:
        """Who to call about the runbook ``source_id`` (None: no lookups)."""
        if self._steps is None:
            return None
        lookup = snapshot_lookup(self._searcher.snapshot())
        meta = lookup(source_id)
        chunks = self._searcher.snapshot().chunks_by_source.get(source_id) or ()
        title = chunks[0].title if chunks else None
        return self._steps.for_target(
            Target(
                source_id=source_id,
                title=title,
                service=meta.service if meta else None,
                owner=meta.owner if meta else None,
                pagerduty_service=meta.pagerduty_service if meta else None,
                pagerduty_escalation_policy=meta.pagerduty_escalation_policy if meta else None,
            )
        )

    def runbook_url(self, source_id: str) -> str | None:
        """The link to the runbook ``source_id`` at its indexed revision (its top)."""
        chunks = self._searcher.snapshot().chunks_by_source.get(source_id) or ()
        return chunk_url(chunks[0], 1) if chunks else None

    def related(
        self, question: str, scope: Scope, source_id: str, limit: int = 3
    ) -> list[tuple[str, str, str | None]]:
        """Other runbooks of the service of ``source_id`` closest to ``question`` that
        ``scope`` may read: (title, section, url). Only that service's: a runbook of
        another service is no relation, however near its words."""
        snap = self._searcher.snapshot()
        meta = snapshot_lookup(snap)(source_id)
        if meta is None or not meta.service:
            return []
        flt = scope.as_filter().model_copy(
            update={"services": (meta.service,), "doc_types": ("runbook",)}
        )
        out: list[tuple[str, str, str | None]] = []
        for doc in self._searcher.search(question, k=limit + 1, flt=flt):
            if doc.source_id == source_id:
                continue
            chunk = doc.best.chunk
            section = chunk.section
            out.append((doc.title, section, chunk_url(chunk, chunk.line)))
        return out[:limit]

    def record_gap(
        self, question: str, request_id: str, reason: str, *, service: str | None = None
    ) -> None:
        """A question nothing answered that no search logs (an alert's ``runbook_url``
        naming no indexed runbook): one line in the query log, so the gaps report lists it."""
        if self._log is None:
            return
        self._log.record(
            build_record(
                request_id=request_id,
                user_hash=hash_user("alert", self._salt),
                channel=None,
                scope_id="alert",
                question=question,
                state="abstain",
                reason=reason,
                service=service,
            )
        )

    def disclose(
        self, answer: Answer, audience: Scope, generation: int | None = None
    ) -> Disclosure:
        """The part of ``answer`` everyone in ``audience`` may read, by the live index
        (:func:`retrieval.answer.disclosure.for_audience`)."""
        snapshot = self._searcher.snapshot(
            self._searcher.generation() if generation is None else generation
        )
        return for_audience(answer, audience.groups, snapshot_lookup(snapshot))

    def _answer(
        self,
        question: str,
        scope: Scope,
        generation: int,
        pinned: str | None = None,
        anchor: str | None = None,
    ) -> tuple[Answer, bool]:
        mode = self._mode + (f"|doc:{pinned}" if pinned else "")
        mode += f"#{anchor}" if pinned and anchor else ""
        key = CacheKey(question, scope.scope_id, generation, mode)
        cacheable = self._cache is not None and scope.complete
        if cacheable:
            assert self._cache is not None
            started = self._clock()
            live = self._searcher.snapshot(generation).revisions
            cached = self._cache.get(key, lambda cited: all(live.get(s) == r for s, r in cited))
            self._observer.stage("cache", self._clock() - started)
            self._observer.cache(cached is not None)
            if cached is not None:
                return cached.model_copy(update={"question": question}), True
        started = self._clock()
        flt = scope.as_filter()
        if pinned:
            flt = flt.model_copy(update={"sources": (pinned,), "anchor": anchor})
        answer = self._answerer.answer(question, flt)
        self._observer.stage("answer", self._clock() - started)
        if cacheable:
            assert self._cache is not None
            self._cache.put(key, answer)
        return answer, False

    def ask(
        self,
        question: str,
        request_id: str,
        *,
        asker: Scope,
        audience: Scope | None = None,
        user_id: str | None = None,
        channel_id: str | None = None,
        pinned: str | None = None,
        anchor: str | None = None,
        context: AskContext | None = None,
    ) -> Delivery:
        """Answer ``question``; ``audience`` None means only the asker will see it.
        ``pinned`` (a source id) answers from that document only: the runbook an alert
        names, or the one a thread is already about; ``anchor`` is the heading its link
        points at (in a file of several runbooks, the one to answer from). Without one,
        a link to an indexed runbook in the question pins that runbook and its #anchor.
        ``context``: where it was asked (an alert's thread); what leads follows from it
        and the question alike on every surface (:mod:`retrieval.reading.leading`)."""
        t0 = self._clock()
        generation = self._searcher.generation()
        if pinned is None:  # a link to a runbook in the question names the runbook
            linked = self._matcher.linked(question)
            pinned, anchor = linked.source_id, linked.anchor if linked.source_id else anchor
        if audience is None:
            public_scope = asker
        else:
            public_scope = Scope(asker.groups & audience.groups, asker.complete)
        asked_in = context or AskContext()
        public, hit = self._answer(question, public_scope, generation, pinned, anchor)
        public = self._lead(public, question, asked_in)
        private: Answer | None = None
        if audience is not None and asker.groups - public_scope.groups:
            mine, hit_private = self._answer(question, asker, generation, pinned, anchor)
            mine = self._lead(mine, question, asked_in)
            hit = hit and hit_private
            public_ids = {c.source_id for c in public.citations}
            extra = [c for c in mine.citations if c.source_id not in public_ids]
            restricted = [c for c in extra if not set(c.access) & public_scope.groups]
            if mine.state == "answer" and restricted:
                private = mine
                n = len({c.source_id for c in restricted})
                note = AnswerWarning(
                    kind="restricted-omitted",
                    message=(
                        f"{n} restricted runbook{'s' if n > 1 else ''} sent privately to the "
                        "asker (not everyone here may read it)."
                    ),
                )
                if public.state == "answer":
                    public = public.model_copy(update={"warnings": (*public.warnings, note)})
        if not asker.complete:
            incomplete = AnswerWarning(
                kind="scope-incomplete",
                message="Your group memberships could not be checked; results may be incomplete.",
            )
            public = public.model_copy(update={"warnings": (*public.warnings, incomplete)})
        if audience is not None:
            shown = self.disclose(public, audience, generation)
            if shown.withheld:
                log.info(
                    "left out of the public answer: %s",
                    ", ".join(shown.left_out) or "its citations",
                    extra={"request_id": request_id, "blocked": len(shown.blocked)},
                )
            public = shown.answer
        total = self._clock() - t0
        self._observer.answered(public)
        latencies = {"total": round(total * 1000, 1)}
        self._record(
            question, request_id, public_scope, public, hit, latencies, user_id, channel_id
        )
        return Delivery(request_id, public, private, hit, latencies, self.human_step(public))

    def _lead(self, answer: Answer, question: str, context: AskContext) -> Answer:
        """``answer`` led as asked (:meth:`RunbookSections.lead`), its quoted procedures
        with what they need in place first (:meth:`RunbookSections.preconditions`); as it
        is when its runbook's sections cannot be read."""
        try:
            answer = self._sections.lead(answer, question, context)
        except Exception:  # showing the answer as it is beats failing
            log.exception("could not find the action section; showing the answer as is")
        try:
            return self._sections.preconditions(answer)
        except Exception:
            log.exception("could not find the prerequisites; showing the answer without them")
            return answer

    def _record(
        self,
        question: str,
        request_id: str,
        scope: Scope,
        answer: Answer,
        hit: bool,
        latencies: Mapping[str, float],
        user_id: str | None,
        channel_id: str | None,
    ) -> None:
        service = answer.citations[0].service if answer.citations else answer.closest_service
        log.info(
            "answered",
            extra={
                "request_id": request_id,
                "state": answer.state,
                "reason": answer.reason,
                "cache_hit": hit,
                "cited": [c.source_id for c in answer.citations],
                "latency_ms": latencies.get("total"),
            },
        )
        if self._log is None:
            return
        self._log.record(
            build_record(
                request_id=request_id,
                user_hash=hash_user(user_id or "cli", self._salt),
                channel=channel_id,
                scope_id=scope.scope_id,
                question=question,
                state=answer.state,
                reason=answer.reason,
                cited=[c.source_id for c in answer.citations],
                cited_access={c.source_id: c.access for c in answer.citations},
                latencies_ms=latencies,
                cache_hit=hit,
                service=service,
            )
        )
