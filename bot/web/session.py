"""Who is looking at a page: the signed session cookie, and CSRF tokens for its forms.

The session is Starlette's :class:`~starlette.middleware.sessions.SessionMiddleware`: a
cookie signed with the server's secret (itsdangerous), ``HttpOnly``, ``SameSite=Lax``,
``Secure`` when the public address is https, and valid for ``session_max_age`` seconds
after sign-in. It holds the Slack user id, team and name, the id of the session kept on
the server (:mod:`state.web_sessions`: signing out ends it there, so a copy of the
cookie is worth nothing afterwards), the CSRF token, and while a sign-in is under way
its OAuth state and the page to return to. Nothing in it is secret; the signature makes
it impossible to change.

Every form carries the session's CSRF token (:func:`csrf_token`); a POST without the
right one is refused (:func:`csrf_ok`).
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass

from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request

from bot.web.config import WebConfig
from retrieval.permissions import Scope

SESSION_COOKIE = "runbook_session"
CSRF_FIELD = "csrf"
_CSRF_KEY = "csrf"
_USER_KEY = "uid"
_TEAM_KEY = "tid"
_NAME_KEY = "name"
_SESSION_ID_KEY = "sid"
_STATE_KEY = "oauth_state"
_NEXT_KEY = "next"


@dataclass(frozen=True)
class Viewer:
    """The person a page is for: a signed-in Slack user, or the local operator."""

    name: str
    user_id: str | None = None  # None: local mode
    team_id: str | None = None
    session_id: str | None = None  # the session kept on the server
    #: False: the server could not tell whether the session is still open (Redis down):
    #: only what needs no sign-in check is shown
    checked: bool = True
    signed_in_scope: str = ""  # the scope id of the groups read at sign-in ("": unknown)
    scope: Scope | None = None  # what this viewer may read, once resolved for a request

    @property
    def local(self) -> bool:
        return self.user_id is None


LOCAL_VIEWER = Viewer(name="local")


def session_middleware(config: WebConfig) -> Middleware:
    return Middleware(
        SessionMiddleware,
        secret_key=config.session_secret,
        session_cookie=SESSION_COOKIE,
        max_age=config.session_max_age,
        same_site="lax",
        https_only=config.secure_cookies,
    )


def signed_in(request: Request) -> Viewer | None:
    """The Slack user of this browser's session, None when nobody signed in."""
    session = request.session
    user_id = session.get(_USER_KEY)
    if not isinstance(user_id, str) or not user_id:
        return None
    team = session.get(_TEAM_KEY)
    name = session.get(_NAME_KEY)
    session_id = session.get(_SESSION_ID_KEY)
    return Viewer(
        name=name if isinstance(name, str) and name else user_id,
        user_id=user_id,
        team_id=team if isinstance(team, str) else None,
        session_id=session_id if isinstance(session_id, str) and session_id else None,
    )


def sign_in_session(
    request: Request, user_id: str, team_id: str, name: str, session_id: str
) -> None:
    """A fresh session for a person who just signed in (nothing of the old one is kept);
    ``session_id`` names the session kept on the server."""
    request.session.clear()
    request.session.update(
        {
            _USER_KEY: user_id,
            _TEAM_KEY: team_id,
            _NAME_KEY: name,
            _SESSION_ID_KEY: session_id,
            _CSRF_KEY: secrets.token_urlsafe(24),
        }
    )


def sign_out_session(request: Request) -> None:
    request.session.clear()


def csrf_token(request: Request) -> str:
    """The session's CSRF token (made on first use) for the forms of a page."""
    token = request.session.get(_CSRF_KEY)
    if not isinstance(token, str) or not token:
        token = secrets.token_urlsafe(24)
        request.session[_CSRF_KEY] = token
    return token


def csrf_ok(request: Request, submitted: str | None) -> bool:
    """Whether a form's token is this session's (constant time)."""
    expected = request.session.get(_CSRF_KEY)
    if not isinstance(expected, str) or not expected or not submitted:
        return False
    return hmac.compare_digest(expected.encode(), submitted.encode())


def begin_sign_in(request: Request, state: str, next_path: str) -> None:
    """Remember the OAuth state (ties the answer from Slack to this browser) and where to
    go afterwards."""
    request.session[_STATE_KEY] = state
    request.session[_NEXT_KEY] = next_path


def end_sign_in(request: Request, state: str | None) -> tuple[bool, str]:
    """``(state matches this browser's, page to return to)``; forgets both."""
    expected = request.session.pop(_STATE_KEY, None)
    next_path = request.session.pop(_NEXT_KEY, None)
    matches = (
        isinstance(expected, str)
        and bool(state)
        and hmac.compare_digest(expected.encode(), (state or "").encode())
    )
    return matches, local_path(next_path if isinstance(next_path, str) else None)


def local_path(candidate: str | None, default: str = "/") -> str:
    """``candidate`` when it is a path on this site (``/ask?q=...``), else ``default``:
    never an address elsewhere (``//evil.example``, ``https://...``, ``/\\evil``)."""
    if not candidate or not candidate.startswith("/") or len(candidate) > 4000:
        return default
    if candidate.startswith(("//", "/\\")) or any(c in candidate for c in "\r\n\t\\"):
        return default
    return candidate
