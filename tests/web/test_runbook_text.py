"""The runbook page's text, read from the index: each heading once, whatever its syntax,
and a warning only for sections left unwritten."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from bot.web.runbook_page import runbook_page
from retrieval.search import FastEmbedder
from tests.conftest import runtime_over

# Synapse's admin FAQ: a heading over questions underlined as setext headings of its level
FAQ = (
    "## Admin FAQ\n\n"
    "How do I become a server admin?\n---\n"
    "Use the User Admin API to promote another account:\n\n"
    "```sql\nUPDATE users SET admin = 1 WHERE name = '@foo:bar.com';\n```\n\n"
    "What servers are my server talking to?\n---\n"
    "Run this sql query on your db:\n```sql\nSELECT * FROM destinations;\n```\n"
)
TEMPLATE = (
    "# Disk full\n\n## Meaning\n\nThe disk is full.\n\n## Mitigation\n\n"
    "## Escalation\n\nPage ops.\n"
)


def page_of(files: dict[str, str], path: str, tmp_path: Path, embedder: FastEmbedder):  # type: ignore[no-untyped-def]
    with runtime_over(files, tmp_path, embedder) as rt:
        chunks = [c for c in rt.searcher.snapshot().chunks if c.path == path]
        return runbook_page(chunks, lambda _meta: False, date(2026, 1, 1))


def test_a_setext_heading_is_shown_once_and_a_heading_over_siblings_is_no_unwritten_section(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    page = page_of({"admin_faq.md": FAQ}, "admin_faq.md", tmp_path, embedder)
    text = re.sub(r"<[^>]+>", "", str(page.html))
    assert text.count("How do I become a server admin?") == 1, page.html
    assert text.count("What servers are my server talking to?") == 1
    assert "SELECT * FROM destinations;" in text
    assert not page.warnings, page.warnings


def test_a_runbook_section_left_empty_is_named_on_its_page(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    page = page_of({"disk.md": TEMPLATE}, "disk.md", tmp_path, embedder)
    assert page.warnings == ("Sections not written yet: Mitigation.",)
