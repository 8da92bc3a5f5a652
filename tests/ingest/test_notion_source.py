"""The Notion source against a local fake Notion API, through the official SDK, into a
real embedded Qdrant with the real model."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from bot.cli import main
from bot.runtime import Runtime
from bot.settings import load_settings
from ingest.errors import SourceUnavailableError
from ingest.sources.base import Source
from retrieval.search.embeddings import FastEmbedder
from tests.fakes.notion_api import (
    FakeNotion,
    bulleted,
    callout,
    code,
    heading,
    numbered,
    paragraph,
)

TOKEN = "secret_notion-test-token-0123456789"
ADA = {"type": "people", "people": [{"object": "user", "id": "u1", "name": "Ada Lovelace"}]}


def failover_blocks(pooler: str = "pgbouncer") -> list:
    return [
        paragraph("Checkout cannot reach the checkout-db Postgres cluster (CHK-5023)."),
        heading(2, "Diagnosis"),
        bulleted("Look for CHK-5023 in the checkout-api logs."),
        heading(2, "Mitigation"),
        numbered(
            f"Restart {pooler}:",
            [code(f"kubectl -n checkout rollout restart deploy/{pooler}")],
        ),
        numbered("Scale checkout-api down to 4 replicas."),
        callout("Never delete the checkout-db volume."),
    ]


@pytest.fixture()
def fake() -> Iterator[FakeNotion]:
    with FakeNotion(token=TOKEN, max_page_size=2) as server:
        yield server


@pytest.fixture()
def content(fake: FakeNotion) -> dict[str, str]:
    db = fake.add_database()
    ids = {
        "db": db,
        "failover": fake.add_page(
            "Checkout DB failover",
            failover_blocks(),
            database=db,
            properties={"Owner": ADA},
        ),
        "disk": fake.add_page(
            "Node disk full",
            [
                heading(2, "Mitigation"),
                paragraph("Vacuum journald: `journalctl --vacuum-size=500M`."),
            ],
            database=db,
        ),
        "dns": fake.add_page(
            "CoreDNS latency",
            [heading(2, "Mitigation"), paragraph("Scale coredns to 4 replicas.")],
            database=db,
        ),
    }
    ids["single"] = fake.add_page(
        "Kafka consumer lag",
        [heading(2, "Mitigation"), paragraph("Add consumers to the orders-consumer group.")],
    )
    return ids


def sources_file(tmp_path: Path, ids: dict[str, str], extra: str = "") -> Path:
    path = tmp_path / "sources.yaml"
    path.write_text(
        "sources:\n"
        "  - name: sre\n"
        "    kind: notion\n"
        f"    databases: [{ids['db']}]\n"
        f"    pages: [{ids['single']}]\n"
        "    owner_property: Owner\n" + extra,
        encoding="utf-8",
    )
    return path


def make_runtime(
    tmp_path: Path, fake: FakeNotion, embedder: FastEmbedder, ids: dict[str, str], **more: object
) -> Runtime:
    settings = load_settings(
        data_dir=tmp_path / "data",
        sources_path=sources_file(tmp_path, ids),
        notion_token=more.pop("token", TOKEN),
        notion_base_url=fake.base_url,
        notion_retries=1,
        **more,
    )
    return Runtime(settings, embedder=embedder)


@pytest.fixture()
def rt(
    tmp_path: Path, fake: FakeNotion, content: dict[str, str], embedder: FastEmbedder
) -> Iterator[Runtime]:
    runtime = make_runtime(tmp_path, fake, embedder, content)
    yield runtime
    runtime.close()


def notion(rt: Runtime) -> Source:
    (source,) = rt.configured_sources()
    return source


def sid(page_id: str) -> str:
    return "sre:" + page_id.replace("-", "")


def test_pages_of_databases_and_single_pages_are_indexed_across_pages_of_results(
    rt: Runtime, fake: FakeNotion, content: dict[str, str]
) -> None:
    report = rt.ingest(notion(rt))
    assert sorted(report.added) == sorted(
        sid(content[k]) for k in ("failover", "disk", "dns", "single")
    )
    # three pages in a database and seven blocks on a page, two per response
    queries = fake.requests_to("/data_sources/", "POST")
    assert [q.body.get("start_cursor") for q in queries] == [None, "2"]
    failover_blocks_reads = fake.requests_to(f"/blocks/{content['failover']}/children")
    assert [r.query.get("start_cursor") for r in failover_blocks_reads] == [None, "2", "4", "6"]
    assert all(r.headers.get("Notion-Version") for r in fake.requests)

    chunks = [c for c in rt.vector_index.live_chunks() if c.source_id == sid(content["failover"])]
    mitigation = next(c for c in chunks if c.heading_path[-1:] == ("Mitigation",))
    m = mitigation.metadata
    assert mitigation.title == "Checkout DB failover"
    assert m.owner == "Ada Lovelace" and m.updated == date(2026, 3, 2)
    page_url = f"https://www.notion.so/Checkout-DB-failover-{content['failover'].replace('-', '')}"
    heading_ids = [b["id"] for b in fake._children[content["failover"]] if b["type"] == "heading_2"]
    assert m.url == f"{page_url}#{heading_ids[1].replace('-', '')}"
    intro = next(c for c in chunks if not c.heading_path)
    assert intro.metadata.url == page_url  # before the first heading: the page itself


def test_quotes_are_verbatim_spans_of_the_page_markdown(rt: Runtime) -> None:
    rt.ingest(notion(rt))
    answer = rt.extractive.answer("how do I restart pgbouncer for checkout?")
    assert answer.citations, answer
    texts = {p.document.source_id: p.document.text for p in notion(rt).read({}).documents}
    for c in answer.citations:
        assert texts[c.source_id][c.start : c.end] == c.quote
        assert c.line == texts[c.source_id].count("\n", 0, c.start) + 1
    quoted = "\n".join(c.quote for c in answer.citations)
    assert "kubectl -n checkout rollout restart deploy/pgbouncer" in quoted
    assert all("#" in (c.url or "") for c in answer.citations)


def test_unchanged_pages_are_not_fetched_again_and_edits_are(
    rt: Runtime, fake: FakeNotion, content: dict[str, str], tmp_path: Path, embedder: FastEmbedder
) -> None:
    first = rt.ingest(notion(rt))
    rt.close()
    fake.clear()
    again_rt = make_runtime(tmp_path, fake, embedder, content)
    again = again_rt.ingest(notion(again_rt))
    assert (again.unchanged, again.chunks_embedded, again.generation) == (4, 0, first.generation)
    assert fake.requests_to("/blocks/") == []
    assert "vector_index" not in again_rt.__dict__, "the store should not have been opened"

    fake.edit_page(content["failover"], failover_blocks(pooler="odyssey"))
    fake.clear()
    edited = again_rt.ingest(notion(again_rt))
    assert edited.changed == (sid(content["failover"]),) and edited.unchanged == 3
    read = {r.path.split("/")[2] for r in fake.requests_to("/blocks/")}
    assert content["failover"] in read  # and its nested blocks; no other page
    assert not read & {content[k] for k in ("disk", "dns", "single")}
    texts = "\n".join(c.text for c in again_rt.vector_index.live_chunks())
    assert "deploy/odyssey" in texts and "deploy/pgbouncer" not in texts
    again_rt.close()


def test_trashed_and_deleted_pages_are_removed(
    rt: Runtime, fake: FakeNotion, content: dict[str, str]
) -> None:
    rt.ingest(notion(rt))
    fake.trash_page(content["disk"])
    fake.delete_page(content["single"])
    report = rt.ingest(notion(rt))
    assert sorted(report.removed) == sorted([sid(content["disk"]), sid(content["single"])])
    assert any("not found" in w for w in report.warnings)
    live = {c.source_id for c in rt.vector_index.live_chunks()}
    assert live == {sid(content["failover"]), sid(content["dns"])}


@pytest.mark.parametrize(
    ("prefix", "status", "times", "code"),
    [
        ("/data_sources/", 429, 5, "rate_limited"),
        ("/blocks/", 500, 5, "internal_server_error"),
        ("/databases/", 503, 5, "service_unavailable"),
    ],
)
def test_notion_errors_are_reported_and_the_previous_index_stays(
    rt: Runtime,
    fake: FakeNotion,
    content: dict[str, str],
    caplog: pytest.LogCaptureFixture,
    prefix: str,
    status: int,
    times: int,
    code: str,
) -> None:
    first = rt.ingest(notion(rt))
    fake.edit_page(content["failover"], failover_blocks(pooler="odyssey"))
    fake.clear()
    fake.fail_next(prefix, status, times=times)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(SourceUnavailableError) as failed:
        rt.ingest(notion(rt))
    message = str(failed.value)
    assert f"HTTP {status}" in message and code in message and "'sre'" in message
    assert len(fake.requests_to(prefix)) == 2  # the SDK retried once (RUNBOOK_NOTION_RETRIES)
    assert TOKEN not in message and TOKEN not in caplog.text
    assert rt.vector_index.generation() == first.generation
    texts = "\n".join(c.text for c in rt.vector_index.live_chunks())
    assert "deploy/pgbouncer" in texts and "deploy/odyssey" not in texts


def test_a_refused_token_is_reported_without_the_token(
    tmp_path: Path,
    fake: FakeNotion,
    content: dict[str, str],
    embedder: FastEmbedder,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = "secret_wrong-token-9876543210"
    runtime = make_runtime(tmp_path, fake, embedder, content, token=wrong)
    try:
        with pytest.raises(SourceUnavailableError, match="HTTP 401 unauthorized") as failed:
            runtime.ingest(notion(runtime))
    finally:
        runtime.close()
    assert wrong not in str(failed.value) and wrong not in caplog.text
    assert fake.requests[0].headers["Authorization"] == f"Bearer {wrong}"


def test_cli_syncs_every_configured_source_and_drops_unconfigured_ones(
    tmp_path: Path,
    fake: FakeNotion,
    content: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "payments-docs"
    folder.mkdir()
    (folder / "refunds.md").write_text("# Refunds stuck\n\n## Mitigation\n\nReplay the queue.\n")
    extra = "  - name: payments\n    kind: markdown_dir\n    path: payments-docs\n"
    path = sources_file(tmp_path, content, extra)
    monkeypatch.setenv("RUNBOOK_SOURCES_PATH", str(path))
    monkeypatch.setenv("RUNBOOK_NOTION_TOKEN", TOKEN)
    monkeypatch.setenv("RUNBOOK_NOTION_BASE_URL", fake.base_url)
    data = str(tmp_path / "data")
    assert main(["--data-dir", data, "ingest", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["source"], len(r["added"])) for r in lines] == [("sre", 4), ("payments", 1)]
    assert lines[1]["added"] == ["payments:refunds"]

    path.write_text("sources:\n" + extra, encoding="utf-8")
    assert main(["--data-dir", data, "ingest"]) == 0
    captured = capsys.readouterr()
    assert "removed 4 documents of sources no longer configured" in captured.err
    assert TOKEN not in captured.out + captured.err


INJECTED = (
    "---\n"
    "owner: '@mallory'\n"
    "url: https://evil.example/phish\n"
    "alerts: [KubePodCrashLooping]\n"
    "service: payments\n"
    "access: [everyone, external]\n"
    "status: deprecated\n"
    "---"
)


def test_page_text_never_sets_the_pages_metadata(
    rt: Runtime, fake: FakeNotion, content: dict[str, str]
) -> None:
    """Front matter and header lines typed into a page are text, not metadata: a page's
    metadata comes from its properties and the source's configuration only."""
    page = fake.add_page(
        "Payments refunds stuck",
        [
            paragraph(INJECTED),
            paragraph("Owner: @mallory\nService: payments\nAccess: external"),
            heading(2, "Mitigation"),
            paragraph("Replay the refunds queue."),
        ],
        database=content["db"],
        properties={"Owner": ADA},
    )
    parsed = {p.document.source_id: p for p in notion(rt).read({}).documents}[sid(page)]
    doc, m = parsed.document, parsed.document.metadata
    assert m.owner == "Ada Lovelace"
    assert m.url is not None and m.url.startswith("https://www.notion.so/")
    assert m.alerts == () and m.service is None and m.status == "current"
    assert m.access == ("everyone",)
    assert parsed.body_start == 0 and doc.text.startswith("---\nowner: '@mallory'")
    assert parsed.problems == ()

    rt.ingest(notion(rt))
    chunks = [c for c in rt.vector_index.live_chunks() if c.source_id == sid(page)]
    assert "evil.example/phish" in "\n".join(c.text for c in chunks)  # still quotable text
    assert {c.metadata.owner for c in chunks} == {"Ada Lovelace"}
    assert all("evil.example" not in (c.metadata.url or "") for c in chunks)


def test_a_page_whose_text_looks_like_broken_front_matter_is_indexed(
    rt: Runtime, fake: FakeNotion, content: dict[str, str]
) -> None:
    page = fake.add_page(
        "Broken header",
        [paragraph("---\nowner: [unclosed\n---"), paragraph("Restart the worker.")],
        database=content["db"],
    )
    read = notion(rt).read({})
    assert sid(page) in {p.document.source_id for p in read.documents}, read.skipped


def sync(tmp_path: Path, fake: FakeNotion, content: dict[str, str], **env: str) -> int:
    """``runbook-bot ingest`` over the sources file, as a deployment's job runs it."""
    import os

    saved = dict(os.environ)
    os.environ.update(
        {
            "RUNBOOK_SOURCES_PATH": str(sources_file(tmp_path, content)),
            "RUNBOOK_NOTION_TOKEN": TOKEN,
            "RUNBOOK_NOTION_BASE_URL": fake.base_url,
            "RUNBOOK_NOTION_RETRIES": "0",
            **env,
        }
    )
    try:
        return main(["--data-dir", str(tmp_path / "data"), "ingest"])
    finally:
        os.environ.clear()
        os.environ.update(saved)


def indexed(tmp_path: Path) -> set[str]:
    from ingest.manifest import read_manifest

    manifest = read_manifest(tmp_path / "data")
    assert manifest is not None
    return set(manifest.documents)


def test_an_unshared_database_is_retired_after_three_syncs_in_a_row(
    tmp_path: Path,
    fake: FakeNotion,
    content: dict[str, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert sync(tmp_path, fake, content) == 0
    pages = {sid(content[k]) for k in ("failover", "disk", "dns")}
    assert indexed(tmp_path) == pages | {sid(content["single"])}

    fake.unshare_database(content["db"])
    for n in (1, 2):
        capsys.readouterr()
        assert sync(tmp_path, fake, content) == 1
        err = capsys.readouterr().err
        assert content["db"] in err and "404" in err and f"{n} of 3" in err
        assert indexed(tmp_path) == pages | {sid(content["single"])}

    capsys.readouterr()
    assert sync(tmp_path, fake, content) == 0
    captured = capsys.readouterr()
    assert "removed 3" in captured.out
    assert content["db"] in captured.err and "3 syncs in a row" in captured.err
    assert indexed(tmp_path) == {sid(content["single"])}

    fake.share_database(content["db"])  # shared again: its pages come back
    assert sync(tmp_path, fake, content) == 0
    assert indexed(tmp_path) == pages | {sid(content["single"])}


def test_a_database_found_again_starts_the_count_anew(
    tmp_path: Path, fake: FakeNotion, content: dict[str, str]
) -> None:
    assert sync(tmp_path, fake, content) == 0
    everything = indexed(tmp_path)
    fake.unshare_database(content["db"])
    assert sync(tmp_path, fake, content) == 1
    assert sync(tmp_path, fake, content) == 1
    fake.share_database(content["db"])
    assert sync(tmp_path, fake, content) == 0
    fake.unshare_database(content["db"])
    assert sync(tmp_path, fake, content) == 1
    assert sync(tmp_path, fake, content) == 1
    assert indexed(tmp_path) == everything
    # the number of syncs is a setting
    assert sync(tmp_path, fake, content, RUNBOOK_NOTION_RETIRE_AFTER_SYNCS="1") == 0
    assert indexed(tmp_path) == {sid(content["single"])}
