"""A fake PagerDuty REST API v2 on 127.0.0.1 for tests: records every request.

    with FakePagerDuty(tls, token="pd-test-token") as fake:
        fake.add_service("PCHK001", policy="PEP0001")
        fake.put_on_call("PEP0001", "Ada Lovelace", email="ada@example.com")
        client = pagerduty_client("pd-test-token", base_url=fake.base_url, ...)

Served: ``GET /services/<id>`` (its escalation policy), ``GET /oncalls`` (filtered by
``escalation_policy_ids[]``, users included), ``POST /incidents`` (needs a ``From``
header, as PagerDuty does for API tokens). It speaks HTTPS only, as the client library
insists: ``tls`` is a self-signed certificate for 127.0.0.1 (:func:`self_signed`) that the
client trusts through ``RUNBOOK_PAGERDUTY_CA_FILE``. A request without ``Authorization: Token
token=<token>`` gets 401; ``fail_next`` makes the next requests fail with a status.
"""

from __future__ import annotations

import json
import ssl
import subprocess
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.fakes.http_server import LocalHTTPServer


@dataclass(frozen=True)
class Certificate:
    cert: Path
    key: Path


def self_signed(folder: Path) -> Certificate:
    """A certificate and key for 127.0.0.1, valid for a day (openssl)."""
    cert, key = folder / "pd-cert.pem", folder / "pd-key.pem"
    command = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    command += ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"]
    command += ["-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run(
        command,
        check=True,
        capture_output=True,
    )
    return Certificate(cert, key)


@dataclass(frozen=True)
class PagerDutyRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


class FakePagerDuty(LocalHTTPServer):
    def __init__(self, tls: Certificate, token: str = "pd-test-token") -> None:
        super().__init__()
        self.tls = tls
        self.token = token
        self._lock = threading.Lock()
        self._requests: list[PagerDutyRequest] = []
        self.services: dict[str, str] = {}  # service id -> escalation policy id
        self.on_call: dict[str, list[dict[str, Any]]] = {}  # policy -> oncall entries
        self.incidents: list[dict[str, Any]] = []
        self._failures: list[tuple[str, int]] = []

    handler_class: type[BaseHTTPRequestHandler]

    @property
    def base_url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def _configure(self, server: ThreadingHTTPServer) -> None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.tls.cert, self.tls.key)
        server.socket = context.wrap_socket(server.socket, server_side=True)

    @property
    def requests(self) -> list[PagerDutyRequest]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, prefix: str, method: str | None = None) -> list[PagerDutyRequest]:
        return [
            r
            for r in self.requests
            if r.path.startswith(prefix) and (method is None or r.method == method)
        ]

    def fail_next(self, prefix: str, status: int, times: int = 1) -> None:
        with self._lock:
            self._failures.extend([(prefix, status)] * times)

    def add_service(self, service_id: str, policy: str) -> None:
        self.services[service_id] = policy

    def put_on_call(
        self, policy: str, name: str, *, email: str | None = None, level: int = 1
    ) -> None:
        user_id = "PU" + "".join(ch for ch in name.upper() if ch.isalpha())[:6]
        user = {
            "id": user_id,
            "type": "user",
            "name": name,
            "summary": name,
            "email": email or f"{user_id.lower()}@example.com",
            "html_url": f"https://acme.pagerduty.com/users/{user_id}",
        }
        self.on_call.setdefault(policy, []).append(
            {
                "escalation_policy": {"id": policy, "type": "escalation_policy_reference"},
                "escalation_level": level,
                "user": user,
            }
        )

    # -- serving ----------------------------------------------------------------------

    def _record(self, request: PagerDutyRequest) -> int | None:
        with self._lock:
            self._requests.append(request)
            for i, (prefix, status) in enumerate(self._failures):
                if request.path.startswith(prefix):
                    del self._failures[i]
                    return status
        return None

    def answer(self, request: PagerDutyRequest) -> tuple[int, Any]:
        failure = self._record(request)
        if failure is not None:
            return failure, {"error": {"message": "failure", "code": failure}}
        if request.headers.get("authorization") != f"Token token={self.token}":
            return 401, {"error": {"message": "Unauthorized", "code": 2006}}
        path = request.path.rstrip("/")
        if request.method == "GET" and path.startswith("/services/"):
            service_id = path.rsplit("/", 1)[-1]
            policy = self.services.get(service_id)
            if policy is None:
                return 404, {"error": {"message": "Not Found", "code": 2100}}
            return 200, {
                "service": {
                    "id": service_id,
                    "type": "service",
                    "escalation_policy": {"id": policy, "type": "escalation_policy_reference"},
                }
            }
        if request.method == "GET" and path == "/oncalls":
            policies = request.query.get("escalation_policy_ids[]", [])
            entries = [e for p in policies for e in self.on_call.get(p, [])]
            return 200, {
                "oncalls": entries,
                "limit": 25,
                "offset": 0,
                "more": False,
                "total": None,
            }
        if request.method == "POST" and path == "/incidents":
            if not request.headers.get("from"):
                return 400, {"error": {"message": "Requester User Not Found", "code": 2001}}
            incident = (request.body or {}).get("incident") or {}
            number = len(self.incidents) + 1
            created = {
                **incident,
                "id": f"PINC{number:04d}",
                "incident_number": number,
                "status": "triggered",
                "html_url": f"https://acme.pagerduty.com/incidents/PINC{number:04d}",
            }
            self.incidents.append(created)
            return 201, {"incident": created}
        return 404, {"error": {"message": "Not Found", "code": 2100}}


class _Handler(BaseHTTPRequestHandler):
    fake: FakePagerDuty

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def _serve(self, method: str) -> None:
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        request = PagerDutyRequest(
            method=method,
            path=url.path,
            query=parse_qs(url.query),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
        )
        status, payload = self.fake.answer(request)
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")


FakePagerDuty.handler_class = _Handler
