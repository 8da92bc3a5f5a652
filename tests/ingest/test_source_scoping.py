"""Several sources in one index: ids name their source, and a sync touches only its own."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from bot.cli import main
from bot.runtime import Runtime
from bot.settings import load_settings
from ingest.errors import SourceConfigError
from ingest.manifest import read_manifest
from ingest.sources.base import SourceRead
from ingest.sources.markdown_dir import MarkdownDirSource
from ingest.sources.registry import parse_sources
from retrieval.search.embeddings import FastEmbedder

FAILOVER = "# {svc} DB failover\n\n## Mitigation\n\n1. Promote the {svc} replica.\n"


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


@pytest.fixture()
def repos(tmp_path: Path) -> dict[str, Path]:
    """Two service repositories with a runbook at the same path."""
    out = {}
    for svc in ("payments", "checkout"):
        root = tmp_path / svc / "docs" / "runbooks"
        write(root, "db/failover.md", FAILOVER.format(svc=svc))
        write(root, f"{svc}-only.md", f"# {svc} cache\n\n## Steps\n\nFlush the {svc} cache.\n")
        out[svc] = root
    return out


@pytest.fixture()
def rt(tmp_path: Path, embedder: FastEmbedder) -> Iterator[Runtime]:
    runtime = Runtime(load_settings(data_dir=tmp_path / "data"), embedder=embedder)
    yield runtime
    runtime.close()


def live_ids(rt: Runtime) -> set[str]:
    return set(rt.vector_index.manifest())


def test_same_paths_in_two_sources_are_two_documents(rt: Runtime, repos: dict[str, Path]) -> None:
    for name, root in repos.items():
        rt.ingest(rt.folder_source(root, name))
    assert live_ids(rt) == {
        "payments:db/failover",
        "payments:payments-only",
        "checkout:db/failover",
        "checkout:checkout-only",
    }
    chunks = {c.source_id: c for c in rt.vector_index.live_chunks()}
    assert chunks["payments:db/failover"].path == "db/failover.md"
    assert "payments replica" in chunks["payments:db/failover"].text


def test_a_sync_removes_only_its_own_sources_documents(rt: Runtime, repos: dict[str, Path]) -> None:
    for name, root in repos.items():
        rt.ingest(rt.folder_source(root, name))
    (repos["checkout"] / "checkout-only.md").unlink()
    # payments' sync does not see checkout's files and must not remove them
    payments = rt.ingest(rt.folder_source(repos["payments"], "payments"))
    assert payments.removed == () and payments.unchanged == 2
    assert "checkout:checkout-only" in live_ids(rt)
    checkout = rt.ingest(rt.folder_source(repos["checkout"], "checkout"))
    assert checkout.removed == ("checkout:checkout-only",)
    assert live_ids(rt) == {
        "payments:db/failover",
        "payments:payments-only",
        "checkout:db/failover",
    }


def test_the_quick_unchanged_check_is_per_source(
    tmp_path: Path, embedder: FastEmbedder, repos: dict[str, Path]
) -> None:
    data = tmp_path / "data"
    first = Runtime(load_settings(data_dir=data), embedder=embedder)
    for name, root in repos.items():
        first.ingest(first.folder_source(root, name))
    first.close()
    manifest = read_manifest(data)
    assert manifest is not None and len(manifest.documents) == 4

    again = Runtime(load_settings(data_dir=data), embedder=embedder)
    report = again.ingest(again.folder_source(repos["payments"], "payments"))
    assert report.unchanged == 2 and "vector_index" not in again.__dict__
    assert set(report.live) == set(manifest.documents)  # the other source is still recorded
    write(repos["checkout"], "new.md", "# New\n\n## Steps\n\nDo it.\n")
    changed = again.ingest(again.folder_source(repos["checkout"], "checkout"))
    assert changed.added == ("checkout:new",) and changed.unchanged == 2
    again.close()


class LegacyIds:
    """A folder read as an index built before sources had names wrote it: bare paths."""

    def __init__(self, inner: MarkdownDirSource) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        return "legacy"

    @property
    def watch_path(self) -> Path:
        return self.inner.root

    def read(self, known: Mapping[str, str]) -> SourceRead:
        read = self.inner.read(known)
        docs = []
        for p in read.documents:
            bare = p.document.source_id.split(":", 1)[1]
            doc = p.document.model_copy(update={"source_id": bare})
            docs.append(type(p)(doc, p.body_start, p.problems, p.anchors))
        return SourceRead(tuple(docs), (), read.skipped, read.warnings)


def test_an_index_of_unnamed_ids_is_replaced_by_the_default_source(
    rt: Runtime, repos: dict[str, Path]
) -> None:
    root = repos["payments"]
    rt.ingest(LegacyIds(rt.folder_source(root)))
    assert live_ids(rt) == {"db/failover", "payments-only"}

    other = rt.ingest(rt.folder_source(repos["checkout"], "checkout"))
    assert any("stay until the source 'runbooks' is synced" in w for w in other.warnings)
    assert {"db/failover", "payments-only"} <= live_ids(rt)

    report = rt.ingest(root)  # `runbook-bot ingest DIR`: the default source
    assert sorted(report.removed) == ["db/failover", "payments-only"]
    assert sorted(report.added) == ["runbooks:db/failover", "runbooks:payments-only"]
    assert any("before sources had names are replaced" in w for w in report.warnings)
    assert live_ids(rt) == {
        "runbooks:db/failover",
        "runbooks:payments-only",
        "checkout:db/failover",
        "checkout:checkout-only",
    }


def test_cli_names_folders_and_refuses_two_with_one_name(
    tmp_path: Path, repos: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "data")
    code = main(
        [
            "--data-dir",
            data,
            "ingest",
            f"payments={repos['payments']}",
            f"checkout={repos['checkout']}",
        ]
    )
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert [line.split(":")[0] for line in out] == ["payments", "checkout"]
    assert all("added 2" in line for line in out)

    assert main(["--data-dir", data, "ingest", str(repos["payments"]), str(repos["checkout"])]) == 2
    assert "name them (NAME=DIR)" in capsys.readouterr().err
    assert main(["--data-dir", data, "ingest"]) == 2
    assert "RUNBOOK_SOURCES_PATH" in capsys.readouterr().err


def test_sources_file_problems_are_named() -> None:
    with pytest.raises(SourceConfigError, match="kind 'sharepoint' is not one of"):
        parse_sources({"sources": [{"name": "wiki", "kind": "sharepoint"}]})
    with pytest.raises(
        SourceConfigError, match=r"source 1 \(wiki\): .*a confluence source needs a space"
    ):
        parse_sources({"sources": [{"name": "wiki", "kind": "confluence"}]})
    with pytest.raises(SourceConfigError, match="a second source named 'docs'"):
        parse_sources(
            {
                "sources": [
                    {"name": "docs", "kind": "markdown_dir", "path": "a"},
                    {"name": "docs", "kind": "markdown_dir", "path": "b"},
                ]
            }
        )
    with pytest.raises(SourceConfigError, match="name"):
        parse_sources({"sources": [{"name": "Has Spaces", "kind": "markdown_dir", "path": "a"}]})
    with pytest.raises(SourceConfigError, match="needs databases or pages"):
        parse_sources({"sources": [{"name": "n", "kind": "notion"}]})
    with pytest.raises(SourceConfigError, match="paths: Extra inputs are not permitted"):
        parse_sources(
            {"sources": [{"name": "n", "kind": "markdown_dir", "path": "a", "paths": "x"}]}
        )


def test_each_source_has_its_own_link_template(
    tmp_path: Path, embedder: FastEmbedder, repos: dict[str, Path]
) -> None:
    sources = tmp_path / "sources.yaml"
    sources.write_text(
        "sources:\n"
        "  - name: payments\n    kind: markdown_dir\n    path: payments/docs/runbooks\n"
        "    url_template: https://git.example/payments/-/blob/main/{path}#L{line}\n"
        "  - name: checkout\n    kind: markdown_dir\n    path: checkout/docs/runbooks\n"
        "    url_template: ''\n",
        encoding="utf-8",
    )
    rt = Runtime(load_settings(data_dir=tmp_path / "data", sources_path=sources), embedder=embedder)
    try:
        for source in rt.configured_sources():
            rt.ingest(source)
        urls = {c.source_id: c.metadata.url for c in rt.vector_index.live_chunks()}
    finally:
        rt.close()
    assert urls["payments:db/failover"] == (
        "https://git.example/payments/-/blob/main/db/failover.md#L{line}"
    )
    assert urls["checkout:db/failover"] is None


def test_the_example_sources_file_is_valid() -> None:
    from ingest.sources.registry import load_sources_file
    from tests.conftest import ROOT

    configs = load_sources_file(ROOT / "examples" / "sources.yaml")
    assert [(c.name, c.kind) for c in configs] == [
        ("payments", "markdown_dir"),
        ("checkout", "markdown_dir"),
        ("sre-notion", "notion"),
        ("ops-wiki", "confluence"),
    ]
