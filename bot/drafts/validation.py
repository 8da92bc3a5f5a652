"""The draft through the project's own ``ingest --check``: the same reading of the same
folder source, on a private copy holding only the draft."""

from __future__ import annotations

import tempfile
from pathlib import Path

from bot.drafts.errors import DraftInvalid
from ingest.sync import IngestOptions, parse_corpus


def check_draft(markdown: str, path: str, options: IngestOptions) -> None:
    """Raise :class:`DraftInvalid` naming each problem ``ingest --check`` would report
    for ``markdown`` at ``path`` (a file skipped, a front matter problem, an access group
    the access map does not know)."""
    with tempfile.TemporaryDirectory(prefix="runbook-draft-") as tmp:
        target = Path(tmp) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(markdown, encoding="utf-8")
        corpus = parse_corpus(Path(tmp), options)
    problems = [str(s) for s in (*corpus.skipped, *corpus.problems)]
    problems += [w for w in corpus.warnings if "unknown access group" in w]
    if not corpus.documents and not problems:
        problems.append(f"{path}: not read as a runbook")
    if problems:
        raise DraftInvalid(tuple(problems))
