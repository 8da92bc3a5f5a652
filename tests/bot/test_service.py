"""AnswerService: permission scopes, audience split, cache and query log on real Redis."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.runtime import Runtime
from bot.service import AnswerService
from bot.settings import load_settings
from retrieval.search.embeddings import FastEmbedder
from tests.conftest import SAMPLE_RUNBOOKS, RedisServer
from tests.retrieval.answer.test_topics import COLLECTION

ACCESS_MAP = SAMPLE_RUNBOOKS / "access.yml"
RESTRICTED_Q = "break glass emergency production database access vault"
SRE_USER = "U0SRE0001"
SRE_CHANNEL = "C0SREPRIV1"


@pytest.fixture()
def runtime(
    sample_data_dir: Path, embedder: FastEmbedder, redis_server: RedisServer
) -> Iterator[Runtime]:
    rt = Runtime(
        load_settings(
            data_dir=sample_data_dir, redis_url=redis_server.url, access_map_path=ACCESS_MAP
        ),
        embedder=embedder,
    )
    yield rt
    rt.close()


@pytest.fixture()
def service(runtime: Runtime) -> AnswerService:
    return runtime.service()


def test_everyone_user_gets_no_restricted_quote(service: AnswerService) -> None:
    asker = service.resolver.scope_for_user("U0PLAIN01")
    d = service.ask(
        RESTRICTED_Q, "r-1", asker=asker, audience=service.resolver.audience_for_channel("C0PUBLIC")
    )
    assert all(c.path != "sre/break-glass-access.md" for c in d.public.citations)
    assert d.private is None


def test_sre_user_in_public_channel_gets_it_privately(service: AnswerService) -> None:
    asker = service.resolver.scope_for_user(SRE_USER)
    assert "sre" in asker.groups
    d = service.ask(
        RESTRICTED_Q, "r-2", asker=asker, audience=service.resolver.audience_for_channel("C0PUBLIC")
    )
    assert all(c.path != "sre/break-glass-access.md" for c in d.public.citations)
    assert d.private is not None
    assert d.private.citations[0].path == "sre/break-glass-access.md"
    if d.public.state == "answer":
        assert any(w.kind == "restricted-omitted" for w in d.public.warnings)


def test_sre_user_in_sre_channel_gets_it_in_thread(service: AnswerService) -> None:
    asker = service.resolver.scope_for_user(SRE_USER)
    audience = service.resolver.audience_for_channel(SRE_CHANNEL)
    d = service.ask(RESTRICTED_Q, "r-3", asker=asker, audience=audience)
    assert d.public.citations[0].path == "sre/break-glass-access.md"
    assert d.private is None


def test_second_ask_is_a_cache_hit(service: AnswerService) -> None:
    asker = service.resolver.scope_for_groups(["everyone"])
    q = "payment provider latency is high, how do we switch to the secondary provider"
    first = service.ask(q, "r-4", asker=asker)
    second = service.ask(q, "r-5", asker=asker)
    assert not first.cache_hit and second.cache_hit
    assert second.public.citations == first.public.citations
    assert second.public.question == q


def test_scopes_do_not_share_cache_entries(service: AnswerService) -> None:
    everyone = service.resolver.scope_for_groups(["everyone"])
    sre = service.resolver.scope_for_groups(["everyone", "sre"])
    assert (
        service.ask(RESTRICTED_Q, "a", asker=sre).public.citations[0].path
        == "sre/break-glass-access.md"
    )
    d = service.ask(RESTRICTED_Q, "b", asker=everyone)
    assert not d.cache_hit
    assert all(c.path != "sre/break-glass-access.md" for c in d.public.citations)


def test_a_pinned_runbooks_anchor_is_part_of_the_cache_key(
    tmp_path: Path, embedder: FastEmbedder, redis_server: RedisServer
) -> None:
    """The same alert text pinned to one file of runbooks at two anchors: two answers,
    each from its own runbook, neither served from the other's cache entry."""
    root = tmp_path / "runbooks"
    root.mkdir()
    (root / "alerts.md").write_text(COLLECTION, encoding="utf-8")
    settings = load_settings(data_dir=tmp_path / "data", redis_url=redis_server.url)
    rt = Runtime(settings, embedder=embedder)
    try:
        rt.ingest(root)
        service = rt.service()
        asker = service.resolver.scope_for_groups(["everyone"])
        sid = "runbooks:alerts"
        q = "BrokerVolumeAlmostFull firing"
        disk = service.ask(q, "r-a", asker=asker, pinned=sid, anchor="diskalmostfull")
        queue = service.ask(q, "r-b", asker=asker, pinned=sid, anchor="queue-disk-full")
        again = service.ask(q, "r-c", asker=asker, pinned=sid, anchor="queue-disk-full")
    finally:
        rt.close()
    assert not queue.cache_hit and again.cache_hit
    assert {c.section.split(" > ")[0] for c in disk.public.citations} == {"DiskAlmostFull"}
    assert {c.section.split(" > ")[0] for c in queue.public.citations} == {"QueueDiskFull"}


def test_a_link_to_a_runbook_in_the_question_answers_from_that_runbook(
    service: AnswerService,
) -> None:
    asker = service.resolver.scope_for_user("U0PLAIN01")
    link = "https://github.com/acme/runbooks/blob/main/platform/disk-full.md#mitigation"
    d = service.ask(f"what do i do per {link}", "r-link", asker=asker)
    assert d.public.state == "answer"
    assert d.public.citations[0].path == "platform/disk-full.md"
    assert d.public.citations[0].section.startswith("Mitigation")
    # a runbook the asker may not read is not quoted because its path was pasted
    hidden = service.ask("what does sre/break-glass-access.md say", "r-link2", asker=asker)
    assert all(c.path != "sre/break-glass-access.md" for c in hidden.public.citations)
    # a dashboard link names no runbook: the words are searched as usual
    graph = service.ask(
        "disk full on a node https://grafana.example.com/d/x1/disk-full", "r-link3", asker=asker
    )
    assert graph.public.citations[0].path == "platform/disk-full.md"


def test_reingest_of_changed_runbook_is_not_served_from_cache(
    runtime: Runtime, service: AnswerService, tmp_path: Path
) -> None:
    corpus = tmp_path / "runbooks"
    shutil.copytree(SAMPLE_RUNBOOKS, corpus)
    runtime.ingestor.run(corpus, runtime.ingest_options())  # same content: no new generation
    asker = service.resolver.scope_for_groups(["everyone"])
    q = "node disk almost full what can i delete"
    first = service.ask(q, "r-6", asker=asker)
    assert service.ask(q, "r-7", asker=asker).cache_hit
    path = corpus / first.public.citations[0].path
    path.write_text(path.read_text(encoding="utf-8") + "\n## Addendum\n\nCall @platform-oncall.\n")
    report = runtime.ingestor.run(corpus, runtime.ingest_options())
    assert report.changed
    third = service.ask(q, "r-8", asker=asker)
    assert not third.cache_hit
    assert third.public.generation > first.public.generation
    assert third.public.citations[0].revision != first.public.citations[0].revision


def test_redis_down_answers_without_cache(
    service: AnswerService, redis_server: RedisServer
) -> None:
    asker = service.resolver.scope_for_groups(["everyone"])
    redis_server.stop()
    d = service.ask("checkout-api database connection refused", "r-9", asker=asker)
    assert d.public.state == "answer" and not d.cache_hit
    redis_server.start()


def test_query_log_is_redacted(runtime: Runtime, service: AnswerService) -> None:
    asker = service.resolver.scope_for_groups(["everyone"])
    token = "xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx"
    service.ask(
        f"checkout db down, token {token} password=hunter2", "r-10", asker=asker, user_id="U1"
    )
    records = runtime.query_log.recent(1)
    assert records and records[-1].request_id == "r-10"
    assert token not in records[-1].question and "hunter2" not in records[-1].question
    assert records[-1].user_hash != "U1"
