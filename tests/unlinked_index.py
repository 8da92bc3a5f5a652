"""Runbooks whose source has no link (a folder outside git): ``tests/fixtures/unlinked``
copied out of the repository and ingested once per test session, so every title an answer
shows links to the runbook's web page instead.

Import the fixtures into a test module: ``from tests.unlinked_index import
unlinked_data_dir, unlinked_index_template  # noqa: F401``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from retrieval.search.embeddings import FastEmbedder
from tests.conftest import ROOT, ingest_once, private_copy

UNLINKED = ROOT / "tests" / "fixtures" / "unlinked"
INVOICE_EXPORT = "runbooks:billing/invoice-export-stuck"
KEY_ROTATION = "runbooks:billing/api-key-rotation"
REPLAY_QUESTION = "replay failed invoice export batches"
ROTATION_QUESTION = "how do I rotate the payment provider api key"
ROTATION_DOCS = "https://wiki.acme.io/billing/provider-key-rotation"


@pytest.fixture(scope="session")
def unlinked_index_template(
    tmp_path_factory: pytest.TempPathFactory, embedder: FastEmbedder
) -> Path:
    folder = tmp_path_factory.mktemp("outside-git") / "runbooks"
    shutil.copytree(UNLINKED, folder)  # no git repository around it: no source links
    return ingest_once(folder, tmp_path_factory.mktemp("unlinked-index"), embedder)


@pytest.fixture()
def unlinked_data_dir(unlinked_index_template: Path, tmp_path: Path) -> Path:
    return private_copy(unlinked_index_template, tmp_path / "unlinked-data")
