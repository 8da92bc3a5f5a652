from __future__ import annotations

import os
from pathlib import Path

from ingest.sources.files import scan
from ingest.sources.owners import OwnerResolver


def write(root: Path, rel: str, data: bytes | str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data if isinstance(data, bytes) else data.encode())


def test_scan_reports_bad_files_and_honours_ignores(tmp_path: Path) -> None:
    write(tmp_path, "ok.md", "# Ok\ntext\n")
    write(tmp_path, "notes.txt", "not markdown")
    write(tmp_path, "empty.md", "  \n\n")
    write(tmp_path, "latin1.md", "caf\xe9".encode("latin-1"))
    write(tmp_path, "bin.md", b"\x00\x01\x02binary")
    write(tmp_path, "huge.md", "x" * 2000)
    write(tmp_path, "drafts/wip.md", "# WIP\n")
    write(tmp_path, "templates/t.md", "# T\n")
    write(tmp_path, ".runbookignore", "drafts/\n")
    found = scan(tmp_path, excludes=("templates/*",), max_bytes=1000)
    assert [f.rel for f in found.files] == ["ok.md"]
    reasons = {s.rel: s.reason for s in found.skipped}
    assert reasons["empty.md"] == "empty file"
    assert "UTF-8" in reasons["latin1.md"]
    assert reasons["bin.md"] == "binary file"
    assert "too large" in reasons["huge.md"]
    assert "drafts/wip.md" not in reasons and "templates/t.md" not in reasons


def test_a_wikis_sidebar_footer_and_header_are_no_runbooks(tmp_path: Path) -> None:
    (tmp_path / "Home.md").write_text("# Home\n\n[[Restart the pod]]\n", encoding="utf-8")
    (tmp_path / "Restart-the-pod.md").write_text("# Restart\n\n1. Delete it.\n", encoding="utf-8")
    (tmp_path / "_Sidebar.md").write_text("* [[Home]]\n* [[Restart the pod]]\n", encoding="utf-8")
    (tmp_path / "_Footer.md").write_text("Questions? Ask in #ops-help.\n", encoding="utf-8")
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "_header.adoc").write_text("Database pages\n", encoding="utf-8")
    (tmp_path / "db" / "_index.md").write_text("# Database\n\nFailover steps.\n", encoding="utf-8")
    found = scan(tmp_path)
    assert [f.rel for f in found.files] == ["Home.md", "Restart-the-pod.md", "db/_index.md"]
    assert found.skipped == ()  # not a problem to report: no runbook was left out


def test_links_out_of_the_root_are_never_read(tmp_path: Path) -> None:
    root = tmp_path / "runbooks"
    outside = tmp_path / "outside"
    write(outside, "passwd", "root:x:0:0:root:/root:/bin/bash\n")
    write(outside, "notes.md", "# Private\n")
    write(root, "real.md", "# Real\n\ntext\n")
    (root / "passwd-link.md").symlink_to(outside / "passwd")
    (root / "notes.md").symlink_to(Path("../outside/notes.md"))  # relative link
    (root / "alias.md").symlink_to(root / "real.md")  # inside the root: fine
    (root / "dangling.md").symlink_to(root / "gone.md")
    (root / "loop.md").symlink_to(root / "loop.md")
    found = scan(root)
    assert sorted(f.rel for f in found.files) == ["alias.md", "real.md"]
    assert all(b"root:x" not in f.data for f in found.files)
    reasons = {s.rel: s for s in found.skipped}
    for rel in ("passwd-link.md", "notes.md"):
        assert reasons[rel].reason == "symlink points outside the runbook root"
        assert reasons[rel].keep_previous is False
    assert "symlink" in reasons["dangling.md"].reason
    assert "symlink" in reasons["loop.md"].reason


def test_owner_and_ignore_files_outside_the_root_are_not_read(tmp_path: Path) -> None:
    root = tmp_path / "runbooks"
    write(tmp_path, "elsewhere/CODEOWNERS", "*.md @outsider\n")
    write(tmp_path, "elsewhere/ignore", "*.md\n")
    write(root, "a.md", "# A\n\ntext\n")
    (root / "CODEOWNERS").symlink_to(tmp_path / "elsewhere/CODEOWNERS")
    (root / ".runbookignore").symlink_to(tmp_path / "elsewhere/ignore")
    assert [f.rel for f in scan(root).files] == ["a.md"]
    assert OwnerResolver(root).owner_for("a.md") is None


def test_nul_byte_anywhere_means_binary(tmp_path: Path) -> None:
    write(tmp_path, "late-nul.md", b"# Late\n" + b"x" * 9000 + b"\x00tail\n")
    found = scan(tmp_path)
    assert found.files == ()
    assert [(s.rel, s.reason) for s in found.skipped] == [("late-nul.md", "binary file")]


def test_special_files_are_skipped_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    write(tmp_path, "ok.md", "# Ok\n")
    found = scan(tmp_path)
    assert [f.rel for f in found.files] == ["ok.md"]
    assert [(s.rel, s.reason) for s in found.skipped] == [("pipe.md", "not a regular file")]
