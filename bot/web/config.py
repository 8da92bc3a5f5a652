"""How the web pages run, decided once from the settings and the address ``serve`` binds.

Three modes:

* ``slack``: Sign in with Slack (OpenID Connect); needs the app's client id and secret and
  an address Slack can send the browser back to (``RUNBOOK_PUBLIC_URL``).
* ``local``: no sign-in, for one person on their own machine: only with
  ``RUNBOOK_WEB_LOCAL_MODE=true`` *and* a loopback bind address (127.0.0.1, ::1); the
  pages then answer only requests that name a loopback host (:mod:`bot.web.hosts`).
* ``off``: neither is configured; the pages say what to set and show no runbook.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, replace
from typing import Literal

from bot.settings import Settings
from bot.web.errors import WebConfigError

WebMode = Literal["slack", "local", "off"]
LOCAL_NAMES = frozenset({"localhost"})


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a bind address) is reachable from this machine only."""
    host = host.strip().strip("[]").lower()
    if host in LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class SignInConfig:
    """Sign in with Slack: the app's OpenID Connect client."""

    client_id: str
    client_secret: str
    redirect_uri: str
    authorize_url: str
    api_url: str | None  # the Slack Web API base URL; None: Slack's own
    team_id: str | None = None  # the workspace people sign in from; None: the bot token's


@dataclass(frozen=True)
class WebConfig:
    mode: WebMode
    session_secret: str
    session_max_age: int
    secure_cookies: bool  # the public address is https: cookies only travel over TLS
    public_url: str | None = None
    sign_in: SignInConfig | None = None
    local_groups: tuple[str, ...] = ()
    report_groups: tuple[str, ...] = ()
    stale_after_days: int = 180


def web_config(settings: Settings, session_secret: str, host: str) -> WebConfig:
    """The web pages' configuration for a server bound to ``host``.

    Raises :class:`WebConfigError` when local mode is asked for on an address other
    machines can reach, or when sign-in has no address to come back to.
    """
    s = settings
    off = WebConfig(
        mode="off",
        session_secret=session_secret,
        session_max_age=s.web_session_max_age_seconds,
        secure_cookies=bool(s.public_url and s.public_url.startswith("https://")),
        public_url=s.public_url,
        report_groups=tuple(g.strip() for g in s.web_report_groups if g.strip()),
        stale_after_days=s.stale_after_days,
    )
    if s.web_local_mode:
        if not is_loopback(host):
            raise WebConfigError(
                "RUNBOOK_WEB_LOCAL_MODE=true serves the web pages without sign-in, so serve "
                f"must listen on 127.0.0.1 only (--host 127.0.0.1), not on {host}"
            )
        groups = tuple(g.strip() for g in s.web_local_groups if g.strip())
        return replace(off, mode="local", local_groups=groups)
    if s.web_sign_in:
        redirect = s.web_redirect
        if redirect is None:
            raise WebConfigError(
                "Sign in with Slack needs the address people reach the server at: "
                "set RUNBOOK_PUBLIC_URL (or RUNBOOK_WEB_REDIRECT_URI)"
            )
        assert s.slack_client_id is not None and s.slack_client_secret is not None
        team = (s.slack_team_id or "").strip() or None
        sign_in = SignInConfig(
            client_id=s.slack_client_id,
            client_secret=s.slack_client_secret.get_secret_value(),
            redirect_uri=redirect,
            authorize_url=s.slack_authorize_url,
            api_url=s.slack_api_url,
            team_id=team,
        )
        return replace(off, mode="slack", sign_in=sign_in)
    return off
