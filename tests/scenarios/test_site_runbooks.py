"""Runbooks of a documentation site (Hugo, MkDocs), a wiki and an alert table, as Slack
shows them.

Real bolt App over signed HTTP, the fake Slack Web API, a real redis-server and the real
embedded index and model, over a runbook folder written the way sites write them:
Hugo shortcodes, MkDocs admonitions, GitHub's HTML, a wiki's ``[[Page]]`` links and one
long table of alerts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.runtime import Runtime
from retrieval.search.embeddings import FastEmbedder
from tests.bot.slack_harness import SlackHarness, make_runtime, text_of
from tests.conftest import RedisServer
from tests.fakes.slack_api import FakeSlackAPI

POINTER = """---
title: Node RAID Disk Failure
---

# NodeRAIDDiskFailure

Owner: @storage-oncall

See [Node RAID Degraded]({{< ref "./NodeRAIDDegraded.md" >}})
"""

DEGRADED = """---
title: Node RAID Degraded
---

# NodeRAIDDegraded

Owner: @storage-oncall

## Meaning

One disk of a software RAID array on the node failed; the array runs without redundancy.

## Mitigation

!!! warning "Data loss"
    Never replace two disks of the same array at once.

{{< highlight bash >}}
mdadm --manage /dev/md0 --remove /dev/sdb1
{{< /highlight >}}

<details>
<summary>Check the rebuild</summary>

```
cat /proc/mdstat
```

</details>
"""

WIKI_HOME = """# Home

- [[Ledger consumer stalled|Ledger-consumer-stalled]]
- [[Consumer-restart]]
- [[_TOC_]]
"""

WIKI_ALERT = """# Ledger consumer stalled

Owner: @payments-oncall

## Meaning

The ledger consumer has committed no offset for ten minutes; payments are not booked.

## Mitigation

Restarting the consumer makes it re-read its offsets: see
[[restarting a queue consumer|Consumer-restart]].
"""

WIKI_RESTART = """# Restarting a queue consumer

Owner: @payments-oncall

1. Scale the consumer down: `kubectl -n queues scale deploy/ledger-consumer --replicas=0`.
2. Wait until its pods are gone: `kubectl -n queues get pods -l app=ledger-consumer`.
3. Scale it up again: `kubectl -n queues scale deploy/ledger-consumer --replicas=2`.
"""

WIKI_URL = "https://git.example/payments/wiki/blob/main/{path}#L{line}"

ALERTS = [
    "DiskFull",
    "CpuHigh",
    "MemoryLeak",
    "QueueBacklog",
    "CertExpiry",
    "DnsFailure",
    "LatencyHigh",
    "ErrorRateHigh",
    "PodCrashLoop",
    "NodeNotReady",
    "ReplicaLag",
    "BackupFailed",
    "TokenExpiry",
    "QuotaExceeded",
    "GcPauseLong",
    "WebhookTimeout",
]
TABLE = "# Platform alerts\n\nOwner: @platform-oncall\n\n## Alert reference\n\n" + (
    "| Alert | Meaning | Action |\n| --- | --- | --- |\n"
    + "".join(
        f"| `{name}` | {name} fired for the pool-{i} workers; check their dashboard. | "
        f"Restart them with `kubectl -n pools rollout restart deploy/pool-{i}`, then page "
        f"team-{i % 4} when it persists. |\n"
        for i, name in enumerate(ALERTS)
    )
)


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        yield api


@pytest.fixture()
def slack(
    tmp_path: Path, redis_server: RedisServer, fake: FakeSlackAPI, embedder: FastEmbedder
) -> Iterator[SlackHarness]:
    folder = tmp_path / "runbooks"
    node = folder / "content" / "runbooks" / "node"
    node.mkdir(parents=True)
    (node / "NodeRAIDDiskFailure.md").write_text(POINTER, encoding="utf-8")
    (node / "NodeRAIDDegraded.md").write_text(DEGRADED, encoding="utf-8")
    (folder / "content" / "runbooks" / "platform-alerts.md").write_text(TABLE, encoding="utf-8")
    rt: Runtime = make_runtime(tmp_path / "data", redis_server.url, fake, embedder)
    rt.ingest(folder)
    h = SlackHarness(rt, fake)
    yield h
    h.close()
    h.assert_valid()  # no raw Markdown, shortcode, admonition or HTML in any message
    rt.close()


@pytest.fixture()
def wiki_slack(
    tmp_path: Path, redis_server: RedisServer, fake: FakeSlackAPI, embedder: FastEmbedder
) -> Iterator[SlackHarness]:
    """A GitHub wiki's pages, linked at their revision."""
    wiki = tmp_path / "wiki"
    wiki.mkdir()
    (wiki / "Home.md").write_text(WIKI_HOME, encoding="utf-8")
    (wiki / "Ledger-consumer-stalled.md").write_text(WIKI_ALERT, encoding="utf-8")
    (wiki / "Consumer-restart.md").write_text(WIKI_RESTART, encoding="utf-8")
    rt: Runtime = make_runtime(
        tmp_path / "data",
        redis_server.url,
        fake,
        embedder,
        source_url_template=WIKI_URL,
    )
    rt.ingest(wiki)
    h = SlackHarness(rt, fake)
    yield h
    h.close()
    h.assert_valid()  # no raw wiki link in any message
    rt.close()


def test_a_hugo_pointer_is_followed_and_site_markup_shows_as_slack_shows_it(
    slack: SlackHarness,
) -> None:
    _, response_id = slack.slash("NodeRAIDDiskFailure")
    (call,) = slack.responses(response_id)
    shown = text_of(call)
    assert "Node RAID Degraded" in shown and "Mitigation" in shown  # the page pointed at
    assert ":warning: *WARNING:* *Data loss* Never replace two disks" in shown
    assert "```\nmdadm --manage /dev/md0 --remove /dev/sdb1\n```" in shown
    assert "*Check the rebuild*" in shown and "```\ncat /proc/mdstat\n```" in shown
    for raw in ("{{", "!!!", "&lt;details", "&lt;summary"):
        assert raw not in shown, raw


def test_an_alert_in_a_long_table_is_answered_by_its_row_under_the_header(
    slack: SlackHarness,
) -> None:
    _, response_id = slack.slash("ReplicaLag firing, what do i do")
    (call,) = slack.responses(response_id)
    shown = text_of(call)
    assert "• *`ReplicaLag`* · Meaning: ReplicaLag fired for the pool-10 workers" in shown
    assert "`kubectl -n pools rollout restart deploy/pool-10`" in shown
    assert "Row 11 of 16" in shown
    others = [name for name in ALERTS if name != "ReplicaLag" and f"`{name}`" in shown]
    assert not others, others


def test_a_wiki_link_is_followed_and_shown_as_a_link_to_the_page(
    wiki_slack: SlackHarness,
) -> None:
    _, response_id = wiki_slack.slash("ledger consumer stalled, what do i do")
    (call,) = wiki_slack.responses(response_id)
    shown = text_of(call)
    # the step's link goes to the page it names, with the words the step gives it
    link = re.search(r"<([^|>]+)\|restarting a queue consumer>", shown)
    assert link is not None, shown
    assert link[1] == "https://git.example/payments/wiki/blob/main/Consumer-restart.md#L1"
    # and the page is quoted after the step, its steps whole
    assert "`kubectl -n queues scale deploy/ledger-consumer --replicas=2`" in shown
    assert "[[" not in shown and "Home" not in shown  # the wiki's index is no answer
