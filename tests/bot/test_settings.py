"""bot.settings: what the environment and defaults make of the settings."""

from __future__ import annotations

from pathlib import Path

from bot.settings import load_settings


def test_the_search_link_is_scoped_to_the_runbook_repository(tmp_path: Path) -> None:
    code = load_settings(
        data_dir=tmp_path,
        source_url_template="https://github.com/acme/runbooks/blob/{commit}/{path}#L{line}",
    )
    assert code.search_link == (
        "https://github.com/search?type=code&q=repo%3Aacme%2Frunbooks+{query}"
    )
    wiki = load_settings(
        data_dir=tmp_path, source_url_template="https://github.com/acme/ops/wiki/{name}/{commit}"
    )
    assert wiki.search_link == "https://github.com/search?type=wikis&q=repo%3Aacme%2Fops+{query}"
    elsewhere = load_settings(
        data_dir=tmp_path, source_url_template="https://git.example/acme/ops/{path}"
    )
    assert elsewhere.search_link is None  # never a search of all of a code host
    chosen = load_settings(
        data_dir=tmp_path,
        source_url_template="https://github.com/acme/ops/wiki/{name}",
        search_link_template="https://search.example/?q={query}",
    )
    assert chosen.search_link == "https://search.example/?q={query}"
