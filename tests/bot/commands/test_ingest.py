"""`runbook-bot ingest`: exit codes 0/1/2/3, --check, --json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main


def test_ingest_check_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "rb"
    root.mkdir()
    (root / "good.md").write_text("# Good\n\ntext\n")
    (root / "bad.md").write_text("---\ntitle: ok\nowner: [unclosed\n---\n# Bad\n")
    code = main(["--data-dir", str(tmp_path / "d"), "ingest", str(root), "--check"])
    assert code == 1
    err = capsys.readouterr().err
    assert "bad.md:" in err and "front matter" in err
    (root / "bad.md").unlink()
    assert main(["--data-dir", str(tmp_path / "d"), "ingest", str(root), "--check"]) == 0


def test_ingest_missing_dir_fails_its_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--data-dir", str(tmp_path), "ingest", str(tmp_path / "nope")]) == 1
    assert "nope does not exist" in capsys.readouterr().err


def test_ingest_exits_3_and_names_every_skipped_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "rb"
    root.mkdir()
    (root / "good.md").write_text("# Good\n\nRestart the widget-daemon.\n")
    (root / "bad.md").write_text("---\ntitle: [unclosed\n---\n# Bad\n")
    (tmp_path / "secret.txt").write_text("root:x:0:0\n")
    (root / "link.md").symlink_to(tmp_path / "secret.txt")
    code = main(["--data-dir", str(tmp_path / "d"), "ingest", str(root)])
    assert code == 3
    captured = capsys.readouterr()
    assert "added 1," in captured.out and "skipped 2," in captured.out
    err = captured.err
    assert "skipped 2 files (not indexed):" in err
    assert "bad.md:3: invalid YAML front matter" in err
    assert "link.md: symlink points outside the runbook root" in err
    (root / "bad.md").unlink()
    (root / "link.md").unlink()
    assert main(["--data-dir", str(tmp_path / "d"), "ingest", str(root)]) == 0


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("acess: [sre]", "bad.md:3: unknown front matter key 'acess' (did you mean 'access'?)"),
        ("access: []", "bad.md:3: access: is empty"),
        ("access:", "bad.md:3: access: is empty"),
        ("ownr: '@a'", "bad.md:3: unknown front matter key 'ownr' (did you mean 'owner'?)"),
    ],
)
def test_ingest_check_fails_on_broken_front_matter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], front: str, expected: str
) -> None:
    root = tmp_path / "rb"
    root.mkdir()
    (root / "good.md").write_text("# Good\n\ntext\n")
    (root / "bad.md").write_text(f"---\ntitle: Bad\n{front}\n---\n# Bad\n\ntext\n")
    code = main(["--data-dir", str(tmp_path / "d"), "ingest", str(root), "--check"])
    assert code == 1
    captured = capsys.readouterr()
    assert f"error: {expected}" in captured.err
    assert "warning:" not in captured.err  # each problem is reported once
    assert "checked 2 documents, 1 with problems" in captured.out


def test_ingest_check_fails_on_links_out_of_the_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "rb"
    root.mkdir()
    (root / "good.md").write_text("# Good\n\ntext\n")
    (root / "passwd-link.md").symlink_to("/etc/passwd")
    assert main(["--data-dir", str(tmp_path / "d"), "ingest", str(root), "--check"]) == 1
    assert "passwd-link.md: symlink points outside the runbook root" in capsys.readouterr().err


def test_ingest_json_reports_counts_and_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "rb"
    root.mkdir()
    (root / "good.md").write_text("# Good\n\nRestart the widget-daemon.\n")
    data = str(tmp_path / "d")
    assert main(["--data-dir", data, "ingest", str(root), "--json"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1  # one line
    report = json.loads(printed)
    assert set(report) == {
        "source",
        "added",
        "changed",
        "removed",
        "unchanged",
        "skipped",
        "problems",
        "chunks_embedded",
        "chunks_reused",
        "chunks_total",
        "generation",
        "seconds",
    }
    assert report["source"] == "runbooks" and report["skipped"] == []
    assert report["added"] == ["runbooks:good"]
    assert report["chunks_embedded"] == report["chunks_total"] > 0
    assert report["chunks_reused"] == 0  # a first ingest has nothing to reuse
    (root / "bad.md").write_text("---\ntitle: [unclosed\n---\n# Bad\n")
    assert main(["--data-dir", data, "ingest", str(root), "--json"]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["unchanged"] == 1
    (skipped,) = report["skipped"]
    assert skipped.startswith("bad.md:3: invalid YAML front matter")
    assert report["generation"] >= 1
