"""A fake Qdrant server's REST API: records every request, answers what creating and
checking a collection needs (``qdrant-client`` pointed at it by URL).

It keeps which collections exist and the points upserted into them, so the client
sees a consistent server, and answers any other request with an empty result. It is
the network edge, not a vector store: searches return nothing.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.http_server import LocalHTTPServer

VERSION = "1.20.0"  # the installed client's: it warns about a server older than one minor


@dataclass(frozen=True)
class QdrantRequest:
    method: str
    path: str  # without the query string
    query: str
    body: Any


class FakeQdrant(LocalHTTPServer):
    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._requests: list[QdrantRequest] = []
        self._points: dict[str, dict[Any, dict[str, Any]]] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[QdrantRequest]:
        with self._lock:
            return list(self._requests)

    def to(self, method: str, pattern: str) -> list[QdrantRequest]:
        """Recorded requests of ``method`` whose path matches ``pattern`` entirely."""
        return [r for r in self.requests if r.method == method and re.fullmatch(pattern, r.path)]

    def _handle(self, method: str, target: str, body: Any) -> Any:
        path, _, query = target.partition("?")
        with self._lock:
            self._requests.append(QdrantRequest(method, path, query, body))
            parts = [p for p in path.split("/") if p]
            if not parts:
                return {"title": "qdrant - vector search engine", "version": VERSION}
            if parts[0] != "collections":
                return True
            if len(parts) == 1:
                names = [{"name": n} for n in self._points]
                return {"collections": names}
            name = parts[1]
            rest = parts[2:]
            if rest == ["exists"]:
                return {"exists": name in self._points}
            if not rest and method == "PUT":
                self._points.setdefault(name, {})
                return True
            if not rest and method == "DELETE":
                return self._points.pop(name, None) is not None
            if rest == ["points"] and method == "PUT":
                for p in body.get("points", []):
                    self._points.setdefault(name, {})[p["id"]] = p
                return {"operation_id": len(self._requests), "status": "completed"}
            if rest == ["points"] and method == "POST":  # retrieve by ids
                held = self._points.get(name, {})
                return [
                    {"id": i, "payload": held[i].get("payload"), "vector": None}
                    for i in body.get("ids", [])
                    if i in held
                ]
            if rest == ["points", "scroll"]:
                return {"points": self._by_chunk_id(name, body), "next_page_offset": None}
            if rest == ["points", "count"]:
                return {"count": 0}
            if rest == ["points", "query"]:
                return {"points": []}
            return {"operation_id": len(self._requests), "status": "completed"}

    def _by_chunk_id(self, name: str, body: Any) -> list[dict[str, Any]]:
        """A scroll for named chunks (``chunk.chunk_id`` matching any of a list): the
        points upserted with those ids, vectors with them when asked. Any other scroll
        finds nothing: the fake does not evaluate filters."""
        wanted: set[str] = set()
        for cond in _conditions((body or {}).get("filter") or {}):
            if cond.get("key") == "chunk.chunk_id":
                wanted.update((cond.get("match") or {}).get("any") or ())
        if not wanted:
            return []
        vectors = bool((body or {}).get("with_vector"))
        return [
            {
                "id": pid,
                "payload": p.get("payload"),
                "vector": p.get("vector") if vectors else None,
            }
            for pid, p in self._points.get(name, {}).items()
            if ((p.get("payload") or {}).get("chunk") or {}).get("chunk_id") in wanted
        ]


def _conditions(flt: dict[str, Any]) -> list[dict[str, Any]]:
    """Every condition of a filter, nested filters opened."""
    out: list[dict[str, Any]] = []
    for clause in ("must", "should", "must_not"):
        for cond in flt.get(clause) or ():
            out.extend(_conditions(cond) if any(k in cond for k in ("must", "should")) else [cond])
    return out


class _Handler(BaseHTTPRequestHandler):
    fake: FakeQdrant
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        result = self.fake._handle(self.command, self.path, body)
        data = json.dumps({"result": result, "status": "ok", "time": 0.0001}).encode()
        if not [p for p in self.path.split("?")[0].split("/") if p]:
            data = json.dumps(result).encode()  # the root answers its info unwrapped
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_PUT = do_POST = do_DELETE = do_PATCH = _answer


FakeQdrant.handler_class = _Handler
