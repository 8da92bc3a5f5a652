"""Every kind of source, and the sources file that configures them.

Adding a kind is one module (its config model, its Source, a ``build`` function) and
one line in :data:`KINDS`; what it needs from the environment (tokens, API addresses)
comes from ``Settings.source_settings`` under the kind's name.

The sources file (``RUNBOOK_SOURCES_PATH``)::

    sources:
      - name: payments            # the prefix of its document ids: payments:db/failover
        kind: markdown_dir
        path: ../payments/docs/runbooks   # relative to this file
        url_template: https://github.com/acme/payments/blob/{commit}/{repo_path}#L{line}
      - name: sre-notion
        kind: notion
        databases: [1f2e...]
        owner_property: Owner
      - name: ops-wiki
        kind: confluence
        space: OPS
        label: runbook            # or page: 123456 (the tree under that page)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from ingest.errors import SourceConfigError
from ingest.sources import confluence, markdown_dir, notion
from ingest.sources.base import Source, SourceConfig, SourceDefaults


@dataclass(frozen=True)
class SourceKind:
    config: type[SourceConfig]
    build: Callable[[Any, SourceDefaults, Mapping[str, Any]], Source]


KINDS: dict[str, SourceKind] = {
    markdown_dir.KIND: SourceKind(markdown_dir.MarkdownDirConfig, markdown_dir.build),
    notion.KIND: SourceKind(notion.NotionConfig, notion.build),
    confluence.KIND: SourceKind(confluence.ConfluenceConfig, confluence.build),
}


def _problem(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])


def parse_sources(data: Any, where: str = "sources") -> tuple[SourceConfig, ...]:
    """The source configs of a loaded sources file (``{"sources": [...]}``)."""
    entries = data.get("sources") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise SourceConfigError(f"{where}: expected 'sources:' with a list of sources")
    configs: list[SourceConfig] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries, start=1):
        label = f"{where}: source {i}"
        if not isinstance(entry, dict):
            raise SourceConfigError(f"{label}: expected a mapping with name and kind")
        kind = KINDS.get(str(entry.get("kind", "")))
        if kind is None:
            known = ", ".join(sorted(KINDS))
            raise SourceConfigError(f"{label}: kind {entry.get('kind')!r} is not one of {known}")
        try:
            config = kind.config.model_validate(entry)
        except ValidationError as exc:
            raise SourceConfigError(f"{label} ({entry.get('name')}): {_problem(exc)}") from exc
        if config.name in seen:
            raise SourceConfigError(f"{label}: a second source named {config.name!r}")
        seen.add(config.name)
        configs.append(config)
    return tuple(configs)


def load_sources_file(path: Path) -> tuple[SourceConfig, ...]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SourceConfigError(f"cannot read the sources file {path}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise SourceConfigError(f"{path}: invalid YAML: {exc}") from exc
    return parse_sources(data, str(path))


def build_source(
    config: SourceConfig,
    defaults: SourceDefaults,
    settings_by_kind: Mapping[str, Mapping[str, Any]],
) -> Source:
    """The Source ``config`` describes, with its kind's settings from the environment."""
    kind = KINDS.get(config.kind)
    if kind is None:
        raise SourceConfigError(f"source {config.name!r}: unknown kind {config.kind!r}")
    return kind.build(config, defaults, settings_by_kind.get(config.kind, {}))
