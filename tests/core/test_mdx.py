"""core.mdx: where an MDX file's body starts."""

from __future__ import annotations

from core.markdown import MARKDOWN
from core.markup import syntax_for
from core.mdx import MDX, body_start


def test_imports_and_exports_before_the_body_are_skipped() -> None:
    text = (
        "import A from 'a';\n\nimport {\n  B,\n  C,\n} from \"b\"\n"
        "import './side-effect.css'\nexport const x = 1;\n\n# Title\n\nimport is a word here.\n"
    )
    assert text[body_start(text, 0) :].startswith("# Title\n")


def test_a_body_without_statements_starts_where_it_did() -> None:
    text = "---\ntitle: t\n---\n\n# Title\n"
    start = text.index("\n\n# Title") + 1
    assert body_start(text, start) == start
    assert body_start("", 0) == 0


def test_a_file_of_only_imports_has_an_empty_body() -> None:
    text = "import A from 'a';\n"
    assert body_start(text, 0) == len(text)


def test_mdx_files_by_suffix() -> None:
    assert syntax_for("docs/Runbook.MDX") is MDX
    assert syntax_for("docs/runbook.md") is MARKDOWN
