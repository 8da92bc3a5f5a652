"""Sign in with Slack (OpenID Connect) through slack_sdk's helpers.

::

    sign_in = SlackSignIn(config, state_store, bot_client)
    state, url = sign_in.start()            # send the browser to url, remember state
    identity = sign_in.finish(code, state)  # on the way back: who signed in

:meth:`start` issues a one-time ``state`` (:class:`~state.sign_in_states.RedisOAuthStateStore`)
and builds the authorize URL with
:class:`~slack_sdk.oauth.OpenIDConnectAuthorizeUrlGenerator`. :meth:`finish` consumes the
state, exchanges the code with ``openid.connect.token`` (client id and secret), and asks
``openid.connect.userInfo`` with the token it got who signed in. Only people of the
workspace the bot is installed in (its ``auth.test`` team) are let in: their Slack user
id then decides, through the access map, what they may read, exactly as in Slack.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.oauth import OpenIDConnectAuthorizeUrlGenerator
from slack_sdk.oauth.state_store import OAuthStateStore

from bot.slack.client import web_client
from bot.web.config import SignInConfig
from bot.web.errors import SignInError

log = logging.getLogger("runbook_bot.web.signin")

#: ``openid`` for the user id, ``profile`` for the name shown in the page header.
SCOPES = ("openid", "profile")
USER_ID_CLAIM = "https://slack.com/user_id"
TEAM_ID_CLAIM = "https://slack.com/team_id"
_TIMEOUT_SECONDS = 10


@dataclass(frozen=True)
class SlackIdentity:
    user_id: str
    team_id: str
    name: str


class SlackSignIn:
    def __init__(
        self, config: SignInConfig, states: OAuthStateStore, bot_client: WebClient
    ) -> None:
        self._config = config
        self._states = states
        self._bot = bot_client
        self._urls = OpenIDConnectAuthorizeUrlGenerator(
            client_id=config.client_id,
            redirect_uri=config.redirect_uri,
            scopes=list(SCOPES),
            authorization_url=config.authorize_url,
        )
        self._team: str | None = config.team_id or None
        self._lock = threading.Lock()

    def _client(self, token: str | None = None) -> WebClient:
        return web_client(token, self._config.api_url, timeout=_TIMEOUT_SECONDS)

    def start(self) -> tuple[str, str]:
        """``(state, authorize URL)``: keep the state in the browser's session."""
        state = self._states.issue()
        return state, self._urls.generate(state, team=self._team)

    def workspace(self) -> str:
        """The bot's workspace (team id), asked once from ``auth.test``."""
        if self._config.team_id:  # configured: no bot token needed
            return self._config.team_id
        with self._lock:
            if self._team is not None:
                return self._team
        try:
            team = str(self._bot.auth_test().get("team_id") or "")
        except (SlackApiError, SlackRequestError, OSError) as exc:
            log.warning("auth.test failed, cannot check the workspace of a sign-in: %s", exc)
            raise SignInError("Slack could not be reached to check your workspace.") from exc
        if not team:
            raise SignInError("Slack did not say which workspace the bot is installed in.")
        with self._lock:
            self._team = team
        return team

    def finish(self, code: str, state: str) -> SlackIdentity:
        """Who signed in; raises :class:`SignInError` for anything but a good sign-in."""
        if not state or not self._states.consume(state):
            raise SignInError("This sign-in link has expired or was already used.")
        if not code:
            raise SignInError("Slack did not send a sign-in code.")
        cfg = self._config
        try:
            token = self._client().openid_connect_token(
                client_id=cfg.client_id,
                client_secret=cfg.client_secret,
                code=code,
                redirect_uri=cfg.redirect_uri,
            )
            access_token = str(token.get("access_token") or "")
            if not access_token:
                raise SignInError("Slack did not return an access token.")
            info = self._client(access_token).openid_connect_userInfo()
        except SlackApiError as exc:
            error = exc.response.get("error", "error") if exc.response is not None else "error"
            log.warning("Sign in with Slack failed: %s", error)
            raise SignInError(f"Slack refused the sign-in ({error}).") from exc
        except (SlackRequestError, OSError) as exc:
            log.warning("Sign in with Slack failed: %s", exc)
            raise SignInError("Slack could not be reached to finish the sign-in.") from exc
        user_id = str(info.get(USER_ID_CLAIM) or info.get("sub") or "")
        team_id = str(info.get(TEAM_ID_CLAIM) or "")
        if not user_id or not team_id:
            raise SignInError("Slack did not say who signed in.")
        if team_id != self.workspace():
            log.warning("refused a sign-in from another workspace (%s)", team_id)
            raise SignInError("You signed in to a different Slack workspace than this bot's.")
        name = str(info.get("name") or info.get("given_name") or user_id)
        return SlackIdentity(user_id=user_id, team_id=team_id, name=name[:80])
