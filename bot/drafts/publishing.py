"""Where a confirmed draft goes: a seam with a registry.

A publisher takes the draft (its Markdown, path and what it came from) and returns what
it made: a pull request in the runbook repository (:mod:`bot.drafts.github_pr`), or the
file handed to the person (:mod:`bot.drafts.file_drop`) when no repository token is
configured. :func:`make_publisher` chooses by the configuration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import SecretStr

if TYPE_CHECKING:
    from bot.settings import Settings

DraftState = Literal["sent", "open", "merged", "closed"]


@dataclass(frozen=True)
class ReadyDraft:
    """A draft the person confirmed, ready to leave Slack."""

    title: str
    service: str | None
    path: str  # inside the runbook repository, checked
    markdown: str
    thread_url: str | None
    requested_by: str  # the Slack user id of the person who confirmed it
    question: str | None = None
    requested_name: str = ""  # how Slack names that person ("@dana")


@dataclass(frozen=True)
class Published:
    """What a publisher made of a draft."""

    kind: Literal["pull_request", "file"]
    path: str
    url: str | None  # the pull request, or the web page offering the file
    state: DraftState
    number: int | None = None  # the pull request's
    branch: str | None = None


class Publisher(Protocol):
    kind: str

    def publish(self, draft: ReadyDraft) -> Published:
        """Make the pull request (or hand over the file); raise PublishError on failure."""
        ...

    def state(self, published: Published) -> DraftState:
        """Where it stands now (a pull request: open, merged or closed)."""
        ...


@dataclass(frozen=True)
class PublishSettings:
    """What publishing takes from the settings."""

    github_token: SecretStr | None = None
    github_repo: str | None = None  # owner/name
    github_api_url: str = "https://api.github.com"
    github_base_branch: str | None = None  # default: the repository's default branch
    github_timeout_seconds: float = 15.0
    drafts_dir: str = "data/drafts"  # where files handed over are kept for the web page
    public_url: str | None = None

    @classmethod
    def of(cls, settings: Settings) -> PublishSettings:
        return cls(
            github_token=settings.github_token,
            github_repo=settings.github_repo,
            github_api_url=settings.github_api_url,
            github_base_branch=settings.github_base_branch,
            drafts_dir=str(settings.drafts_dir),
            public_url=settings.public_url,
        )


#: sends ``(user_id, filename, content, comment)`` to the person privately
SendFile = Callable[[str, str, str, str], None]

PublisherFactory = Callable[[PublishSettings, SendFile], Publisher]


def _github(settings: PublishSettings, send: SendFile) -> Publisher:
    from bot.drafts.github_pr import GitHubPublisher

    return GitHubPublisher.from_settings(settings)


def _file(settings: PublishSettings, send: SendFile) -> Publisher:
    from bot.drafts.file_drop import FilePublisher

    return FilePublisher.from_settings(settings, send)


#: each kind of publisher, by name
PUBLISHERS: dict[str, PublisherFactory] = {"github": _github, "file": _file}


def publisher_kind(settings: PublishSettings) -> str:
    """``github`` when a repository and its token are configured, else ``file``."""
    return "github" if settings.github_token is not None and settings.github_repo else "file"


def make_publisher(settings: PublishSettings, send: SendFile) -> Publisher:
    return PUBLISHERS[publisher_kind(settings)](settings, send)
