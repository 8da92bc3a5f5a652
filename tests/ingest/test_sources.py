from __future__ import annotations

from pathlib import Path

from ingest.sources import scan


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
