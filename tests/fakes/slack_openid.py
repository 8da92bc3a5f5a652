"""The fake Slack Web API plus Sign in with Slack (OpenID Connect), for browser tests.

    with FakeSlackOpenID(client_id="cid", client_secret="secret") as fake:
        fake.sign_in_as("U0ALICE01", "Alice")
        # RUNBOOK: SLACK_AUTHORIZE_URL=fake.authorize_url, SLACK_API_URL=fake.base_url
        # the browser opens the authorize page, clicks "Allow" and is sent back to the
        # redirect_uri with a code; openid.connect.token and .userInfo answer for Alice

``/openid/connect/authorize`` (GET) shows a consent page for the person set with
:meth:`sign_in_as`, recorded as the pseudo-method ``"openid.connect.authorize"``; its
"Allow" link carries a one-time code and the state back to ``redirect_uri``, "Cancel"
carries ``error=access_denied``. ``openid.connect.token`` checks the client id and secret
(HTTP Basic, as slack_sdk sends them), the code (once) and the redirect URI, as Slack
does; ``openid.connect.userInfo`` answers with the claims of the token's person.
"""

from __future__ import annotations

import base64
import html
import itertools
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from tests.fakes.slack_api import FakeSlackAPI, RecordedCall, _Handler, _Reply

AUTHORIZE_PATH = "/openid/connect/authorize"
AUTHORIZE_METHOD = "openid.connect.authorize"


@dataclass(frozen=True)
class Identity:
    user_id: str
    name: str
    team_id: str


@dataclass(frozen=True)
class _Grant:
    identity: Identity
    redirect_uri: str


class FakeSlackOpenID(FakeSlackAPI):
    def __init__(self, *, client_id: str = "cid.1", client_secret: str = "client-secret") -> None:
        super().__init__()
        self.client_id = client_id
        self.client_secret = client_secret
        self._identity: Identity | None = None
        self._codes: dict[str, _Grant] = {}
        self._tokens: dict[str, Identity] = {}
        self._serial = itertools.count(1)
        self._oidc_lock = threading.Lock()

    @property
    def authorize_url(self) -> str:
        return f"{self.root_url}{AUTHORIZE_PATH}"

    def sign_in_as(self, user_id: str, name: str, team_id: str | None = None) -> None:
        """Who approves the next sign-ins on the authorize page."""
        with self._oidc_lock:
            self._identity = Identity(user_id, name, team_id or self.team_id)

    # ------------------------------------------------------------------ the authorize page

    def authorize_page(self, query: str) -> tuple[int, str]:
        params = {k: v[0] for k, v in parse_qs(query, keep_blank_values=True).items()}
        self._record(
            RecordedCall(
                method=AUTHORIZE_METHOD, params=params, headers={}, http_method="GET", path=query
            )
        )
        problems = []
        if params.get("response_type") != "code":
            problems.append("response_type must be code")
        if params.get("client_id") != self.client_id:
            problems.append("unknown client_id")
        if "openid" not in params.get("scope", "").replace(",", " ").split():
            problems.append("scope must include openid")
        redirect = params.get("redirect_uri", "")
        if not redirect.startswith(("http://", "https://")):
            problems.append("redirect_uri missing")
        with self._oidc_lock:
            identity = self._identity
        if identity is None:
            problems.append("nobody is set to sign in")
        if problems:
            return 400, f"<h1>Bad sign-in request</h1><p>{html.escape('; '.join(problems))}</p>"
        assert identity is not None
        code = f"code-{next(self._serial)}"
        with self._oidc_lock:
            self._codes[code] = _Grant(identity, redirect)
        state = params.get("state", "")
        allow = f"{redirect}?{urlencode({'code': code, 'state': state})}"
        cancel = f"{redirect}?{urlencode({'error': 'access_denied', 'state': state})}"
        page = (
            "<!doctype html><html><head><title>Sign in to Fake Slack</title></head><body>"
            f"<h1>Sign in to Fake Slack as {html.escape(identity.name)}</h1>"
            f'<a id="allow" href="{html.escape(allow)}">Allow</a> '
            f'<a id="cancel" href="{html.escape(cancel)}">Cancel</a>'
            "</body></html>"
        )
        return 200, page

    # ------------------------------------------------------------------ Web API methods

    def handle(self, call: RecordedCall) -> _Reply:
        if call.method == "openid.connect.token":
            return _Reply(200, self._token(call))
        if call.method == "openid.connect.userInfo":
            return _Reply(200, self._user_info(call))
        return super().handle(call)

    def _client_ok(self, call: RecordedCall) -> bool:
        auth = call.header("Authorization") or ""
        if auth.startswith("Basic "):
            decoded = base64.b64decode(auth.removeprefix("Basic ")).decode("utf-8")
            client_id, _, secret = decoded.partition(":")
        else:
            client_id = str(call.params.get("client_id", ""))
            secret = str(call.params.get("client_secret", ""))
        return client_id == self.client_id and secret == self.client_secret

    def _token(self, call: RecordedCall) -> dict[str, Any]:
        if not self._client_ok(call):
            return {"ok": False, "error": "invalid_client"}
        code = str(call.params.get("code", ""))
        with self._oidc_lock:
            grant = self._codes.pop(code, None)
        if grant is None:
            return {"ok": False, "error": "invalid_code"}
        if call.params.get("redirect_uri") != grant.redirect_uri:
            return {"ok": False, "error": "bad_redirect_uri"}
        token = f"xoxp-fake-{next(self._serial)}"
        with self._oidc_lock:
            self._tokens[token] = grant.identity
        return {
            "ok": True,
            "access_token": token,
            "token_type": "Bearer",
            "id_token": "fake.id.token",
        }

    def _user_info(self, call: RecordedCall) -> dict[str, Any]:
        with self._oidc_lock:
            identity = self._tokens.get(call.token or "")
        if identity is None:
            return {"ok": False, "error": "invalid_auth"}
        return {
            "ok": True,
            "sub": identity.user_id,
            "https://slack.com/user_id": identity.user_id,
            "https://slack.com/team_id": identity.team_id,
            "name": identity.name,
            "given_name": identity.name.split()[0],
        }


class _OpenIDHandler(_Handler):
    fake: FakeSlackOpenID

    def do_GET(self) -> None:
        split = urlsplit(self.path)
        if split.path != AUTHORIZE_PATH:
            super().do_GET()
            return
        status, page = self.fake.authorize_page(split.query)
        data = page.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


FakeSlackOpenID.handler_class = _OpenIDHandler
