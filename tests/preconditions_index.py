"""Runbooks whose procedures need something in place first: ``tests/fixtures/preconditions``
committed to a git repository of its own and ingested once per test session, so that every
section link points at the indexed commit.

* ``orders/restore-from-backup.md``: "## Prerequisites" (line 15), then "## Steps" (numbered
  steps with commands), then "## Impact" (prose);
* ``payments/ledger-operations.md``: "Rebuild the ledger search index" with its own
  "### Before you begin" and "### Steps", then "Rotate the ledger signing key", whose steps
  no precondition governs.

Import the fixtures into a test module: ``from tests.preconditions_index import
preconditions_data_dir, preconditions_index  # noqa: F401``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from retrieval.search.embeddings import FastEmbedder
from tests.conftest import ROOT, ingest_once, private_copy

FIXTURES = ROOT / "tests" / "fixtures" / "preconditions"
RESTORE_PATH = "orders/restore-from-backup.md"
RESTORE = "runbooks:orders/restore-from-backup"
RESTORE_QUESTION = "how do i restore orders-db from a backup"
PREREQUISITES_LINE = 15
FIRST_STEP = "1. Stop the writers:"
# the steps of another procedure of the same file than the one "Before you begin" is under
ROTATE_QUESTION = "rotate the ledger signing key"
# its steps and its "Before you begin" are both quoted
REBUILD_QUESTION = "how do i rebuild the ledger search index"
# answered with prose (the restore's Impact), no steps
IMPACT_QUESTION = "how long is checkout down during an orders-db restore"


@dataclass(frozen=True)
class PreconditionsIndex:
    data: Path  # the ingested index (do not write: copy it, preconditions_data_dir does)
    commit: str  # the commit the runbooks were indexed at

    def link(self, path: str, line: int) -> str:
        """The source link of ``path`` at ``line``, at the indexed commit."""
        return f"https://github.com/acme/runbooks/blob/{self.commit}/{path}#L{line}"


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-11-20T10:00:00Z"}
    env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"]
    done = subprocess.run(
        ["git", "-C", str(root), *args], check=True, env=env, capture_output=True, text=True
    )
    return done.stdout.strip()


@pytest.fixture(scope="session")
def preconditions_index(
    tmp_path_factory: pytest.TempPathFactory, embedder: FastEmbedder
) -> PreconditionsIndex:
    folder = tmp_path_factory.mktemp("preconditions-git") / "runbooks"
    shutil.copytree(FIXTURES, folder)
    _git(folder, "init", "-q")
    _git(folder, "add", ".")
    _git(folder, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "Runbooks")
    commit = _git(folder, "rev-parse", "HEAD")
    data = ingest_once(folder, tmp_path_factory.mktemp("preconditions-index"), embedder)
    return PreconditionsIndex(data, commit)


@pytest.fixture()
def preconditions_data_dir(preconditions_index: PreconditionsIndex, tmp_path: Path) -> Path:
    """A private, writable copy of the ingested index."""
    return private_copy(preconditions_index.data, tmp_path / "preconditions-data")
