"""The Confluence source against a local fake Confluence REST API, through
atlassian-python-api, into a real embedded Qdrant with the real model."""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from bot.cli import main
from bot.runtime import Runtime
from bot.settings import load_settings
from core.models import SearchFilter
from ingest.documents import UNREADABLE_GROUP
from ingest.errors import SourceUnavailableError
from ingest.sources.base import Source
from retrieval.search.embeddings import FastEmbedder
from tests.fakes.confluence_api import FakeConfluence, code_macro, panel

TOKEN = "ATATT3xFfGF0-confluence-test-token-0123456789"
EMAIL = "runbook-bot@acme.example"
RESTART = "kubectl -n checkout rollout restart deploy/pgbouncer"


def failover(pooler: str = "pgbouncer") -> str:
    return (
        "<p>Checkout cannot reach the checkout-db Postgres cluster (CHK-5023).</p>"
        "<h2>Diagnosis</h2><ul><li>Look for CHK-5023 in the checkout-api logs.</li></ul>"
        "<h2>Mitigation</h2><ol><li><p>Restart the pooler:</p>"
        + code_macro(f"kubectl -n checkout rollout restart deploy/{pooler}")
        + "</li><li>Scale checkout-api down to 4 replicas.</li></ol>"
        + panel("warning", "<p>Never delete the checkout-db volume.</p>")
    )


ACCESS_MAP = """\
groups:
  sre:
    users: [U0SRE0001]
    confluence_groups: [sre-team]
    confluence_users: [acct-ada]
  dba:
    confluence_groups: [dba-team]
  everyone: {}
"""


@pytest.fixture()
def fake() -> Iterator[FakeConfluence]:
    with FakeConfluence(token=TOKEN, email=EMAIL, max_page_size=2) as server:
        yield server


@pytest.fixture()
def content(fake: FakeConfluence) -> dict[str, str]:
    root = fake.add_page("Runbooks", "<p>The on-call runbooks of the operations team.</p>")
    return {
        "root": root,
        "failover": fake.add_page(
            "Checkout DB failover",
            failover(),
            parent=root,
            labels=["runbook", "alert-chk5023", "service-checkout", "owner-dba-oncall"],
        ),
        "disk": fake.add_page(
            "Node disk full",
            "<h2>Mitigation</h2>"
            "<p>Vacuum journald: <code>journalctl --vacuum-size=500M</code>.</p>",
            parent=root,
            labels=["runbook"],
            properties={"runbook-owner": {"name": "Platform on-call"}},
        ),
        "dns": fake.add_page(
            "CoreDNS latency",
            "<h2>Mitigation</h2><p>Scale coredns to 4 replicas.</p>",
            parent=root,
        ),
        "elsewhere": fake.add_page(
            "Team lunch rota",
            "<p>Fridays.</p>",
            space="SOCIAL",
        ),
    }


def sources_file(tmp_path: Path, entry: str, extra: str = "") -> Path:
    path = tmp_path / "sources.yaml"
    path.write_text("sources:\n" + entry + extra, encoding="utf-8")
    return path


SPACE = (
    "  - name: wiki\n"
    "    kind: confluence\n"
    "    space: OPS\n"
    "    owner_property: runbook-owner\n"
    "    owner_label_prefix: owner-\n"
    "    alert_label_prefix: alert-\n"
    "    service_label_prefix: service-\n"
)


def make_runtime(
    tmp_path: Path, fake: FakeConfluence, embedder: FastEmbedder, entry: str = SPACE, **more: object
) -> Runtime:
    tmp_path.mkdir(parents=True, exist_ok=True)
    access = tmp_path / "access.yml"
    access.write_text(ACCESS_MAP, encoding="utf-8")
    settings = load_settings(
        data_dir=tmp_path / "data",
        sources_path=sources_file(tmp_path, entry),
        access_map_path=access,
        confluence_base_url=fake.base_url,
        confluence_email=more.pop("email", EMAIL),
        confluence_token=more.pop("token", TOKEN),
        confluence_retries=more.pop("retries", 2),
        **more,
    )
    return Runtime(settings, embedder=embedder)


@pytest.fixture()
def rt(
    tmp_path: Path, fake: FakeConfluence, content: dict[str, str], embedder: FastEmbedder
) -> Iterator[Runtime]:
    runtime = make_runtime(tmp_path, fake, embedder)
    yield runtime
    runtime.close()


def wiki(rt: Runtime) -> Source:
    (source,) = rt.configured_sources()
    return source


def sid(page_id: str) -> str:
    return f"wiki:{page_id}"


def live_text(rt: Runtime) -> str:
    return "\n".join(c.text for c in rt.vector_index.live_chunks())


def test_a_space_is_indexed_across_pages_of_results_with_metadata_from_properties(
    rt: Runtime, fake: FakeConfluence, content: dict[str, str]
) -> None:
    report = rt.ingest(wiki(rt))
    assert sorted(report.added) == sorted(
        sid(content[k]) for k in ("root", "failover", "disk", "dns")
    )
    searches = fake.requests_to("/rest/api/search")
    assert [r.query.get("start") for r in searches] == ["0", "2"]  # two per response
    assert all(r.query["cql"] == 'type = page AND space = "OPS"' for r in searches)
    assert all(r.headers["Authorization"].startswith("Basic ") for r in fake.requests)

    chunks = [c for c in rt.vector_index.live_chunks() if c.source_id == sid(content["failover"])]
    mitigation = next(c for c in chunks if c.heading_path[-1:] == ("Mitigation",))
    m = mitigation.metadata
    assert mitigation.title == "Checkout DB failover"
    assert m.owner == "dba-oncall"  # the owner- label
    assert m.alerts == ("chk5023",) and m.service == "checkout"
    assert m.updated == date(2026, 3, 4)  # the version's date
    assert m.access == ("everyone",)
    page = f"{fake.base_url}/pages/viewpage.action?pageId={content['failover']}&pageVersion=1"
    assert m.url == f"{page}#Mitigation"
    intro = next(c for c in chunks if not c.heading_path)
    assert intro.metadata.url == page  # before the first heading: the page itself

    owners = {c.source_id: c.metadata.owner for c in rt.vector_index.live_chunks()}
    assert owners[sid(content["disk"])] == "Platform on-call"  # the content property
    assert owners[sid(content["dns"])] == "Grace Hopper"  # else the page's creator


def test_quotes_are_verbatim_spans_of_the_page_markdown(rt: Runtime) -> None:
    rt.ingest(wiki(rt))
    answer = rt.extractive.answer("how do I restart pgbouncer for checkout?")
    assert answer.citations, answer
    texts = {p.document.source_id: p.document.text for p in wiki(rt).read({}).documents}
    for c in answer.citations:
        assert texts[c.source_id][c.start : c.end] == c.quote
    quoted = "\n".join(c.quote for c in answer.citations)
    assert RESTART in quoted
    assert all("pageVersion=1#" in (c.url or "") for c in answer.citations)


def test_unchanged_versions_are_not_fetched_again_and_edits_are(
    rt: Runtime,
    fake: FakeConfluence,
    content: dict[str, str],
    tmp_path: Path,
    embedder: FastEmbedder,
) -> None:
    first = rt.ingest(wiki(rt))
    rt.close()
    fake.clear()
    again_rt = make_runtime(tmp_path, fake, embedder)
    again = again_rt.ingest(wiki(again_rt))
    assert (again.unchanged, again.chunks_embedded, again.generation) == (4, 0, first.generation)
    assert fake.bodies_read() == set()
    assert "vector_index" not in again_rt.__dict__, "the store should not have been opened"

    fake.edit_page(content["failover"], failover(pooler="odyssey"))
    fake.clear()
    edited = again_rt.ingest(wiki(again_rt))
    assert edited.changed == (sid(content["failover"]),) and edited.unchanged == 3
    assert fake.bodies_read() == {content["failover"]}
    texts = live_text(again_rt)
    assert "deploy/odyssey" in texts and "deploy/pgbouncer" not in texts
    urls = {c.metadata.url for c in again_rt.vector_index.live_chunks()}
    assert any(f"pageId={content['failover']}&pageVersion=2" in (u or "") for u in urls)
    again_rt.close()


def test_a_page_tree_moved_out_archived_and_deleted_pages_leave_in_the_same_sync(
    tmp_path: Path, fake: FakeConfluence, content: dict[str, str], embedder: FastEmbedder
) -> None:
    folder = tmp_path / "payments-docs"
    folder.mkdir()
    (folder / "refunds.md").write_text("# Refunds stuck\n\n## Mitigation\n\nReplay the queue.\n")
    tree = f"  - name: wiki\n    kind: confluence\n    page: '{content['root']}'\n"
    other = "  - name: payments\n    kind: markdown_dir\n    path: payments-docs\n"
    rt = make_runtime(tmp_path, fake, embedder, tree + other)
    try:
        wiki_source, payments = rt.configured_sources()
        rt.ingest(payments)
        first = rt.ingest(wiki_source)
        assert len(first.added) == 4
        assert fake.requests_to("/rest/api/search")[0].query["cql"] == (
            f"type = page AND (id = {content['root']} OR ancestor = {content['root']})"
        )
        sub = fake.add_page("Sub runbook", "<p>Restart the sub worker.</p>", parent=content["disk"])
        assert sid(sub) in rt.ingest(wiki_source).added  # a grandchild is in the tree

        fake.move(content["disk"], None)  # moved out of the tree, with the page under it
        fake.archive(content["dns"])
        fake.delete(content["failover"])
        report = rt.ingest(wiki_source)
        gone = {content[k] for k in ("disk", "dns", "failover")}
        assert set(report.removed) == {sid(p) for p in gone | {sub}}
        live = {c.source_id for c in rt.vector_index.live_chunks()}
        assert live == {sid(content["root"]), "payments:refunds"}  # the other source stays
    finally:
        rt.close()


def test_a_label_source_reads_the_labelled_pages_of_its_space(
    tmp_path: Path, fake: FakeConfluence, content: dict[str, str], embedder: FastEmbedder
) -> None:
    labelled = "  - name: wiki\n    kind: confluence\n    space: OPS\n    label: runbook\n"
    rt = make_runtime(tmp_path, fake, embedder, labelled)
    try:
        first = rt.ingest(wiki(rt))
        assert sorted(first.added) == sorted(sid(content[k]) for k in ("failover", "disk"))
        fake.set_labels(content["disk"], ["retired"])  # no version change: still noticed
        assert rt.ingest(wiki(rt)).removed == (sid(content["disk"]),)
    finally:
        rt.close()


def test_restrictions_map_to_access_groups_and_are_inherited_from_ancestors(
    tmp_path: Path,
    fake: FakeConfluence,
    content: dict[str, str],
    embedder: FastEmbedder,
    capsys: pytest.CaptureFixture[str],
) -> None:
    vault = fake.add_page(
        "Vault unseal",
        "<h2>Mitigation</h2><p>Unseal vault with three of the five unseal keys.</p>",
        parent=content["root"],
        read_groups=["sre-team"],
    )
    child = fake.add_page(
        "Vault root token rotation",
        "<h2>Mitigation</h2><p>Rotate the vault root token with the break-glass runbook.</p>",
        parent=vault,
    )
    both = fake.add_page(
        "Vault storage migration",
        "<p>Migrate vault storage to raft.</p>",
        parent=vault,
        read_users=["acct-ada"],
    )
    secret = fake.add_page(
        "HR escalations",
        "<p>Call the HR duty phone.</p>",
        parent=content["root"],
        read_groups=["hr-team"],
        read_users=["acct-zoe"],
    )
    tree = f"  - name: wiki\n    kind: confluence\n    page: '{vault}'\n"
    rt = make_runtime(tmp_path, fake, embedder)
    tree_rt = make_runtime(tmp_path / "tree", fake, embedder, tree)
    try:
        report = rt.ingest(wiki(rt))
        access = {c.source_id: c.metadata.access for c in rt.vector_index.live_chunks()}
        assert access[sid(vault)] == ("sre",)
        assert access[sid(child)] == ("sre",)  # under a restricted ancestor
        assert access[sid(both)] == ("sre",)  # its own user restriction and its ancestor's
        assert access[sid(secret)] == (UNREADABLE_GROUP,)
        assert access[sid(content["dns"])] == ("everyone",)
        said = [w for w in report.warnings if "readable by nobody" in w]
        assert len(said) == 1 and "HR escalations" in said[0] and "group hr-team" in said[0]

        everyone = rt.extractive.answer(
            "how do I unseal vault?", SearchFilter(groups=("everyone",))
        )
        assert all("vault" not in (c.title or "").lower() for c in everyone.citations)
        sre = rt.extractive.answer("how do I unseal vault?", SearchFilter(groups=("sre",)))
        assert any(c.source_id == sid(vault) for c in sre.citations)

        # a tree whose root sits under nothing restricted, but is restricted itself, and
        # whose ancestor outside the tree is read for its restriction
        tree_report = tree_rt.ingest(wiki(tree_rt))
        assert sorted(tree_report.added) == sorted(sid(p) for p in (vault, child, both))
        tree_access = {c.source_id: c.metadata.access for c in tree_rt.vector_index.live_chunks()}
        assert set(tree_access.values()) == {("sre",)}
        assert fake.requests_to(f"/rest/api/content/{content['root']}")  # the ancestor

        # a restriction added or removed reaches the index on the next sync
        fake.restrict(vault)  # lifted: the child is public too
        fake.restrict(content["dns"], groups=["dba-team"])
        fake.clear()
        again = rt.ingest(wiki(rt))
        assert set(again.changed) == {sid(vault), sid(child), sid(content["dns"])}
        access = {c.source_id: c.metadata.access for c in rt.vector_index.live_chunks()}
        assert access[sid(vault)] == access[sid(child)] == ("everyone",)
        assert access[sid(both)] == ("sre",)
        assert access[sid(content["dns"])] == ("dba",)
        said = [w for w in again.warnings if "readable by nobody" in w]
        assert len(said) == 1  # once per page, each sync
    finally:
        rt.close()
        tree_rt.close()


def test_a_429_storm_honours_retry_after_then_fails_keeping_the_previous_index(
    rt: Runtime, fake: FakeConfluence, content: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    first = rt.ingest(wiki(rt))
    fake.edit_page(content["failover"], failover(pooler="odyssey"))

    fake.retry_after = "1"
    fake.clear()
    fake.fail_next("/rest/api/search", 429, times=2)  # a short burst is waited out
    started = time.monotonic()
    passed = rt.ingest(wiki(rt))
    assert time.monotonic() - started >= 2.0  # Retry-After: 1, twice
    assert passed.changed == (sid(content["failover"]),)

    fake.edit_page(content["failover"], failover(pooler="pgcat"))
    fake.retry_after = "0"
    fake.clear()
    fake.fail_next("/rest/api/search", 429, times=50)  # a storm is not
    caplog.set_level(logging.DEBUG)
    with pytest.raises(SourceUnavailableError, match="429") as failed:
        rt.ingest(wiki(rt))
    assert len(fake.requests_to("/rest/api/search")) == 3  # RUNBOOK_CONFLUENCE_RETRIES=2
    assert "'wiki'" in str(failed.value)
    assert TOKEN not in str(failed.value) and TOKEN not in caplog.text
    assert rt.vector_index.generation() == passed.generation > first.generation
    texts = live_text(rt)
    assert "deploy/odyssey" in texts and "deploy/pgcat" not in texts


@pytest.mark.parametrize(
    ("prefix", "status"), [("/rest/api/content/", 500), ("/rest/api/search", 503)]
)
def test_server_errors_keep_the_previous_index(
    rt: Runtime,
    fake: FakeConfluence,
    content: dict[str, str],
    caplog: pytest.LogCaptureFixture,
    prefix: str,
    status: int,
) -> None:
    first = rt.ingest(wiki(rt))
    fake.edit_page(content["failover"], failover(pooler="odyssey"))
    fake.fail_next(prefix, status, times=1)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(SourceUnavailableError, match=f"HTTP {status}") as failed:
        rt.ingest(wiki(rt))
    assert TOKEN not in str(failed.value) and TOKEN not in caplog.text
    assert rt.vector_index.generation() == first.generation
    texts = live_text(rt)
    assert "deploy/pgbouncer" in texts and "deploy/odyssey" not in texts


def test_a_refused_token_is_reported_without_the_token(
    tmp_path: Path,
    fake: FakeConfluence,
    content: dict[str, str],
    embedder: FastEmbedder,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = "ATATT3xFfGF0-wrong-token-9876543210"
    runtime = make_runtime(tmp_path, fake, embedder, token=wrong)
    try:
        with pytest.raises(SourceUnavailableError, match="HTTP 401 unauthorized") as failed:
            runtime.ingest(wiki(runtime))
    finally:
        runtime.close()
    assert wrong not in str(failed.value) and wrong not in caplog.text


def test_data_center_uses_a_personal_access_token_and_its_anchors(
    tmp_path: Path, content: dict[str, str], embedder: FastEmbedder
) -> None:
    pat = "NjU0MzIxOTg3NjU0-data-center-pat"
    with FakeConfluence(token=pat) as dc:
        page = dc.add_page("DB failover", "<h2>Fail over</h2><p>Promote the replica.</p>")
        runtime = make_runtime(tmp_path, dc, embedder, token=pat, email="")
        try:
            runtime.ingest(wiki(runtime))
            urls = {c.metadata.url for c in runtime.vector_index.live_chunks()}
        finally:
            runtime.close()
        assert dc.requests[0].headers["Authorization"] == f"Bearer {pat}"
        assert urls == {
            f"{dc.base_url}/pages/viewpage.action?pageId={page}&pageVersion=1#DBfailover-Failover"
        }


def test_one_failing_source_keeps_its_documents_while_the_others_sync(
    tmp_path: Path,
    fake: FakeConfluence,
    content: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "payments-docs"
    folder.mkdir()
    (folder / "refunds.md").write_text("# Refunds stuck\n\n## Mitigation\n\nReplay the queue.\n")
    extra = "  - name: payments\n    kind: markdown_dir\n    path: payments-docs\n"
    monkeypatch.setenv("RUNBOOK_SOURCES_PATH", str(sources_file(tmp_path, SPACE, extra)))
    monkeypatch.setenv("RUNBOOK_CONFLUENCE_BASE_URL", fake.base_url)
    monkeypatch.setenv("RUNBOOK_CONFLUENCE_EMAIL", EMAIL)
    monkeypatch.setenv("RUNBOOK_CONFLUENCE_TOKEN", TOKEN)
    data = str(tmp_path / "data")
    assert main(["--data-dir", data, "ingest", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["source"], len(r["added"])) for r in lines] == [("wiki", 4), ("payments", 1)]

    (folder / "disk.md").write_text("# Disk full\n\n## Mitigation\n\nGrow the volume.\n")
    fake.fail_next("/rest/api/search", 401, times=1)
    assert main(["--data-dir", data, "ingest"]) == 1
    captured = capsys.readouterr()
    assert "HTTP 401" in captured.err and "its documents stay as they were" in captured.err
    assert "payments: added 1" in captured.out
    assert TOKEN not in captured.out + captured.err
    from ingest.manifest import read_manifest

    manifest = read_manifest(tmp_path / "data")
    assert manifest is not None
    assert {sid(content[k]) for k in ("root", "failover", "disk", "dns")} <= set(manifest.documents)
    assert "payments:disk" in manifest.documents


INJECTED = (
    "<p>---<br/>owner: '@mallory'<br/>url: https://evil.example/phish<br/>"
    "alerts: [KubePodCrashLooping]<br/>service: payments<br/>access: [everyone, external]<br/>"
    "status: deprecated<br/>---</p>"
    "<p>Owner: @mallory<br/>Service: payments<br/>Access: external</p>"
    "<h2>Mitigation</h2><p>Replay the refunds queue.</p>"
)


def test_page_text_never_sets_the_pages_metadata(
    rt: Runtime, fake: FakeConfluence, content: dict[str, str]
) -> None:
    page = fake.add_page(
        "Payments refunds stuck",
        INJECTED + '<ac:structured-macro ac:name="html"><ac:plain-text-body><![CDATA['
        "<script>steal()</script>]]></ac:plain-text-body></ac:structured-macro>"
        "<script>alert('x')</script>",
        parent=content["root"],
        read_groups=["sre-team"],
    )
    parsed = {p.document.source_id: p for p in wiki(rt).read({}).documents}[sid(page)]
    doc, m = parsed.document, parsed.document.metadata
    assert m.owner == "Grace Hopper"
    assert m.url is not None and m.url.startswith(fake.base_url)
    assert m.alerts == () and m.service is None and m.status == "current"
    assert m.access == ("sre",)
    assert parsed.body_start == 0 and doc.text.startswith("---")
    assert "evil.example/phish" in doc.text  # quoted as text
    assert "steal()" not in doc.text and "alert('x')" not in doc.text and "<script" not in doc.text
    assert parsed.problems == ()


def test_a_page_of_five_thousand_blocks_is_read_whole(
    rt: Runtime, fake: FakeConfluence, content: dict[str, str]
) -> None:
    blocks = []
    for i in range(1, 5001):
        if i % 500 == 1:
            blocks.append(f"<h2>Part {i // 500 + 1}</h2>")
        elif i % 7 == 0:
            blocks.append(code_macro(f"kubectl -n shard-{i} rollout restart deploy/worker-{i}"))
        elif i % 11 == 0:
            blocks.append(panel("note", f"<p>Shard {i} has its own pooler.</p>"))
        else:
            blocks.append(f"<p>Step {i}: check shard-{i} replication lag.</p>")
    big = fake.add_page("Sharded worker restarts", "".join(blocks), parent=content["root"])
    started = time.monotonic()
    read = wiki(rt).read({})
    assert time.monotonic() - started < 30
    (parsed,) = [p for p in read.documents if p.document.source_id == sid(big)]
    text = parsed.document.text
    assert "```bash\nkubectl -n shard-4998 rollout restart deploy/worker-4998\n```" in text
    assert "Step 4999: check shard-4999 replication lag." in text
    assert text.count("> [!NOTE]") == sum(1 for i in range(1, 5001) if i % 11 == 0 and i % 7)
    assert len(parsed.anchors) == 10

    from ingest.chunker import chunk_document

    chunks = chunk_document(parsed.document, parsed.body_start)
    covered = "".join(text[c.start : c.end] for c in chunks)
    assert "deploy/worker-4998" in covered and "shard-4999 replication lag" in covered


def test_the_settings_reach_the_source_from_the_environment(
    fake: FakeConfluence, content: dict[str, str], tmp_path: Path
) -> None:
    saved = dict(os.environ)
    os.environ.update(
        {
            "RUNBOOK_CONFLUENCE_BASE_URL": fake.base_url + "/",
            "RUNBOOK_CONFLUENCE_EMAIL": EMAIL,
            "RUNBOOK_CONFLUENCE_TOKEN": TOKEN,
            "RUNBOOK_CONFLUENCE_RETRIES": "0",
        }
    )
    try:
        settings = load_settings(data_dir=tmp_path / "data")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    conf = settings.source_settings["confluence"]
    assert conf["base_url"] == fake.base_url and conf["email"] == EMAIL
    assert conf["retries"] == 0 and conf["token"].get_secret_value() == TOKEN
    assert TOKEN not in repr(settings)
