from __future__ import annotations

import os
import subprocess
from datetime import date
from pathlib import Path

import pytest

from core.models import Document
from ingest.chunker import chunk_document
from ingest.documents import UNREADABLE_GROUP, DocumentConfig, ParsedDocument
from ingest.errors import MalformedDocumentError
from ingest.sources.files import scan
from ingest.sources.git import GitInfo, blob_id, read_git_info
from ingest.sources.markdown_dir import parse_file
from ingest.sources.owners import OwnerResolver

CONFIG = DocumentConfig("everyone", "https://git.example/blob/{revision}/{path}#L{line}")


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def parse_all(root: Path) -> dict[str, Document]:
    git = read_git_info(root)
    owners = OwnerResolver(root)
    return {s.rel: parse_file(s, git, owners, CONFIG).document for s in scan(root).files}


def test_front_matter_metadata(tmp_path: Path) -> None:
    write(
        tmp_path,
        "db/conn.md",
        "---\ntitle: DB conn\nservice: checkout-api\nowner: '@checkout'\nupdated: 2026-01-05\n"
        "review_every: 30d\naccess: [SRE]\ntags: [db]\n---\n# H1 ignored\n\n## Steps\n\nx\n",
    )
    doc = parse_all(tmp_path)["db/conn.md"]
    m = doc.metadata
    assert doc.title == "DB conn"
    assert doc.source_id == "runbooks:db/conn"
    assert (m.service, m.owner, m.updated) == ("checkout-api", "@checkout", date(2026, 1, 5))
    assert m.review_every_days == 30
    assert m.access == ("sre",)
    assert (
        m.revision
        == __import__("hashlib").sha256((tmp_path / "db/conn.md").read_bytes()).hexdigest()
    )
    # outside a git checkout there is no blob id to link to
    assert m.url is None


def test_hugo_toml_front_matter_and_setext_headings(tmp_path: Path) -> None:
    write(
        tmp_path,
        "node/disk.md",
        '+++\ntitle = "Disk full"\nowner = "@storage"\nupdated = 2026-01-05\n'
        'access = ["SRE"]\nweight = 20\n+++\n\nDiagnosis\n---------\n\nRun `df -h`.\n\n'
        "Mitigation\n----------\n\n1. Rotate logs.\n",
    )
    parsed = parse_one(tmp_path, "node/disk.md")
    doc, m = parsed.document, parsed.document.metadata
    assert doc.title == "Disk full"
    assert (m.owner, m.updated, m.access) == ("@storage", date(2026, 1, 5), ("sre",))
    assert not parsed.problems  # `weight` is a site generator key
    chunks = chunk_document(doc, parsed.body_start)
    assert [c.heading_path for c in chunks] == [("Diagnosis",), ("Mitigation",)]
    assert all("+++" not in doc.text[c.start : c.end] for c in chunks)


MDX = """---
title: Queue backlog
owner: "@orders"
---
import Tabs from '@theme/Tabs';
import {
  TabItem,
} from '@theme/TabItem';
export const severity = "page";

## Mitigation

<Tabs>
<TabItem value="k8s">

1. `kubectl -n orders scale deploy/consumer --replicas=6`

</TabItem>
</Tabs>
"""


def test_an_mdx_runbook_is_read_from_after_its_imports(tmp_path: Path) -> None:
    write(tmp_path, "orders/backlog.mdx", MDX)
    write(tmp_path, "orders/notes.txt", "not a runbook")
    assert [f.rel for f in scan(tmp_path).files] == ["orders/backlog.mdx"]
    parsed = parse_one(tmp_path, "orders/backlog.mdx")
    doc = parsed.document
    assert (doc.title, doc.metadata.owner, doc.source_id) == (
        "Queue backlog",
        "@orders",
        "runbooks:orders/backlog",
    )
    assert MDX[parsed.body_start :].startswith("## Mitigation")
    chunks = chunk_document(doc, parsed.body_start)
    assert [c.heading_path for c in chunks] == [("Mitigation",)]
    text = "".join(doc.text[c.start : c.end] for c in chunks)
    assert "import" not in text and "export" not in text
    assert "kubectl -n orders scale" in text  # the body, JSX and all, verbatim


def test_a_plain_markdown_file_keeps_a_line_that_starts_with_import(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "import the dashboard from grafana.com first.\n\n## Steps\n\nx\n")
    parsed = parse_one(tmp_path, "a.md")
    assert parsed.body_start == 0


def test_header_lines_codeowners_and_defaults(tmp_path: Path) -> None:
    write(tmp_path, "CODEOWNERS", "*.md @acme/fallback\n/payments/ @acme/payments\n")
    write(tmp_path, "payments/p.md", "# Payments latency\nService: payments\n\n## A\n\nb\n")
    write(tmp_path, "misc/owned.md", "# Misc\nOwner: @misc\n\ntext\n")
    write(tmp_path, "team/OWNERS", "approvers:\n  - alice\n  - bob\n")
    write(tmp_path, "team/t.md", "# T\n\ntext\n")
    docs = parse_all(tmp_path)
    p = docs["payments/p.md"]
    assert p.title == "Payments latency"
    assert p.metadata.service == "payments"
    assert p.metadata.owner == "@acme/payments"
    assert p.metadata.access == ("everyone",)
    assert docs["misc/owned.md"].metadata.owner == "@misc"
    assert docs["team/t.md"].metadata.owner == "alice, bob"


def test_a_team_or_maintainer_header_line_names_the_owner(tmp_path: Path) -> None:
    alert = "# HighErrorRate\n\n**Severity**: critical\n**Team**: payments-oncall\n\ntext\n"
    write(tmp_path, "alerts/high-error-rate.md", alert)
    write(tmp_path, "db.md", "# DB\n- Maintainers: @db-a, @db-b\n\ntext\n")
    both = "# Both\nTeam: platform\nOwner: @sre-lead\n\ntext\n"
    write(tmp_path, "both.md", both)
    playbook = (
        "# PostgresSplitBrain\n\n## Overview\n\n- Two primaries.\n\n## Services\n\n"
        "- [Patroni Service](../README.md)\n"
        "- Team that owns the service: [Database Reliability](https://handbook.example.com/dbre)\n"
    )
    write(tmp_path, "alerts/PostgresSplitBrain.md", playbook)
    docs = parse_all(tmp_path)
    # an alert playbook's Services list says whose it is
    assert docs["alerts/PostgresSplitBrain.md"].metadata.owner == "Database Reliability"
    assert docs["alerts/high-error-rate.md"].metadata.owner == "payments-oncall"
    assert docs["db.md"].metadata.owner == "@db-a, @db-b"
    assert docs["both.md"].metadata.owner == "@sre-lead"  # an Owner line says it outright


def test_superseded_status_from_text(tmp_path: Path) -> None:
    write(
        tmp_path, "adr/0001-x.md", "# ADR 1\n\nStatus: Superseded by ADR-0002\n\nUse memcached.\n"
    )
    doc = parse_all(tmp_path)["adr/0001-x.md"]
    assert doc.metadata.status == "superseded"
    assert doc.metadata.superseded_by == "ADR-0002"
    assert doc.metadata.doc_type == "adr"


def test_title_falls_back_to_file_name_and_the_date_is_unknown(tmp_path: Path) -> None:
    write(tmp_path, "no-title.md", "just text\n")
    os.utime(tmp_path / "no-title.md", (1_700_000_000, 1_700_000_000))
    doc = parse_all(tmp_path)["no-title.md"]
    assert doc.title == "No title"
    # no git, no date in the file: the file's mtime (a copy's time) is not a review date
    assert doc.metadata.updated is None


def test_git_dates_and_blob_revision(tmp_path: Path) -> None:
    write(tmp_path, "r.md", "# R\n\ntext\n")
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2024-02-03T10:00:00Z",
        "GIT_COMMITTER_DATE": "2024-02-03T10:00:00Z",
    }
    for cmd in (
        ["init", "-q"],
        ["add", "."],
        ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "x"],
    ):
        subprocess.run(["git", "-C", str(tmp_path), *cmd], check=True, env=env)
    git = read_git_info(tmp_path)
    assert git.in_repo
    assert git.last_commit["r.md"] == date(2024, 2, 3)
    head = subprocess.run(
        ["git", "-C", str(tmp_path), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert git.head == head
    doc = parse_all(tmp_path)["r.md"]
    data = (tmp_path / "r.md").read_bytes()
    expected = subprocess.run(
        ["git", "-C", str(tmp_path), "hash-object", "r.md"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert blob_id(data) == expected
    assert doc.metadata.revision == expected
    assert doc.metadata.updated == date(2024, 2, 3)
    assert GitInfo().revision(data) != expected


def test_bad_doc_type_is_malformed(tmp_path: Path) -> None:
    write(tmp_path, "x.md", "---\ndoc_type: spaceship\n---\n# X\n")
    with pytest.raises(MalformedDocumentError):
        parse_all(tmp_path)


def test_a_site_generator_type_field_neither_skips_nor_retypes(tmp_path: Path) -> None:
    write(tmp_path, "backups.md", "---\ntype: learn\n---\n# Backups\n\nRestore steps.\n")
    write(tmp_path, "pm.md", "---\ntype: postmortem\n---\n# Outage\n\nWhat happened.\n")
    docs = parse_all(tmp_path)
    assert docs["backups.md"].metadata.doc_type == "runbook"
    assert docs["pm.md"].metadata.doc_type == "incident"


def parse_one(root: Path, rel: str, config: DocumentConfig = CONFIG) -> ParsedDocument:
    git = read_git_info(root)
    src = next(s for s in scan(root).files if s.rel == rel)
    return parse_file(src, git, OwnerResolver(root), config)


@pytest.mark.parametrize(
    "front",
    ["acess: [sre]", "access: []", "access:", "access: ''", "groups: [sre]"],
)
def test_broken_access_makes_the_document_readable_by_nobody(tmp_path: Path, front: str) -> None:
    write(tmp_path, "glass.md", f"---\ntitle: Break glass\n{front}\n---\n# Break glass\n\nx\n")
    parsed = parse_one(tmp_path, "glass.md")
    assert parsed.document.metadata.access == (UNREADABLE_GROUP,)
    assert "everyone" not in parsed.document.metadata.access
    (problem,) = [p for p in parsed.problems if p.restricted]
    assert problem.line == 3
    assert "nobody" in problem.reason


def test_unknown_front_matter_keys_are_problems(tmp_path: Path) -> None:
    write(
        tmp_path,
        "x.md",
        "---\ntitle: X\nlayout: page\nownr: '@a'\nrelated_repos: [a]\n---\n# X\n\ntext\n",
    )
    parsed = parse_one(tmp_path, "x.md")
    reasons = {p.key: (p.reason, p.line) for p in parsed.problems}
    assert set(reasons) == {"ownr", "related_repos"}  # layout: a site generator's key
    assert "did you mean 'owner'" in reasons["ownr"][0] and reasons["ownr"][1] == 4
    assert parsed.document.metadata.access == ("everyone",)
    declared = DocumentConfig("everyone", None, frozenset({"ownr", "related_repos"}))
    assert parse_one(tmp_path, "x.md", declared).problems == ()


def test_site_generator_type_does_not_reject_the_file(tmp_path: Path) -> None:
    write(tmp_path, "learn.md", "---\ntitle: Learn\ntype: learn\n---\n# Learn\n\nx\n")
    write(tmp_path, "docs.md", "---\ntitle: Docs\ntype: docs\n---\n# Docs\n\nx\n")
    write(tmp_path, "incidents/pm.md", "---\ntype: postmortem\n---\n# PM\n\nx\n")
    assert parse_one(tmp_path, "learn.md").document.metadata.doc_type == "runbook"
    assert parse_one(tmp_path, "docs.md").document.metadata.doc_type == "doc"
    assert parse_one(tmp_path, "incidents/pm.md").document.metadata.doc_type == "incident"


def test_owner_from_owner_slack(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "---\ntitle: A\nowner_slack: '#govuk-search'\n---\n# A\n\nx\n")
    assert parse_one(tmp_path, "a.md").document.metadata.owner == "#govuk-search"


def test_the_team_a_runbook_names_is_its_owner(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "---\ntitle: A\nteam: data-platform\n---\n# A\n\nx\n")
    parsed = parse_one(tmp_path, "a.md")
    assert parsed.document.metadata.owner == "data-platform"
    # an owner named as such comes first
    write(tmp_path, "b.md", "---\nowner: '@lag-oncall'\nteam: data-platform\n---\n# B\n\nx\n")
    assert parse_one(tmp_path, "b.md").document.metadata.owner == "@lag-oncall"


def test_links_are_built_only_from_what_is_known(tmp_path: Path) -> None:
    write(tmp_path, "r.md", "# R\n\ntext\n")
    for template in (
        "https://git.example/blob/{commit}/{path}#L{line}",
        "https://git.example/blob/{revision}/{path}#L{line}",
    ):
        doc = parse_one(tmp_path, "r.md", DocumentConfig("everyone", template)).document
        assert doc.metadata.url is None, template
    branch = DocumentConfig("everyone", "https://git.example/blob/main/{repo_path}#L{line}")
    doc = parse_one(tmp_path, "r.md", branch).document
    assert doc.metadata.url == "https://git.example/blob/main/r.md#L{line}"
    assert doc.metadata.updated is None

    head = _commit_all(tmp_path)
    with_git = DocumentConfig("everyone", "https://git.example/blob/{commit}/{path}#L{line}")
    doc = parse_one(tmp_path, "r.md", with_git).document
    assert doc.metadata.url == f"https://git.example/blob/{head}/r.md#L{{line}}"
    assert doc.metadata.updated == date(2024, 2, 3)


def test_a_wiki_or_site_links_the_page_without_its_suffix(tmp_path: Path) -> None:
    write(tmp_path, "ops/Restart-the-pod.md", "# Restart the pod\n\ntext\n")
    write(tmp_path, "manual/purge-cache.html.md", "# Purge\n\ntext\n")
    head = _commit_all(tmp_path)
    wiki = DocumentConfig("everyone", "https://github.example/acme/ops/wiki/{name}/{commit}")
    doc = parse_one(tmp_path, "ops/Restart-the-pod.md", wiki).document
    assert doc.metadata.url == f"https://github.example/acme/ops/wiki/Restart-the-pod/{head}"
    site = DocumentConfig("everyone", "https://docs.example/{page}")
    doc = parse_one(tmp_path, "manual/purge-cache.html.md", site).document
    assert doc.metadata.url == "https://docs.example/manual/purge-cache.html"


def _commit_all(root: Path) -> str:
    """Commit every file of ``root`` (a new repository); the commit's id."""
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2024-02-03T10:00:00Z",
        "GIT_COMMITTER_DATE": "2024-02-03T10:00:00Z",
    }
    for cmd in (
        ["init", "-q"],
        ["add", "."],
        ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "x"],
    ):
        subprocess.run(["git", "-C", str(root), *cmd], check=True, env=env)
    head = ["git", "-C", str(root), "rev-parse", "HEAD"]
    return subprocess.run(head, capture_output=True, text=True, check=True).stdout.strip()


def test_byte_order_mark_keeps_the_h1(tmp_path: Path) -> None:
    (tmp_path / "bom.md").write_bytes("\ufeff# Payments latency\n\n## Steps\n\nx\n".encode())
    parsed = parse_one(tmp_path, "bom.md")
    assert parsed.document.title == "Payments latency"
    assert parsed.body_start == 1
    chunks = chunk_document(parsed.document, parsed.body_start)
    assert chunks[0].heading_path[0] == "Payments latency"


def test_yaml_aliases_are_rejected(tmp_path: Path) -> None:
    bomb = (
        "---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a]\nc: [*b, *b]\n---\n"
    )
    write(tmp_path, "bomb.md", bomb + "# Bomb\n\ntext\n")
    with pytest.raises(MalformedDocumentError, match="aliases") as info:
        parse_all(tmp_path)
    assert info.value.line == 2


def test_front_matter_alerts_name_the_alerts_a_runbook_answers(tmp_path: Path) -> None:
    write(
        tmp_path,
        "k8s/crashloop.md",
        "---\ntitle: Crash loops\nalerts: [KubePodCrashLooping, KubePodNotReady]\n---\n# x\n",
    )
    write(tmp_path, "k8s/one.md", "---\nalerts: NodeDiskAlmostFull\n---\n# y\n")
    write(tmp_path, "k8s/none.md", "# z\n")
    docs = parse_all(tmp_path)
    assert docs["k8s/crashloop.md"].metadata.alerts == ("KubePodCrashLooping", "KubePodNotReady")
    assert docs["k8s/one.md"].metadata.alerts == ("NodeDiskAlmostFull",)
    assert docs["k8s/none.md"].metadata.alerts == ()
    git, owners = read_git_info(tmp_path), OwnerResolver(tmp_path)
    problems = [
        p for s in scan(tmp_path).files for p in parse_file(s, git, owners, CONFIG).problems
    ]
    assert problems == []  # a known key, not reported as unknown


@pytest.mark.parametrize(
    ("rel", "doc_type"),
    [
        # pages about incidents are runbooks: how to command one, respond to one
        ("docs/training/incident_commander.md", "runbook"),
        ("docs/during/security_incident_response.md", "runbook"),
        ("manual/incident-what-to-do.md", "runbook"),
        ("docs/after/post_mortem_template.md", "runbook"),
        # write-ups of past incidents: in a folder of them, or named by number or date
        ("incidents/checkout-outage.md", "incident"),
        ("post_mortems/ledger.md", "incident"),
        ("postmortem-2024-01-12.md", "incident"),
        ("incident-4211.md", "incident"),
        ("notes/2024-03-01-checkout-outage.md", "incident"),
    ],
)
def test_a_page_about_incidents_is_no_incident_write_up(
    tmp_path: Path, rel: str, doc_type: str
) -> None:
    write(tmp_path, rel, "# Title\n\nSome text.\n")
    assert parse_one(tmp_path, rel).document.metadata.doc_type == doc_type


def test_a_middleman_page_run_through_erb_is_a_markdown_runbook(tmp_path: Path) -> None:
    text = (
        "---\ntitle: Restore a database\n---\n# Restore a database\n\n<% if prod %>\n1. Stop it.\n"
    )
    write(tmp_path, "source/restore-db.html.md.erb", text)
    parsed = parse_one(tmp_path, "source/restore-db.html.md.erb").document
    assert parsed.title == "Restore a database"
    assert parsed.metadata.doc_type == "runbook"


@pytest.mark.parametrize(
    "heading", ["<%= current_page.data.title %>", "{{ .Title }}", "<%- title -%>"]
)
def test_a_heading_the_site_fills_in_with_the_title_is_the_title(
    tmp_path: Path, heading: str
) -> None:
    text = (
        "---\ntitle: Delete terraform state lock\n---\n\n"
        f"# {heading}\n\nSometimes the pipeline fails.\n\n## Command-line method\n\n1. Run it.\n"
    )
    write(tmp_path, "source/delete-state-lock.html.md.erb", text)
    parsed = parse_one(tmp_path, "source/delete-state-lock.html.md.erb")
    chunks = chunk_document(parsed.document, parsed.body_start)
    assert [c.heading_path for c in chunks] == [
        ("Delete terraform state lock",),
        ("Delete terraform state lock", "Command-line method"),
    ]
    assert parsed.document.text[chunks[0].start : chunks[0].end].startswith(f"# {heading}")
