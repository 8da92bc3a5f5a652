"""A fake Notion API on 127.0.0.1 for tests: records every request, answers like Notion.

    with FakeNotion(token="secret_test") as fake:
        db = fake.add_database()
        page = fake.add_page("Checkout DB failover", [heading(2, "Steps"), numbered("Fail over")],
                             database=db)
        client = notion_client.Client(auth="secret_test", base_url=fake.base_url)

Served (API version 2025-09-03): ``GET /v1/databases/<id>`` (with its data source),
``POST /v1/data_sources/<id>/query``, ``GET /v1/pages/<id>`` and
``GET /v1/blocks/<id>/children``, paginated with ``start_cursor``/``next_cursor`` and
at most ``max_page_size`` results per response. A request without the token gets 401;
``fail_next`` makes the next requests to a path prefix fail with a status (429 with
``Retry-After: 0``, 500, ...). ``unshare_database`` makes a database answer 404, as
Notion does once it is no longer shared with the integration. Pages are edited with
``edit_page`` (which moves ``last_edited_time`` on), moved to the trash with
``trash_page``, or deleted outright with ``delete_page`` (then 404).
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.fakes.http_server import LocalHTTPServer

Block = dict[str, Any]
START = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


def rich(text: str, **annotations: Any) -> dict[str, Any]:
    """One rich text item; ``href=`` makes it a link, other keywords are annotations."""
    href = annotations.pop("href", None)
    notes = {
        "bold": False,
        "italic": False,
        "strikethrough": False,
        "underline": False,
        "code": False,
        "color": "default",
        **annotations,
    }
    return {
        "type": "text",
        "text": {"content": text, "link": {"url": href} if href else None},
        "annotations": notes,
        "plain_text": text,
        "href": href,
    }


def _texts(text: str | Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [rich(text)] if isinstance(text, str) else list(text)


def block(kind: str, body: dict[str, Any], children: Sequence[Block] = ()) -> Block:
    return {"object": "block", "type": kind, kind: body, "children": list(children)}


def paragraph(text: str | Sequence[dict[str, Any]]) -> Block:
    return block("paragraph", {"rich_text": _texts(text)})


def heading(level: int, text: str, children: Sequence[Block] = ()) -> Block:
    return block(
        f"heading_{level}", {"rich_text": _texts(text), "is_toggleable": bool(children)}, children
    )


def bulleted(text: str | Sequence[dict[str, Any]], children: Sequence[Block] = ()) -> Block:
    return block("bulleted_list_item", {"rich_text": _texts(text)}, children)


def numbered(text: str | Sequence[dict[str, Any]], children: Sequence[Block] = ()) -> Block:
    return block("numbered_list_item", {"rich_text": _texts(text)}, children)


def todo(text: str, checked: bool = False) -> Block:
    return block("to_do", {"rich_text": _texts(text), "checked": checked})


def code(text: str, language: str = "shell") -> Block:
    return block("code", {"rich_text": [rich(text)], "language": language})


def callout(text: str, emoji: str = "⚠️") -> Block:
    return block("callout", {"rich_text": _texts(text), "icon": {"type": "emoji", "emoji": emoji}})


def quote(text: str) -> Block:
    return block("quote", {"rich_text": _texts(text)})


def table(rows: Sequence[Sequence[str]]) -> Block:
    cells = [block("table_row", {"cells": [[rich(c)] for c in row]}) for row in rows]
    width = len(rows[0]) if rows else 0
    return block(
        "table", {"table_width": width, "has_column_header": True, "has_row_header": False}, cells
    )


def child_page(title: str) -> Block:
    return block("child_page", {"title": title})


@dataclass(frozen=True)
class NotionRequest:
    """One HTTP request the fake received."""

    method: str
    path: str  # without /v1
    query: dict[str, str]
    body: dict[str, Any]
    headers: dict[str, str]
    status: int


class FakeNotion(LocalHTTPServer):
    """A threaded HTTP server that imitates the parts of the Notion API a sync reads."""

    def __init__(self, token: str = "secret_test-notion-token", max_page_size: int = 100) -> None:
        super().__init__()
        self.token = token
        self.max_page_size = max_page_size
        self._lock = threading.RLock()
        self._requests: list[NotionRequest] = []
        self._databases: dict[str, list[str]] = {}  # database id -> page ids
        self._unshared: dict[str, list[str]] = {}  # databases no longer shared with us
        self._pages: dict[str, dict[str, Any]] = {}
        self._children: dict[str, list[Block]] = {}
        self._failures: dict[str, deque[int]] = defaultdict(deque)
        self._clock = START

    @property
    def base_url(self) -> str:
        """For ``notion_client.Client(base_url=...)`` (the SDK appends ``/v1/``)."""
        return f"http://127.0.0.1:{self.port}"

    # ------------------------------------------------------------------ recorded requests

    @property
    def requests(self) -> list[NotionRequest]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, prefix: str, method: str | None = None) -> list[NotionRequest]:
        return [
            r
            for r in self.requests
            if r.path.startswith(prefix) and (method is None or r.method == method)
        ]

    def clear(self) -> None:
        with self._lock:
            self._requests.clear()

    def fail_next(self, prefix: str, status: int, times: int = 1) -> None:
        """The next ``times`` requests whose path starts with ``prefix`` get ``status``."""
        with self._lock:
            self._failures[prefix].extend([status] * times)

    # ------------------------------------------------------------------ content

    def _tick(self) -> str:
        self._clock += timedelta(minutes=7)
        return self._clock.isoformat().replace("+00:00", ".000Z")

    def add_database(self) -> str:
        db = str(uuid.uuid4())
        with self._lock:
            self._databases[db] = []
        return db

    def _store_blocks(self, parent: str, blocks: Sequence[Block]) -> None:
        stored = []
        for b in blocks:
            b = dict(b)
            kids = b.pop("children", [])
            b["id"] = str(uuid.uuid4())
            b["has_children"] = bool(kids)
            if kids:
                self._store_blocks(b["id"], kids)
            stored.append(b)
        self._children[parent] = stored

    def add_page(
        self,
        title: str,
        blocks: Sequence[Block],
        *,
        database: str | None = None,
        properties: Mapping[str, Any] | None = None,
    ) -> str:
        page_id = str(uuid.uuid4())
        props: dict[str, Any] = {
            "Name": {"id": "title", "type": "title", "title": [rich(title)]},
            **dict(properties or {}),
        }
        with self._lock:
            slug = "-".join(title.split())
            self._pages[page_id] = {
                "object": "page",
                "id": page_id,
                "created_time": START.isoformat().replace("+00:00", ".000Z"),
                "last_edited_time": self._tick(),
                "archived": False,
                "in_trash": False,
                "parent": {"type": "database_id", "database_id": database}
                if database
                else {"type": "workspace", "workspace": True},
                "properties": props,
                "url": f"https://www.notion.so/{slug}-{page_id.replace('-', '')}",
            }
            self._store_blocks(page_id, blocks)
            if database is not None:
                self._databases[database].append(page_id)
        return page_id

    def edit_page(
        self,
        page_id: str,
        blocks: Sequence[Block] | None = None,
        properties: Mapping[str, Any] | None = None,
    ) -> None:
        with self._lock:
            page = self._pages[page_id]
            page["last_edited_time"] = self._tick()
            if properties:
                page["properties"] = {**page["properties"], **properties}
            if blocks is not None:
                self._store_blocks(page_id, blocks)

    def trash_page(self, page_id: str) -> None:
        with self._lock:
            self._pages[page_id]["in_trash"] = True
            self._pages[page_id]["archived"] = True
            self._pages[page_id]["last_edited_time"] = self._tick()

    def unshare_database(self, database: str) -> None:
        """The database is no longer shared with the integration: 404 from now on."""
        with self._lock:
            self._unshared[database] = self._databases.pop(database)

    def share_database(self, database: str) -> None:
        with self._lock:
            self._databases[database] = self._unshared.pop(database)

    def delete_page(self, page_id: str) -> None:
        with self._lock:
            self._pages.pop(page_id)
            for pages in self._databases.values():
                if page_id in pages:
                    pages.remove(page_id)

    # ------------------------------------------------------------------ serving

    def _paginated(self, items: list[Any], size: Any, cursor: Any) -> dict[str, Any]:
        size = min(int(size or 100), self.max_page_size)
        start = int(cursor or 0)
        chunk = items[start : start + size]
        more = start + size < len(items)
        return {
            "object": "list",
            "results": chunk,
            "has_more": more,
            "next_cursor": str(start + size) if more else None,
        }

    def answer(
        self, method: str, path: str, query: dict[str, str], body: dict[str, Any], auth: str
    ) -> tuple[int, dict[str, Any]]:
        with self._lock:
            for prefix, queue in self._failures.items():
                if path.startswith(prefix) and queue:
                    status = queue.popleft()
                    return status, _error(status)
            if auth != f"Bearer {self.token}":
                return 401, _error(401)
            parts = path.strip("/").split("/")
            if parts[0] == "databases" and method == "GET" and len(parts) == 2:
                if parts[1] not in self._databases:
                    return 404, _error(404)
                return 200, {
                    "object": "database",
                    "id": parts[1],
                    "data_sources": [{"id": f"ds-{parts[1]}", "name": "Runbooks"}],
                }
            if parts[0] == "data_sources" and parts[-1] == "query" and method == "POST":
                db = parts[1].removeprefix("ds-")
                if db not in self._databases:
                    return 404, _error(404)
                pages = [
                    self._pages[p] for p in self._databases[db] if not self._pages[p]["in_trash"]
                ]
                return 200, self._paginated(pages, body.get("page_size"), body.get("start_cursor"))
            if parts[0] == "pages" and method == "GET" and len(parts) == 2:
                page = self._pages.get(parts[1])
                return (200, page) if page is not None else (404, _error(404))
            if parts[0] == "blocks" and parts[-1] == "children" and method == "GET":
                if parts[1] not in self._children:
                    return 404, _error(404)
                return 200, self._paginated(
                    self._children[parts[1]], query.get("page_size"), query.get("start_cursor")
                )
            return 400, _error(400)


_ERRORS = {
    400: ("invalid_request_url", "Invalid request URL."),
    401: ("unauthorized", "API token is invalid."),
    404: ("object_not_found", "Could not find the object."),
    429: ("rate_limited", "You have been rate limited."),
    500: ("internal_server_error", "Something went wrong."),
    503: ("service_unavailable", "Notion is unavailable."),
}


def _error(status: int) -> dict[str, Any]:
    code, message = _ERRORS.get(status, ("internal_server_error", "Error."))
    return {"object": "error", "status": status, "code": code, "message": message}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeNotion

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def _serve(self) -> None:
        split = urlsplit(self.path)
        path = split.path.removeprefix("/v1")
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else {}
        status, payload = self.fake.answer(
            self.command, path, query, body, self.headers.get("Authorization") or ""
        )
        with self.fake._lock:
            self.fake._requests.append(
                NotionRequest(self.command, path, query, body, dict(self.headers), status)
            )
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status == 429:
            self.send_header("Retry-After", "0")
        self.end_headers()
        self.wfile.write(data)

    do_GET = _serve
    do_POST = _serve
    do_PATCH = _serve


FakeNotion.handler_class = _Handler
