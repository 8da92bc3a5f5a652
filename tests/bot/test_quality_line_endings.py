"""`make quality` judges quotes against the files as ingest reads them: a runbook written
with CRLF line endings keeps them, so its quotes' offsets are the file's own and every
quote is verbatim. Real model, embedded index, the evaluation's public entry point."""

from __future__ import annotations

from pathlib import Path

from bot.quality import evaluate, ingest_set
from bot.runtime import Runtime
from bot.settings import load_settings
from retrieval.answer import Question
from retrieval.search.embeddings import FastEmbedder

RUNBOOK = (
    "# Replica resync\r\n\r\n"
    "Use this when a brick was replaced.\r\n\r\n"
    "## Full heal\r\n\r\n"
    "Run a full heal so every file is compared, not only those marked dirty:\r\n\r\n"
    "```\r\ngluster volume heal <VOLNAME> full\r\n```\r\n\r\n"
    "## Split-brain\r\n\r\n"
    "Pick the source brick by hand and heal the file from it.\r\n"
)


def test_quotes_of_a_crlf_runbook_are_verbatim_and_find_their_section(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "resync.md").write_bytes(RUNBOOK.encode("utf-8"))
    rt = Runtime(load_settings(data_dir=tmp_path / "data"), embedder=embedder)
    try:
        ingest_set(rt, corpus)
        question = Question(
            "q1",
            "brick replaced, how do i heal every file not just the dirty ones",
            ("resync.md",),
            True,
            "procedure",
            section="Full heal",
        )
        (outcome,) = evaluate(rt, [question], [corpus])
    finally:
        rt.close()
    assert outcome.answered
    assert outcome.quotes_verbatim is True
    assert outcome.section_hit is True and outcome.lead_hit is True
