"""An ingest killed (SIGKILL) in the middle of its publish: the next plain ingest finishes
the job, and answers quote the edited text, not the text from before the edit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.runtime import Runtime
from bot.settings import load_settings
from retrieval.search.embeddings import FastEmbedder

RUNBOOKS = {
    "pgbouncer.md": (
        "# PgBouncer saturated\n\n## Mitigation\n\n"
        "1. Restart pgbouncer: `kubectl -n checkout rollout restart deploy/pgbouncer`.\n"
    ),
    "disk.md": "# Node disk full\n\n## Mitigation\n\n1. Vacuum journald to 500M.\n",
    "dns.md": "# CoreDNS latency\n\n## Mitigation\n\n1. Scale coredns to 4 replicas.\n",
}
EDITED = (
    "# PgBouncer saturated\n\n## Mitigation\n\n"
    "1. Restart odyssey: `kubectl -n checkout rollout restart deploy/odyssey`.\n"
)

# ``runbook-bot ARGS``, killed with SIGKILL the moment the store has written the new
# generation inside publish (before anything else of the publish happens)
KILLED_IN_PUBLISH = """
import os, signal, sys
from retrieval.search.vector_index import QdrantVectorIndex

switch = QdrantVectorIndex._switch

def switch_then_die(self, *args, **kwargs):
    switch(self, *args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)

QdrantVectorIndex._switch = switch_then_die
from bot.cli import main
sys.exit(main(sys.argv[1:]))
"""


def runtime(data: Path, embedder: FastEmbedder) -> Runtime:
    return Runtime(load_settings(data_dir=data), embedder=embedder)


def quoted(rt: Runtime, question: str) -> str:
    answer = rt.extractive.answer(question)
    return "\n".join(c.quote for c in answer.citations)


@pytest.mark.parametrize("later", ["plain ingest", "another source's ingest"])
def test_an_ingest_killed_inside_publish_is_finished_by_the_next_one(
    tmp_path: Path, embedder: FastEmbedder, later: str
) -> None:
    corpus = tmp_path / "runbooks"
    corpus.mkdir()
    for rel, text in RUNBOOKS.items():
        (corpus / rel).write_text(text, encoding="utf-8")
    other = tmp_path / "other"
    other.mkdir()
    (other / "kafka.md").write_text(
        "# Kafka lag\n\n## Mitigation\n\n1. Add consumers.\n", encoding="utf-8"
    )
    data = tmp_path / "data"
    first = runtime(data, embedder)
    first.ingest(corpus)
    first.ingest(first.folder_source(other, "other"))
    first.close()

    (corpus / "pgbouncer.md").write_text(EDITED, encoding="utf-8")
    args = ["--data-dir", str(data), "--model-path", embedder.source, "ingest", str(corpus)]
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_IN_PUBLISH, *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert killed.returncode == -9, killed.stderr

    rt = runtime(data, embedder)
    if later == "another source's ingest":
        assert rt.ingest(rt.folder_source(other, "other")).unchanged == 1
    report = rt.ingest(corpus)
    rt.close()
    # the edit the killed run did not finish counts as a change until it is published
    assert report.changed == ("runbooks:pgbouncer",) and report.unchanged == 2

    asking = runtime(data, embedder)  # as `runbook-bot ask` does
    text = quoted(asking, "how do I restart the pooler for checkout?")
    assert "deploy/odyssey" in text and "deploy/pgbouncer" not in text
    asking.close()

    again = runtime(data, embedder)  # and from here on, nothing is left to do
    assert again.ingest(corpus).unchanged == 3
    assert "vector_index" not in again.__dict__, "the store should not have been opened"
    again.close()
