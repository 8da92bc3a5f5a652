"""A team whose runbooks live partly in Confluence and partly in a git folder: one index,
synced by ``runbook-bot ingest`` from the sources file, answers a question from each
through Slack (the real bolt App over signed HTTP) and the CLI, and a page restricted in
Confluence is never shown to someone outside its groups, in a channel or privately.

Fake Confluence and Slack APIs at the network edge; real Redis, embedded Qdrant and the
real model.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.runtime import Runtime
from bot.settings import load_settings
from retrieval.search.embeddings import FastEmbedder
from tests.bot.slack_harness import SECRET, SlackHarness, text_of
from tests.conftest import RedisServer
from tests.fakes.confluence_api import FakeConfluence, code_macro, panel
from tests.fakes.slack_api import FakeSlackAPI

TOKEN = "ATATT3xFfGF0-scenario-confluence-token-42"
EMAIL = "runbook-bot@acme.example"
SRE_USER = "U0SRE0001"
PLAIN_USER = "U0PLAIN01"
PUBLIC_CHANNEL = "C0GENERAL1"

RESTART = "kubectl -n checkout rollout restart deploy/pgbouncer"
UNSEAL = "vault operator unseal -address=https://vault.internal:8200"
ROTATE = "vault operator generate-root -init -pgp-key=ops-root.asc"

FAILOVER = (
    "<p>Checkout cannot reach the checkout-db Postgres cluster: connection refused "
    "(CHK-5023).</p>"
    "<h2>Mitigation</h2><ol><li><p>Restart pgbouncer:</p>"
    + code_macro(RESTART)
    + "</li><li>Scale checkout-api down to 4 replicas.</li></ol>"
    + panel("warning", "<p>Never delete the checkout-db volume.</p>")
)
VAULT = (
    "<p>Vault is sealed after a restart and every secret read fails.</p>"
    "<h2>Mitigation</h2><ol><li><p>Unseal vault with three of the five unseal keys:</p>"
    + code_macro(UNSEAL)
    + "</li></ol>"
)
ROTATION = (
    "<p>The vault root token leaked or must be rotated.</p>"
    "<h2>Mitigation</h2><ol><li><p>Rotate the vault root token:</p>"
    + code_macro(ROTATE)
    + "</li></ol>"
)
KAFKA = """\
---
title: Kafka consumer lag on orders
service: orders
owner: "@orders-oncall"
---

# Kafka consumer lag on orders

## Mitigation

1. Add consumers to the orders-consumer group:
   `kubectl -n orders scale deploy/orders-consumer --replicas=12`
"""

ACCESS_MAP = f"""\
groups:
  sre:
    users: [{SRE_USER}]
    confluence_groups: [sre-team]
  everyone: {{}}
"""


def git_folder(root: Path) -> Path:
    (root / "kafka").mkdir(parents=True)
    (root / "kafka" / "consumer-lag.md").write_text(KAFKA, encoding="utf-8")
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-11-20T10:00:00Z"}
    env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"]
    for cmd in (
        ["init", "-q"],
        ["add", "."],
        ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "Kafka lag runbook"],
    ):
        subprocess.run(["git", "-C", str(root), *cmd], check=True, env=env)
    return root


@pytest.fixture()
def confluence() -> Iterator[FakeConfluence]:
    with FakeConfluence(token=TOKEN, email=EMAIL) as server:
        home = server.add_page("Operations runbooks", "<p>Runbooks of the operations team.</p>")
        server.add_page("Checkout DB failover", FAILOVER, parent=home, labels=["alert-chk5023"])
        vault = server.add_page("Vault unseal", VAULT, parent=home, read_groups=["sre-team"])
        server.add_page("Vault root token rotation", ROTATION, parent=vault)
        yield server


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        yield api


@pytest.fixture()
def runtime(
    tmp_path: Path,
    confluence: FakeConfluence,
    fake: FakeSlackAPI,
    redis_server: RedisServer,
    embedder: FastEmbedder,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Iterator[Runtime]:
    git_folder(tmp_path / "ops-runbooks")
    (tmp_path / "access.yml").write_text(ACCESS_MAP, encoding="utf-8")
    sources = tmp_path / "sources.yaml"
    sources.write_text(
        "sources:\n"
        "  - name: wiki\n"
        "    kind: confluence\n"
        "    space: OPS\n"
        "    alert_label_prefix: alert-\n"
        "  - name: ops\n"
        "    kind: markdown_dir\n"
        "    path: ops-runbooks\n"
        "    url_template: https://git.acme.example/ops/runbooks/blob/{commit}/{path}#L{line}\n",
        encoding="utf-8",
    )
    for name, value in {
        "RUNBOOK_SOURCES_PATH": str(sources),
        "RUNBOOK_ACCESS_MAP_PATH": str(tmp_path / "access.yml"),
        "RUNBOOK_CONFLUENCE_BASE_URL": confluence.base_url,
        "RUNBOOK_CONFLUENCE_EMAIL": EMAIL,
        "RUNBOOK_CONFLUENCE_TOKEN": TOKEN,
        "RUNBOOK_REDIS_URL": redis_server.url,
    }.items():
        monkeypatch.setenv(name, value)
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "ingest"]) == 0
    captured = capsys.readouterr()
    assert "wiki: added 4" in captured.out and "ops: added 1" in captured.out
    assert TOKEN not in captured.out + captured.err
    settings = load_settings(
        data_dir=data,
        slack_bot_token="xoxb-test",
        slack_signing_secret=SECRET,
        slack_api_url=fake.base_url,
    )
    rt = Runtime(settings, embedder=embedder)
    yield rt
    rt.close()


@pytest.fixture()
def slack(runtime: Runtime, fake: FakeSlackAPI) -> Iterator[SlackHarness]:
    h = SlackHarness(runtime, fake)
    yield h
    h.close()
    h.assert_valid()


def ask(slack: SlackHarness, question: str, user: str) -> str:
    _, response_id = slack.slash(question, user=user)
    (reply,) = slack.responses(response_id)
    return text_of(reply)


def test_one_index_answers_from_confluence_and_from_git(
    slack: SlackHarness, confluence: FakeConfluence, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = ask(
        slack, "checkout-db connection refused CHK-5023, how do I restart pgbouncer?", PLAIN_USER
    )
    assert RESTART in shown
    assert "Checkout DB failover" in shown
    assert f"{confluence.base_url}/pages/viewpage.action?pageId=" in shown
    assert "pageVersion=1#Mitigation" in shown

    shown = ask(slack, "kafka consumer lag on orders, how many consumers do I add?", PLAIN_USER)
    assert "kubectl -n orders scale deploy/orders-consumer --replicas=12" in shown
    assert "Kafka consumer lag on orders" in shown
    assert "git.acme.example/ops/runbooks/blob/" in shown

    # the CLI composes the same answer from the same index
    assert (
        main(
            [
                "--data-dir",
                str(slack.runtime.settings.data_dir),
                "ask",
                "--groups",
                "everyone",
                "how do I restart pgbouncer for CHK-5023?",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert RESTART in out and "pageVersion=1" in out


def test_a_restricted_page_is_never_shown_outside_its_groups(
    slack: SlackHarness, capsys: pytest.CaptureFixture[str]
) -> None:
    unseal = "vault is sealed, how do I unseal vault?"
    rotate = "how do I rotate the vault root token?"
    for question in (unseal, rotate):
        shown = ask(slack, question, PLAIN_USER)
        assert "Vault unseal" not in shown and "Vault root token rotation" not in shown
        assert "vault operator" not in shown and "generate-root" not in shown

    # the restriction's group reads both, the child through its restricted ancestor
    assert UNSEAL in ask(slack, unseal, SRE_USER)
    assert ROTATE in ask(slack, rotate, SRE_USER)

    # asked where everyone reads the reply: nothing restricted is posted there
    slack.mention(unseal, user=SRE_USER, channel=PUBLIC_CHANNEL)
    slack.settle()
    public = "\n".join(
        text_of(c)
        for c in slack.fake.calls_to("chat.postMessage")
        if c.params.get("channel") == PUBLIC_CHANNEL
    )
    assert public, "the mention got no reply in the channel"
    assert "vault operator unseal" not in public and "Vault unseal" not in public

    assert (
        main(
            [
                "--data-dir",
                str(slack.runtime.settings.data_dir),
                "ask",
                "--groups",
                "everyone",
                unseal,
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "vault operator unseal" not in out and "Vault unseal" not in out
