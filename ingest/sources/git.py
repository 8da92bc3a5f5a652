"""What git knows about the runbook files: blob ids and last commit dates."""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

GIT_TIMEOUT_SECONDS = 30


def blob_id(data: bytes) -> str:
    """The id git gives a blob with this content (``git hash-object``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def content_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class GitInfo:
    """Facts about files under ``root``; empty when the root is not in a git repo."""

    in_repo: bool = False
    toplevel: Path | None = None
    head: str | None = None  # the checked-out commit
    last_commit: dict[str, date] = field(default_factory=dict)  # rel path -> date

    def revision(self, data: bytes) -> str:
        return blob_id(data) if self.in_repo else content_sha256(data)


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def read_git_info(root: Path) -> GitInfo:
    root = root.resolve()
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None:
        return GitInfo()
    toplevel = Path(top.strip()).resolve()
    log = _git(root, "log", "--format=%x00%cI", "--name-only", "--relative", "--", ".")
    dates: dict[str, date] = {}
    if log:
        current: date | None = None
        for line in log.splitlines():
            if line.startswith("\x00"):
                current = datetime.fromisoformat(line[1:].strip()).date()
            elif line.strip() and current is not None:
                dates.setdefault(line.strip(), current)
    head = _git(root, "rev-parse", "HEAD")
    return GitInfo(True, toplevel, head.strip() if head else None, dates)
