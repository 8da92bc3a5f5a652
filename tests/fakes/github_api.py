"""A fake GitHub REST API on 127.0.0.1 for tests: records every request, answers like
GitHub for what publishing a runbook draft uses (PyGithub pointed at ``base_url``).

    with FakeGitHub(token="ghp_test", repo="acme/runbooks") as fake:
        ...  # RUNBOOK_GITHUB_API_URL=fake.base_url
        fake.merge(1)  # the pull request is merged: its files land on the default branch

Served: ``GET /repos/<o>/<r>``, ``GET .../branches/<b>``, ``POST .../git/refs``,
``GET|PUT .../contents/<path>``, ``POST .../pulls``, ``GET .../pulls/<n>``. A request
without the token gets 401.
"""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import unquote, urlsplit

from tests.fakes.http_server import LocalHTTPServer

BASE_SHA = "a" * 40


@dataclass(frozen=True)
class GitHubCall:
    method: str
    path: str
    body: dict[str, Any]
    headers: dict[str, str]


@dataclass
class PullRequest:
    number: int
    title: str
    body: str
    head: str
    base: str
    state: str = "open"
    merged: bool = False


@dataclass
class _Repo:
    default_branch: str = "main"
    branches: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> path -> text
    pulls: list[PullRequest] = field(default_factory=list)


class FakeGitHub(LocalHTTPServer):
    def __init__(self, token: str = "ghp_test", repo: str = "acme/runbooks") -> None:
        super().__init__()
        self.token = token
        self.repo_name = repo
        self.repo = _Repo(branches={"main": {}})
        self.calls: list[GitHubCall] = []
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # ------------------------------------------------------------------ test helpers

    def pull(self, number: int) -> PullRequest:
        return next(p for p in self.repo.pulls if p.number == number)

    def files(self, branch: str) -> dict[str, str]:
        return dict(self.repo.branches.get(branch, {}))

    def merge(self, number: int) -> dict[str, str]:
        """Merge pull request ``number``: its branch's files land on the base branch;
        returns the files it added or changed."""
        with self._lock:
            pull = self.pull(number)
            base = self.repo.branches[pull.base]
            added = {p: t for p, t in self.repo.branches[pull.head].items() if base.get(p) != t}
            base.update(added)
            pull.state, pull.merged = "closed", True
            return added

    def calls_to(self, method: str, suffix: str) -> list[GitHubCall]:
        return [c for c in self.calls if c.method == method and c.path.endswith(suffix)]

    # ------------------------------------------------------------------ answers

    def _repo_json(self) -> dict[str, Any]:
        owner, name = self.repo_name.split("/")
        return {
            "id": 1,
            "name": name,
            "full_name": self.repo_name,
            "owner": {"login": owner},
            "default_branch": self.repo.default_branch,
            "url": f"{self.base_url}/repos/{self.repo_name}",
            "html_url": f"https://github.com/{self.repo_name}",
        }

    def _pull_json(self, pull: PullRequest) -> dict[str, Any]:
        return {
            "number": pull.number,
            "title": pull.title,
            "body": pull.body,
            "state": pull.state,
            "merged": pull.merged,
            "head": {"ref": pull.head},
            "base": {"ref": pull.base},
            "url": f"{self.base_url}/repos/{self.repo_name}/pulls/{pull.number}",
            "html_url": f"https://github.com/{self.repo_name}/pull/{pull.number}",
        }

    def handle(self, method: str, path: str, query: str, body: dict[str, Any]) -> tuple[int, Any]:
        prefix = f"/repos/{self.repo_name}"
        if not path.startswith(prefix):
            return 404, {"message": "Not Found"}
        rest = path[len(prefix) :]
        repo = self.repo
        with self._lock:
            if method == "GET" and rest == "":
                return 200, self._repo_json()
            if method == "GET" and rest.startswith("/branches/"):
                name = unquote(rest.removeprefix("/branches/"))
                if name not in repo.branches:
                    return 404, {"message": "Branch not found"}
                return 200, {"name": name, "commit": {"sha": BASE_SHA, "url": ""}}
            if method == "POST" and rest == "/git/refs":
                branch = str(body["ref"]).removeprefix("refs/heads/")
                if branch in repo.branches:
                    return 422, {"message": "Reference already exists"}
                repo.branches[branch] = dict(repo.branches[repo.default_branch])
                return 201, {"ref": body["ref"], "object": {"sha": body["sha"], "type": "commit"}}
            if rest.startswith("/contents/"):
                file_path = unquote(rest.removeprefix("/contents/"))
                if method == "GET":
                    ref = dict(p.split("=", 1) for p in query.split("&") if "=" in p).get(
                        "ref", repo.default_branch
                    )
                    text = repo.branches.get(unquote(ref), {}).get(file_path)
                    if text is None:
                        return 404, {"message": "Not Found"}
                    return 200, _content(file_path, text)
                if method == "PUT":
                    branch = str(body.get("branch") or repo.default_branch)
                    text = base64.b64decode(body["content"]).decode("utf-8")
                    repo.branches[branch][file_path] = text
                    return 201, {"content": _content(file_path, text), "commit": {"sha": "b" * 40}}
            if method == "POST" and rest == "/pulls":
                pull = PullRequest(
                    number=len(repo.pulls) + 1,
                    title=str(body["title"]),
                    body=str(body.get("body") or ""),
                    head=str(body["head"]),
                    base=str(body["base"]),
                )
                repo.pulls.append(pull)
                return 201, self._pull_json(pull)
            if method == "GET" and rest.startswith("/pulls/"):
                number = int(rest.removeprefix("/pulls/"))
                found = [p for p in repo.pulls if p.number == number]
                return (200, self._pull_json(found[0])) if found else (404, {"message": "x"})
        return 404, {"message": "Not Found"}


def _content(path: str, text: str) -> dict[str, Any]:
    return {
        "type": "file",
        "path": path,
        "name": path.rsplit("/", 1)[-1],
        "sha": "c" * 40,
        "encoding": "base64",
        "content": base64.b64encode(text.encode("utf-8")).decode("ascii"),
    }


class _Handler(BaseHTTPRequestHandler):
    fake: FakeGitHub

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_PUT(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def _serve(self) -> None:
        split = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else {}
        headers = dict(self.headers.items())
        with self.fake._lock:
            self.fake.calls.append(GitHubCall(self.command, split.path, body, headers))
        if (
            headers.get("Authorization") != f"token {self.fake.token}"
            and headers.get("Authorization") != f"Bearer {self.fake.token}"
        ):
            status, payload = 401, {"message": "Bad credentials"}
        else:
            status, payload = self.fake.handle(self.command, split.path, split.query, body)
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


FakeGitHub.handler_class = _Handler
