"""The runbook-bot CLI end to end (in process): ingest, search, ask, eval, --check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import SAMPLE_RUNBOOKS, RedisServer

QUESTIONS = Path(__file__).resolve().parent.parent / "fixtures" / "sample_questions.jsonl"


def test_search_json_ranks_the_checkout_runbook(
    sample_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "--data-dir",
            str(sample_data_dir),
            "search",
            "checkout-api connection refused",
            "--json",
            "--k",
            "3",
        ]
    )
    assert code == 0
    docs = json.loads(capsys.readouterr().out)
    assert docs[0]["path"] == "checkout-api/database-connection-failures.md"
    assert docs[0]["sections"][0]["url"].startswith("https://")
    assert len(docs) <= 3


def test_search_groups_flag_filters(
    sample_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(
        [
            "--data-dir",
            str(sample_data_dir),
            "search",
            "break glass vault production database",
            "--json",
            "--groups",
            "everyone",
        ]
    )
    paths = [d["path"] for d in json.loads(capsys.readouterr().out)]
    assert "sre/break-glass-access.md" not in paths


def test_ask_json_contract(
    sample_data_dir: Path, redis_server: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--data-dir", str(sample_data_dir), "--redis-url", redis_server.url, "ask"]
    assert main([*args, "elasticsearch cluster red unassigned shards", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["state"] == "answer"
    assert any(w["kind"] == "stale" for w in out["warnings"])
    c = out["citations"][0]
    original = (SAMPLE_RUNBOOKS / c["path"]).read_text(encoding="utf-8")
    assert original[c["start"] : c["end"]] == c["quote"]
    assert main([*args, "velero nightly backup ended PartiallyFailed", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["state"] == "abstain" and out["reason"] and out["search_link"]
    assert out["citations"] == []


def test_eval_writes_ranked_lines(
    sample_data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    code = main(
        [
            "--data-dir",
            str(sample_data_dir),
            "eval",
            str(QUESTIONS),
            "--out",
            str(out),
            "--root",
            str(SAMPLE_RUNBOOKS),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "recall@5" in printed and "MRR@10" in printed and "abstention" in printed
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == len(QUESTIONS.read_text().splitlines())
    keys = {"id", "ranked", "answered", "state", "reason", "cited", "section_hit", "lead_hit"}
    assert all(set(r) == keys for r in rows)
    answered = [r for r in rows if r["answered"]]
    assert answered and all(r["cited"] and r["state"] == "answer" for r in answered)
    assert all(len(c) == 4 and c[2] < c[3] for r in answered for c in r["cited"])
    assert "section_hit" in printed and "lead_hit" in printed
    assert all(len(r["ranked"]) == len(set(r["ranked"])) <= 10 for r in rows)
    recall5 = float(next(ln for ln in printed.splitlines() if ln.startswith("recall@5")).split()[1])
    assert recall5 >= 0.9
    assert "answered quotes verbatim 100.0%" in printed


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


def test_ingest_missing_dir_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["--data-dir", str(tmp_path), "ingest", str(tmp_path / "nope")]) == 2


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
