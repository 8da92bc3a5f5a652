"""Drafts as pull requests in the runbook repository on GitHub (PyGithub).

The draft goes on a new branch (``runbook-draft/<slug>-<n>``) from the base branch, as
one commit adding the file at its path; the pull request's description links the thread.
The token is only ever handed to PyGithub, which never logs it.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from typing import Any

from github import Auth, Github, GithubException

from bot.drafts.errors import PublishError
from bot.drafts.paths import slug
from bot.drafts.publishing import DraftState, Published, PublishSettings, ReadyDraft

log = logging.getLogger("runbook_bot.drafts")
BRANCH_PREFIX = "runbook-draft/"


def pull_request_body(draft: ReadyDraft) -> str:
    """The pull request's description: where the draft came from and what to check."""
    lines = ["A runbook drafted by runbook-bot from an incident thread.", ""]
    if draft.thread_url:
        lines.append(f"- Thread: {draft.thread_url}")
    if draft.question:
        lines.append(f"- Asked before any runbook answered it: “{draft.question}”")
    who = draft.requested_name or f"`{draft.requested_by}`"
    lines.append(f"- Requested in Slack by {who}")
    lines += [
        "",
        "Before merging: check every command against the thread, fill in each `TODO`, "
        "and confirm the owner and access.",
    ]
    return "\n".join(lines)


@dataclass
class GitHubPublisher:
    client: Github
    repo_name: str
    base_branch: str | None = None
    kind: str = "github"

    @classmethod
    def from_settings(cls, settings: PublishSettings) -> GitHubPublisher:
        if settings.github_token is None or not settings.github_repo:
            raise PublishError("no runbook repository or token configured")
        client = Github(
            auth=Auth.Token(settings.github_token.get_secret_value()),
            base_url=settings.github_api_url.rstrip("/"),
            timeout=int(settings.github_timeout_seconds),
            retry=None,
        )
        return cls(client, settings.github_repo, settings.github_base_branch)

    def _repo(self) -> Any:
        return self.client.get_repo(self.repo_name)

    def publish(self, draft: ReadyDraft) -> Published:
        try:
            repo = self._repo()
            base = self.base_branch or repo.default_branch
            if _exists(repo, draft.path, base):
                raise PublishError(
                    f"{draft.path} already exists in {self.repo_name}: choose another path"
                )
            sha = repo.get_branch(base).commit.sha
            branch = f"{BRANCH_PREFIX}{slug(draft.title, 40)}-{secrets.token_hex(3)}"
            repo.create_git_ref(ref=f"refs/heads/{branch}", sha=sha)
            repo.create_file(
                draft.path, f"Add runbook draft: {draft.title}", draft.markdown, branch=branch
            )
            pull = repo.create_pull(
                title=f"Runbook: {draft.title}",
                body=pull_request_body(draft),
                head=branch,
                base=base,
            )
        except GithubException as exc:
            raise PublishError(f"GitHub refused the pull request ({exc.status})") from exc
        except PublishError:
            raise
        except Exception as exc:  # the API could not be reached
            raise PublishError(f"GitHub could not be reached ({type(exc).__name__})") from exc
        log.info("opened pull request %s for %s", pull.number, draft.path)
        return Published(
            "pull_request", draft.path, pull.html_url, "open", number=pull.number, branch=branch
        )

    def state(self, published: Published) -> DraftState:
        if published.number is None:
            return published.state
        try:
            pull = self._repo().get_pull(published.number)
        except Exception as exc:
            raise PublishError(f"could not read pull request {published.number}") from exc
        if pull.merged:
            return "merged"
        return "closed" if pull.state == "closed" else "open"


def _exists(repo: Any, path: str, ref: str) -> bool:
    try:
        repo.get_contents(path, ref=ref)
    except GithubException as exc:
        if exc.status == 404:
            return False
        raise
    return True
