"""A local fake of the Confluence REST API (version 1): the CQL search that lists pages,
and a page by id, with its body, labels, restrictions and ancestors.

It records every request (method, path, query, headers, status) and answers from
pages added with ``add_page``. Pages of results are at most ``max_page_size`` long and
link to the next with ``_links.next``, as Confluence does. The search understands the
queries a source sends (``type = page AND space = "X"``, ``... AND label = "y"``,
``(id = N OR ancestor = N)``); archived pages are not listed. ``expand`` is honoured
for bodies, restrictions and content properties, so a client that forgets to ask gets
none. ``fail_next`` makes the next requests to a path prefix fail with a status (429
with a ``Retry-After``, 500, ...). Cloud's Basic auth (email and API token) and Data
Center's Bearer personal access token are both accepted.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from tests.fakes.http_server import LocalHTTPServer

START = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


def code_macro(code: str, language: str = "bash") -> str:
    return (
        '<ac:structured-macro ac:name="code" ac:schema-version="1">'
        f'<ac:parameter ac:name="language">{language}</ac:parameter>'
        f"<ac:plain-text-body><![CDATA[{code}]]></ac:plain-text-body></ac:structured-macro>"
    )


def panel(kind: str, html: str, title: str = "") -> str:
    param = f'<ac:parameter ac:name="title">{title}</ac:parameter>' if title else ""
    return (
        f'<ac:structured-macro ac:name="{kind}">{param}'
        f"<ac:rich-text-body>{html}</ac:rich-text-body></ac:structured-macro>"
    )


@dataclass
class FakePage:
    id: str
    title: str
    space: str
    body: str
    parent: str | None = None
    labels: list[str] = field(default_factory=list)
    version: int = 1
    when: datetime = START
    status: str = "current"
    creator: str = "Grace Hopper"
    properties: dict[str, Any] = field(default_factory=dict)
    read_groups: list[str] = field(default_factory=list)
    read_users: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ConfluenceRequest:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    status: int


class FakeConfluence(LocalHTTPServer):
    """A threaded HTTP server that imitates the parts of Confluence a sync reads."""

    def __init__(
        self,
        token: str = "confluence-test-token",
        email: str | None = None,
        max_page_size: int = 25,
        retry_after: str = "0",
    ) -> None:
        super().__init__()
        self.token = token
        self.email = email
        self.max_page_size = max_page_size
        self.retry_after = retry_after
        self._lock = threading.RLock()
        self._requests: list[ConfluenceRequest] = []
        self._pages: dict[str, FakePage] = {}
        self._failures: dict[str, deque[int]] = defaultdict(deque)
        self._next_id = 100000
        self._clock = START

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # ------------------------------------------------------------------ recorded requests

    @property
    def requests(self) -> list[ConfluenceRequest]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, prefix: str) -> list[ConfluenceRequest]:
        return [r for r in self.requests if r.path.startswith(prefix)]

    def bodies_read(self) -> set[str]:
        """The ids of pages whose body was asked for."""
        return {
            r.path.rsplit("/", 1)[-1]
            for r in self.requests_to("/rest/api/content/")
            if "body.storage" in r.query.get("expand", "") and r.status == 200
        }

    def clear(self) -> None:
        with self._lock:
            self._requests.clear()

    def fail_next(self, prefix: str, status: int, times: int = 1) -> None:
        """The next ``times`` requests whose path starts with ``prefix`` get ``status``."""
        with self._lock:
            self._failures[prefix].extend([status] * times)

    # ------------------------------------------------------------------ content

    def _tick(self) -> datetime:
        self._clock += timedelta(days=1)
        return self._clock

    def add_page(
        self,
        title: str,
        body: str,
        *,
        space: str = "OPS",
        parent: str | None = None,
        labels: Sequence[str] = (),
        read_groups: Sequence[str] = (),
        read_users: Sequence[str] = (),
        properties: dict[str, Any] | None = None,
        creator: str = "Grace Hopper",
    ) -> str:
        with self._lock:
            self._next_id += 1
            page_id = str(self._next_id)
            self._pages[page_id] = FakePage(
                page_id,
                title,
                space,
                body,
                parent,
                list(labels),
                when=self._tick(),
                creator=creator,
                properties=dict(properties or {}),
                read_groups=list(read_groups),
                read_users=list(read_users),
            )
        return page_id

    def edit_page(self, page_id: str, body: str) -> None:
        with self._lock:
            page = self._pages[page_id]
            page.body = body
            page.version += 1
            page.when = self._tick()

    def restrict(self, page_id: str, groups: Sequence[str] = (), users: Sequence[str] = ()) -> None:
        """Set (or with nothing, remove) a page's view restriction; its version stays."""
        with self._lock:
            self._pages[page_id].read_groups = list(groups)
            self._pages[page_id].read_users = list(users)

    def set_labels(self, page_id: str, labels: Sequence[str]) -> None:
        with self._lock:
            self._pages[page_id].labels = list(labels)

    def move(self, page_id: str, parent: str | None, space: str | None = None) -> None:
        with self._lock:
            self._pages[page_id].parent = parent
            if space is not None:
                self._pages[page_id].space = space

    def archive(self, page_id: str) -> None:
        with self._lock:
            self._pages[page_id].status = "archived"

    def delete(self, page_id: str) -> None:
        with self._lock:
            self._pages.pop(page_id)

    # ------------------------------------------------------------------ serving

    def _ancestors(self, page: FakePage) -> list[FakePage]:
        chain: list[FakePage] = []
        parent = page.parent
        while parent is not None and parent in self._pages:
            chain.insert(0, self._pages[parent])
            parent = self._pages[parent].parent
        return chain

    def _content(self, page: FakePage, expand: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": page.id,
            "type": "page",
            "status": page.status,
            "title": page.title,
            "space": {"key": page.space},
            "version": {"number": page.version, "when": page.when.isoformat()},
            "ancestors": [
                {"id": a.id, "type": "page", "title": a.title} for a in self._ancestors(page)
            ],
            "history": {
                "createdBy": {"type": "known", "displayName": page.creator, "accountId": "c1"},
                "createdDate": START.isoformat(),
            },
            "metadata": {
                "labels": {
                    "results": [{"prefix": "global", "name": n} for n in page.labels],
                    "size": len(page.labels),
                }
            },
            "_links": {"webui": f"/spaces/{page.space}/pages/{page.id}"},
        }
        if "restrictions.read" in expand:
            users = [
                {"type": "known", "accountId": u, "username": u, "displayName": u}
                for u in page.read_users
            ]
            groups = [{"type": "group", "name": g} for g in page.read_groups]
            out["restrictions"] = {
                "read": {
                    "operation": "read",
                    "restrictions": {
                        "user": {"results": users, "size": len(users)},
                        "group": {"results": groups, "size": len(groups)},
                    },
                }
            }
        if "body.storage" in expand:
            out["body"] = {"storage": {"value": page.body, "representation": "storage"}}
        props = {
            key: {"key": key, "value": value}
            for key, value in page.properties.items()
            if f"metadata.properties.{key}" in expand
        }
        if props:
            out["metadata"]["properties"] = props
        return out

    def _matches(self, page: FakePage, cql: str) -> bool:
        if page.status != "current" or "type = page" not in cql:
            return False
        space = re.search(r'space = "([^"]+)"', cql)
        if space and page.space != space.group(1):
            return False
        label = re.search(r'label = "([^"]+)"', cql)
        if label and label.group(1) not in page.labels:
            return False
        tree = re.search(r"\(id = (\d+) OR ancestor = (\d+)\)", cql)
        if tree:
            root = tree.group(1)
            return page.id == root or root in {a.id for a in self._ancestors(page)}
        return True

    def _search(self, query: dict[str, str]) -> dict[str, Any]:
        cql = query.get("cql", "")
        expand = query.get("expand", "")
        inner = ",".join(e.removeprefix("content.") for e in expand.split(","))
        found = [p for p in self._pages.values() if self._matches(p, cql)]
        start = int(query.get("start") or 0)
        limit = min(int(query.get("limit") or 25), self.max_page_size)
        chunk = found[start : start + limit]
        out: dict[str, Any] = {
            "results": [
                {"content": self._content(p, inner), "title": p.title, "entityType": "content"}
                for p in chunk
            ],
            "start": start,
            "limit": limit,
            "size": len(chunk),
            "totalSize": len(found),
            "_links": {"base": self.base_url, "context": ""},
        }
        if start + limit < len(found):
            params = {**query, "start": str(start + limit), "limit": str(limit)}
            out["_links"]["next"] = "/rest/api/search?" + urlencode(params)
        return out

    def _authorized(self, auth: str) -> bool:
        if self.email is None:
            return auth == f"Bearer {self.token}"
        basic = base64.b64encode(f"{self.email}:{self.token}".encode()).decode()
        return auth == f"Basic {basic}"

    def answer(self, path: str, query: dict[str, str], auth: str) -> tuple[int, dict[str, Any]]:
        with self._lock:
            for prefix, queue in self._failures.items():
                if path.startswith(prefix) and queue:
                    status = queue.popleft()
                    return status, {"statusCode": status, "message": _MESSAGES.get(status, "")}
            if not self._authorized(auth):
                return 401, {"statusCode": 401, "message": "Unauthorized"}
            if path == "/rest/api/search":
                return 200, self._search(query)
            m = re.fullmatch(r"/rest/api/content/(\d+)", path)
            if m:
                page = self._pages.get(m.group(1))
                if page is None or page.status != "current":
                    return 404, {"statusCode": 404, "message": "No content found"}
                return 200, self._content(page, query.get("expand", ""))
            return 404, {"statusCode": 404, "message": f"no such resource {path}"}


_MESSAGES = {
    429: "Rate limit exceeded",
    500: "Internal server error",
    503: "Service unavailable",
}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeConfluence

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_GET(self) -> None:
        split = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        status, payload = self.fake.answer(
            split.path, query, self.headers.get("Authorization") or ""
        )
        with self.fake._lock:
            self.fake._requests.append(
                ConfluenceRequest("GET", split.path, query, dict(self.headers), status)
            )
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status == 429:
            self.send_header("Retry-After", self.fake.retry_after)
        self.end_headers()
        self.wfile.write(data)


FakeConfluence.handler_class = _Handler
