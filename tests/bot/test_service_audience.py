"""The property: nothing :meth:`AnswerService.ask` puts in ``Delivery.public`` is unreadable
by anyone who may be in the channel.

A corpus of its own, built once for the module (embedded Qdrant, the real model): a few
topics, each with runbook variants, an incident write-up and a superseded runbook, every
document with access groups drawn at random (some readable by nobody, some only by a group
nobody holds), some stale. Each generated case is a channel: its members' scopes (the
audience is what all of them may read), one of them asking a question about a topic (or
pinned to one document, as an alert is), with a real Redis answer cache. The check covers
everything the public answer carries: citations, related incidents, closest runbooks,
warnings and any text (every document's id, title and a marker word of its own body).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.runtime import Runtime
from bot.service import AnswerService
from bot.settings import load_settings
from retrieval.permissions import AccessMap, PermissionResolver, Scope
from retrieval.search.embeddings import FastEmbedder
from state.answer_cache import RedisAnswerCache
from state.client import redis_client
from tests.conftest import RedisServer

EVERYONE = "everyone"
GROUPS = ("sre", "dba", "security")  # what members may hold besides everyone
ACCESS_POOL = (EVERYONE, *GROUPS, "unlisted")  # "unlisted": a group nobody is in

TOPICS = {
    "refunds": ("Payments: refunds not completing", "refunds stuck, the refund worker fails"),
    "disk": ("Platform: node disk full", "disk full on a node, kubelet evicting pods"),
    "certs": ("Identity: certificate expired", "TLS certificate expired on the login service"),
    "queues": ("Orders: queue backlog growing", "orders queue backlog growing, consumers lag"),
    "search": ("Search: index lagging behind", "search index lagging, reindex job stuck"),
}
QUESTIONS = (
    *(q for _, q in TOPICS.values()),
    "how do I restart the refund worker?",
    "disk full",
    "certificate expired what do I do",
    "queue backlog",
    "who do I call about the search index?",
    "what is the capital of france",  # nothing covers it
)


@dataclass(frozen=True)
class Doc:
    source_id: str
    title: str
    marker: str
    access: tuple[str, ...]


def _access(rng: random.Random) -> tuple[str, ...]:
    return tuple(rng.sample(ACCESS_POOL, rng.choice((0, 1, 1, 2))))


def _write(root: Path, doc: Doc, body: str, meta: dict[str, str]) -> None:
    lines = [f'title: "{doc.title}"', f"access: [{', '.join(doc.access)}]"]
    lines += [f"{k}: {v}" for k, v in meta.items()]
    path = root / f"{doc.source_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\n" + "\n".join(lines) + f"\n---\n\n# {doc.title}\n\n{body}\n")


def build_corpus(root: Path, seed: int = 20261201) -> list[Doc]:
    """Runbook variants, an incident and a superseded runbook per topic; access at random."""
    rng = random.Random(seed)
    docs: list[Doc] = []
    today = date.today().isoformat()

    def new(topic: str, kind: str, title: str) -> Doc:
        n = len(docs)
        doc = Doc(
            f"{topic}/{kind}-{n:02d}", f"{title} (ref {n:02d})", f"zmark{n:02d}q", _access(rng)
        )
        docs.append(doc)
        return doc

    for topic, (title, symptom) in TOPICS.items():
        variants = [new(topic, "runbook", title) for _ in range(3)]
        for doc in variants:
            updated = rng.choice((today, "2020-01-15"))  # some stale
            _write(
                root,
                doc,
                f"## Symptoms\n\n- {symptom} ({doc.marker}).\n\n"
                f"## Mitigation\n\n1. Check the {topic} dashboard for {doc.marker}.\n"
                f"2. Restart the {topic} worker: `kubectl rollout restart deploy/{topic}`.\n\n"
                f"## Escalation\n\nPage the {topic} on-call.",
                {"service": topic, "owner": f'"@{topic}-oncall"', "updated": updated},
            )
        incident = new(topic, "incident", f"Incident: {symptom}")
        _write(
            root,
            incident,
            f"## Summary\n\n{symptom} for two hours ({incident.marker}).\n\n"
            f"## Timeline\n\n- 10:00 {symptom}.\n- 12:00 resolved by restarting the worker.",
            {"service": topic, "doc_type": "incident", "updated": today},
        )
        old = new(topic, "legacy", f"Legacy: {title}")
        _write(
            root,
            old,
            f"## Mitigation\n\n1. {symptom}: restart the old {topic} worker ({old.marker}).",
            {
                "service": topic,
                "status": "superseded",
                "superseded_by": f"{rng.choice(variants).source_id}.md",
                "updated": today,
            },
        )
    return docs


@pytest.fixture(scope="module")
def corpus(
    tmp_path_factory: pytest.TempPathFactory, embedder: FastEmbedder
) -> Iterator[tuple[AnswerService, list[Doc]]]:
    root = tmp_path_factory.mktemp("audience-corpus")
    docs = build_corpus(root)
    server = RedisServer(tmp_path_factory.mktemp("audience-redis"))
    server.start()
    rt = Runtime(load_settings(data_dir=tmp_path_factory.mktemp("audience-data")), embedder)
    try:
        report = rt.ingestor.run(root, rt.ingest_options())
        assert report.chunks_embedded > 0 and not report.skipped, report
        service = AnswerService(
            rt.answerer,
            rt.searcher,
            PermissionResolver(AccessMap(), None),
            RedisAnswerCache(redis_client(server.url), ttl_seconds=600),
            None,
            "salt",
            mode=rt.answer_mode,
        )
        yield service, docs
    finally:
        rt.close()
        server.stop()


MEMBER = st.sets(st.sampled_from(GROUPS)).map(lambda gs: frozenset({EVERYONE, *gs}))


@settings(
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    members=st.lists(MEMBER, min_size=1, max_size=4),
    asker_index=st.integers(min_value=0, max_value=3),
    complete=st.booleans(),
    question=st.sampled_from(QUESTIONS),
    pin=st.none() | st.integers(min_value=0, max_value=24),
)
def test_property_nothing_public_is_unreadable_by_a_possible_member(
    corpus: tuple[AnswerService, list[Doc]],
    members: list[frozenset[str]],
    asker_index: int,
    complete: bool,
    question: str,
    pin: int | None,
) -> None:
    service, docs = corpus
    asker = Scope(members[asker_index % len(members)], complete)
    audience = Scope(frozenset.intersection(*members))
    pinned = docs[pin % len(docs)].source_id if pin is not None else None

    public = service.ask(question, "r-prop", asker=asker, audience=audience, pinned=pinned).public

    # anyone whose groups hold the audience's may be in the channel; the one holding just
    # those reads least, so what they cannot read is what no reply there may show
    hidden = [d for d in docs if not audience.groups.intersection(d.access)]
    named = {
        *(c.source_id for c in (*public.citations, *public.related)),
        *(s.source_id for s in public.suggestions),
        *(w.source_id for w in public.warnings if w.source_id),
    }
    everything = public.model_dump_json()
    for doc in hidden:
        assert doc.source_id not in named, (doc, audience.groups)
        for trace in (doc.source_id, doc.title, doc.marker):
            assert trace not in everything, (trace, audience.groups)
    for item in (*public.citations, *public.related, *public.suggestions):
        assert audience.groups.intersection(item.access), item.source_id


def test_the_corpus_holds_what_some_channel_may_not_read(
    corpus: tuple[AnswerService, list[Doc]],
) -> None:
    """The property above is not vacuous: wide askers are answered from documents that a
    channel of everyone may not see, and those go to the asker alone."""
    service, docs = corpus
    wide = Scope(frozenset({EVERYONE, *GROUPS}))
    narrow = Scope(frozenset({EVERYONE}))
    assert any(not narrow.groups.intersection(d.access) for d in docs)
    private_seen = 0
    for question in QUESTIONS:
        delivery = service.ask(question, "r-wide", asker=wide, audience=narrow)
        alone = service.ask(question, "r-alone", asker=wide)
        if delivery.private is not None:
            private_seen += 1
            assert any(not narrow.groups.intersection(c.access) for c in delivery.private.citations)
        cited_alone = {c.source_id for c in alone.public.citations}
        cited_public = {c.source_id for c in delivery.public.citations}
        restricted = {d.source_id for d in docs if not narrow.groups.intersection(d.access)}
        assert not cited_public & restricted
        if cited_alone & restricted:
            assert delivery.private is not None or delivery.public.state != "answer"
    assert private_seen > 0
