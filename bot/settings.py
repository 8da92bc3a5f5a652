"""Settings: the only module that reads the environment.

Every field can be set by an environment variable ``RUNBOOK_<FIELD>`` (or the
well-known names for Slack and OpenAI), by a ``.env`` file, or by CLI flags,
which win over both.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from retrieval.search import DEFAULT_RRF_K
from state.keys import DEFAULT_NAMESPACE, NAMESPACE_PATTERN

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
DEFAULT_SOURCE_URL = "https://github.com/acme/runbooks/blob/{commit}/{path}#L{line}"
DEFAULT_SLACK_AUTHORIZE_URL = "https://slack.com/openid/connect/authorize"
WEB_CALLBACK_PATH = "/auth/slack/callback"
_HTTP_ADDRESS = re.compile(r"^https?://[^/?#\s]+(/[^?#\s]*)?$")
_GITHUB_REPO = re.compile(r"^https://github\.com/([^/{}]+)/([^/{}]+)/([^/{}]*)")


def _env(name: str, *aliases: str, default: Any = None) -> Any:
    return Field(
        default=default,
        validation_alias=AliasChoices(name, f"RUNBOOK_{name.upper()}", *aliases),
    )


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="RUNBOOK_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        frozen=True,
    )

    # storage
    data_dir: Path = Path("data")
    qdrant_url: str | None = None
    qdrant_api_key: SecretStr | None = None
    qdrant_path: Path | None = None  # default: <data_dir>/qdrant
    collection: str = "runbooks"
    # Qdrant server only: collection layout for a cluster
    qdrant_shards: int = 1
    qdrant_replicas: int = 1

    # embeddings
    embedding_model: str = DEFAULT_MODEL
    embedding_model_path: Path | None = None
    embedding_threads: int | None = None

    # ingest
    chunk_max_tokens: int = 256
    max_file_bytes: int = 1_000_000
    default_access_group: str = "everyone"
    source_url_template: str | None = DEFAULT_SOURCE_URL
    front_matter_keys: tuple[str, ...] = ()  # more keys to accept (a site generator's)
    # where documents come from: a YAML file listing the sources (see README "Sources");
    # unset: the folders named on the command line
    sources_path: Path | None = None
    # the notion source: an internal integration's token, shared with its pages
    notion_token: SecretStr | None = None
    notion_base_url: str | None = None  # the Notion API's address (tests and proxies only)
    notion_timeout_seconds: float = Field(default=30.0, gt=0)
    notion_retries: int = Field(default=2, ge=0)  # of a rate-limited or failed read
    # a database not found (404: deleted or unshared) fails each sync, keeping its pages,
    # until the same 404 on this many syncs in a row removes them
    notion_retire_after_syncs: int = Field(default=3, ge=1)
    # the confluence source: the site (https://acme.atlassian.net/wiki, or Data Center's
    # address), and Cloud's account email with its API token, or Data Center's personal
    # access token (no email)
    confluence_base_url: str | None = None
    confluence_email: str | None = None
    confluence_token: SecretStr | None = None
    confluence_timeout_seconds: float = Field(default=30.0, gt=0)
    confluence_retries: int = Field(default=3, ge=0)  # of a rate-limited (429) request
    confluence_max_retry_wait_seconds: float = Field(default=60.0, ge=0)  # caps Retry-After

    # search
    rrf_k: int = DEFAULT_RRF_K
    search_candidates: int = 50

    # answers
    stale_after_days: int = 180
    # default: code search scoped to the runbook repository of source_url_template
    search_link_template: str | None = None
    # the confidence a quoted answer needs (default: calibrated, retrieval/answer/answer_config.py)
    answer_min_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    # the confidence an answer needs to be "sure" (Post to channel, no best-guess label)
    sure_min_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    glossary_path: Path | None = None
    # a team's own words: chat shorthand that names nothing, systems named by English words
    words_path: Path | None = None
    hyde: bool = False

    # LLM (optional): any OpenAI-compatible endpoint
    openai_api_key: SecretStr | None = _env("openai_api_key", "OPENAI_API_KEY")
    openai_base_url: str | None = _env("openai_base_url", "OPENAI_BASE_URL")
    llm_model: str = "gpt-4o-mini"
    llm_timeout_seconds: float = 20.0

    # cache, dedup, logs
    redis_url: str = _env("redis_url", "REDIS_URL", default="redis://127.0.0.1:6379/0")
    # prefix of every key this deployment keeps in Redis; deployments sharing a database
    # need different ones (cache clear and cleanup only touch their own)
    redis_namespace: str = Field(default=DEFAULT_NAMESPACE, pattern=NAMESPACE_PATTERN)
    cache_ttl_seconds: int = 3600
    query_log_path: Path | None = None  # default: Redis stream
    query_log_retention_days: int = 30
    user_hash_salt: SecretStr | None = None  # default: a random salt kept in the data dir
    dedup_ttl_seconds: int = 3600
    log_format: str = "json"
    log_level: str = "INFO"

    # permissions
    access_map_path: Path | None = None
    usergroup_cache_ttl_seconds: int = 600

    # slack
    slack_bot_token: SecretStr | None = _env("slack_bot_token", "SLACK_BOT_TOKEN")
    slack_signing_secret: SecretStr | None = _env("slack_signing_secret", "SLACK_SIGNING_SECRET")
    slack_app_token: SecretStr | None = _env("slack_app_token", "SLACK_APP_TOKEN")
    slack_api_url: str | None = _env("slack_api_url", "SLACK_API_URL")
    incident_channel_patterns: tuple[str, ...] = ("inc-*", "incident-*")
    # who to ask about an ownerless runbook: the service's channel (this name, with
    # {service}; empty: not looked up), else this contact ("#channel" or "@user-group")
    service_channel_template: str = "{service}"
    fallback_contact: str | None = None
    port: int = 3000

    # who is on call now: PagerDuty's REST API (a read-write API token pages on-call), and
    # per service its PagerDuty service or escalation policy and channel (a YAML file)
    pagerduty_token: SecretStr | None = None
    pagerduty_base_url: str | None = None  # the REST API's address (tests and proxies only)
    pagerduty_from: str | None = None  # the PagerDuty user's email incidents are created as
    pagerduty_timeout_seconds: float = Field(default=5.0, gt=0)
    pagerduty_ca_file: Path | None = None  # certificates to trust besides the system's (proxies)
    oncall_cache_seconds: float = Field(default=60.0, ge=0)
    services_map_path: Path | None = None

    # web pages at / on the same port: Sign in with Slack (OpenID Connect), or a local
    # mode without sign-in that only binds 127.0.0.1
    public_url: str | None = None  # where people reach the server, e.g. https://runbooks.acme.io
    # RUNBOOK_SLACK_CLIENT_ID/SECRET, never SLACK_CLIENT_ID/SECRET: bolt reads those and
    # then switches the bot to OAuth installations, ignoring SLACK_BOT_TOKEN
    slack_client_id: str | None = None
    slack_client_secret: SecretStr | None = None
    slack_authorize_url: str = DEFAULT_SLACK_AUTHORIZE_URL  # tests and proxies only
    # the workspace (T…) people sign in from; default: the bot token's. Needed to serve the
    # web pages with Sign in with Slack and no bot token
    slack_team_id: str | None = None
    web_redirect_uri: str | None = None  # default: <public_url>/auth/slack/callback
    web_session_secret: SecretStr | None = None  # default: a random secret kept in the data dir
    web_session_max_age_seconds: int = Field(default=12 * 3600, gt=0)
    web_local_mode: bool = False
    web_local_groups: tuple[str, ...] = ()  # local mode: access groups besides the default
    web_report_groups: tuple[str, ...] = ()  # who sees the gaps report; empty: everyone
    # alert posts answered without a mention: channels whose names match these globs
    # (comma-separated; unset: nowhere)
    alert_channels: Annotated[tuple[str, ...], NoDecode] = ()
    # one reply per alert (name and labels) per channel within this window
    alert_window_seconds: int = Field(default=12 * 3600, gt=0)
    # a re-notification within the window: a one-line pointer to the first reply, or nothing
    alert_repeats: Literal["pointer", "silence"] = "pointer"
    # no confident runbook for an alert: say nothing, or one line "no runbook for X"
    alert_unsure: Literal["silence", "note"] = "silence"
    # at most this many alert replies per channel per rate window
    alert_rate_limit: int = Field(default=10, ge=0)
    alert_rate_window_seconds: int = Field(default=600, gt=0)
    # the access group of documents that may be shown outside the company: in channels
    # shared with other organizations (Slack Connect) only these are answered from
    external_access_group: str = "external"

    # runbooks drafted from incident threads: a pull request in this repository (owner/name)
    # with this token, else the file is sent to the person (see README "Drafting a runbook")
    github_token: SecretStr | None = None
    github_repo: str | None = Field(default=None, pattern=r"^[\w.-]+/[\w.-]+$")
    github_api_url: str = "https://api.github.com"  # GitHub Enterprise: https://<host>/api/v3
    github_base_branch: str | None = None  # default: the repository's default branch

    # /metrics: on the main port with this bearer token, and/or without a token on
    # 127.0.0.1:<metrics_port>; with neither it is not served
    metrics_token: SecretStr | None = None
    metrics_port: int | None = None

    @field_validator("alert_channels", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return tuple(json.loads(text))
            return tuple(p.strip() for p in text.split(",") if p.strip())
        return value

    @field_validator("metrics_token", mode="before")
    @classmethod
    def _blank_token_is_unset(cls, value: Any) -> Any:
        # an empty token would match an empty "Authorization: Bearer " header
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        return None if isinstance(text, str) and not text.strip() else value

    @field_validator("github_api_url", mode="after")
    @classmethod
    def _github_address(cls, value: str) -> str:
        return (_http_address(value) or "https://api.github.com").rstrip("/")

    @field_validator(
        "notion_token", "confluence_token", "github_token", "pagerduty_token", mode="before"
    )
    @classmethod
    def _blank_api_token_is_unset(cls, value: Any) -> Any:
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        return None if isinstance(text, str) and not text.strip() else value

    @field_validator("public_url", "web_redirect_uri", "pagerduty_base_url", mode="after")
    @classmethod
    def _web_address(cls, value: str | None) -> str | None:
        return _http_address(value)

    @field_validator("confluence_base_url", mode="after")
    @classmethod
    def _confluence_address(cls, value: str | None) -> str | None:
        address = _http_address(value)
        return address.rstrip("/") if address else None

    @field_validator("confluence_email", mode="before")
    @classmethod
    def _blank_email_is_unset(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("slack_authorize_url", mode="after")
    @classmethod
    def _authorize_address(cls, value: str) -> str:
        return _http_address(value) or DEFAULT_SLACK_AUTHORIZE_URL

    @field_validator("slack_client_id", "slack_client_secret", mode="before")
    @classmethod
    def _blank_client_is_unset(cls, value: Any) -> Any:
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        return None if isinstance(text, str) and not text.strip() else value

    @field_validator("public_url", mode="after")
    @classmethod
    def _no_trailing_slash(cls, value: str | None) -> str | None:
        return value.rstrip("/") if value else value

    @property
    def web_redirect(self) -> str | None:
        """Where Slack sends the browser back after sign-in."""
        if self.web_redirect_uri:
            return self.web_redirect_uri
        return self.public_url + WEB_CALLBACK_PATH if self.public_url else None

    @property
    def web_sign_in(self) -> bool:
        """Whether Sign in with Slack is configured (client id and secret)."""
        return bool(self.slack_client_id) and self.slack_client_secret is not None

    @property
    def qdrant_local_path(self) -> Path:
        return self.qdrant_path or self.data_dir / "qdrant"

    @property
    def snapshot_dir(self) -> Path:
        return self.data_dir / "snapshot"

    @property
    def model_cache_dir(self) -> Path:
        return self.data_dir / "models"

    @property
    def search_link(self) -> str | None:
        """Where "search the runbooks" points: the configured template, or code search
        in the runbook repository; never a search of all of GitHub."""
        if self.search_link_template:
            return self.search_link_template
        m = _GITHUB_REPO.match(self.source_url_template or "")
        if m is None:
            return None
        # a GitHub wiki's pages are searched as wikis, not as code
        kind = "wikis" if m[3] == "wiki" else "code"
        return f"https://github.com/search?type={kind}&q=repo%3A{m[1]}%2F{m[2]}+{{query}}"

    @property
    def source_settings(self) -> dict[str, dict[str, Any]]:
        """What each kind of source takes from the environment, by kind."""
        return {
            "notion": {
                "token": self.notion_token,
                "base_url": self.notion_base_url,
                "timeout_seconds": self.notion_timeout_seconds,
                "retries": self.notion_retries,
                "retire_after_syncs": self.notion_retire_after_syncs,
            },
            "confluence": {
                "base_url": self.confluence_base_url,
                "email": self.confluence_email,
                "token": self.confluence_token,
                "timeout_seconds": self.confluence_timeout_seconds,
                "retries": self.confluence_retries,
                "max_retry_wait_seconds": self.confluence_max_retry_wait_seconds,
            },
        }

    @property
    def drafts_dir(self) -> Path:
        """Where runbook drafts handed over as files are kept for the web page."""
        return self.data_dir / "drafts"

    @property
    def pagerduty_enabled(self) -> bool:
        """Whether who is on call is asked of PagerDuty (a token is configured)."""
        return self.pagerduty_token is not None

    @property
    def slack_enabled(self) -> bool:
        """Whether the Slack app can run: a bot token, and a signing secret or an app
        token (Socket Mode)."""
        token = self.slack_bot_token
        if token is None or not token.get_secret_value().strip():
            return False
        return self.slack_signing_secret is not None or self.slack_app_token is not None

    @property
    def llm_enabled(self) -> bool:
        return self.openai_api_key is not None or self.openai_base_url is not None


def _http_address(value: str | None) -> str | None:
    """An http(s) address without query or fragment; None for a blank value."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if not _HTTP_ADDRESS.match(value):
        raise ValueError(f"{value!r} is not an http(s) address without query or fragment")
    return value


def load_settings(**overrides: Any) -> Settings:
    """Settings from the environment, with explicit (CLI) overrides winning."""
    clean = {k: v for k, v in overrides.items() if v is not None}
    return Settings(**clean)
