from __future__ import annotations

import os
import subprocess
from datetime import date
from pathlib import Path

import pytest

from ingest.documents import DocumentConfig, parse_document
from ingest.errors import MalformedDocumentError
from ingest.git import GitInfo, blob_id, read_git_info
from ingest.owners import OwnerResolver
from ingest.sources import scan
from retrieval.types import Document

CONFIG = DocumentConfig("everyone", "https://git.example/blob/{revision}/{path}#L{line}")


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def parse_all(root: Path) -> dict[str, Document]:
    git = read_git_info(root)
    owners = OwnerResolver(root)
    return {s.rel: parse_document(s, git, owners, CONFIG).document for s in scan(root).files}


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
    assert doc.source_id == "db/conn"
    assert (m.service, m.owner, m.updated) == ("checkout-api", "@checkout", date(2026, 1, 5))
    assert m.review_every_days == 30
    assert m.access == ("sre",)
    assert (
        m.revision
        == __import__("hashlib").sha256((tmp_path / "db/conn.md").read_bytes()).hexdigest()
    )
    assert m.url is not None and m.url.endswith("/db/conn.md#L{line}")


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


def test_superseded_status_from_text(tmp_path: Path) -> None:
    write(
        tmp_path, "adr/0001-x.md", "# ADR 1\n\nStatus: Superseded by ADR-0002\n\nUse memcached.\n"
    )
    doc = parse_all(tmp_path)["adr/0001-x.md"]
    assert doc.metadata.status == "superseded"
    assert doc.metadata.superseded_by == "ADR-0002"
    assert doc.metadata.doc_type == "adr"


def test_title_falls_back_to_file_name_and_mtime(tmp_path: Path) -> None:
    write(tmp_path, "no-title.md", "just text\n")
    os.utime(tmp_path / "no-title.md", (1_700_000_000, 1_700_000_000))
    doc = parse_all(tmp_path)["no-title.md"]
    assert doc.title == "no-title"
    assert doc.metadata.updated == date(2023, 11, 14)


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
