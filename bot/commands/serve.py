"""``runbook-bot serve``: run the Slack bot.

HTTP mode (the default) serves Slack at ``/slack/events`` plus ``/healthz`` on one port
(uvicorn, see ``bot.server``). With ``SLACK_APP_TOKEN`` set the bot connects over Socket
Mode instead and the port serves only ``/healthz``. ``/metrics`` is served on that port
to requests with ``RUNBOOK_METRICS_TOKEN`` as a bearer token, and without a token on
``127.0.0.1:RUNBOOK_METRICS_PORT``; with neither setting it is off. ``--watch DIR``
re-ingests DIR in-process whenever its files change.

The same port serves the web pages at ``/`` (``bot.web``): Sign in with Slack with
``RUNBOOK_SLACK_CLIENT_ID``/``RUNBOOK_SLACK_CLIENT_SECRET`` and ``RUNBOOK_PUBLIC_URL``, or
local mode without sign-in (``RUNBOOK_WEB_LOCAL_MODE=true``, only with ``--host 127.0.0.1``).

SIGTERM or SIGINT stops accepting requests, finishes the ones in progress and the
answers already acknowledged, then exits 0.
"""

from __future__ import annotations

import argparse
import enum
import logging
import signal
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from bot.commands.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE, error

if TYPE_CHECKING:
    from bot.runtime import Runtime
    from ingest.sources.base import Source

log = logging.getLogger("runbook_bot.serve")

HELP = "run the Slack bot (HTTP, or Socket Mode with an app token)"
DEFAULT_HOST = "0.0.0.0"
_WEB_MODES = {
    "slack": "with Sign in with Slack",
    "local": "in local mode (no sign-in)",
    "off": "off (no sign-in configured)",
}


class _Watch(enum.Enum):
    EVERY_SOURCE = "every source"


# ``--watch`` without a folder: the sources file's sources. Not a string, so argparse
# leaves it as it is and it never equals a folder given on the command line (not even ".")
WATCH_SOURCES = _Watch.EVERY_SOURCE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port", type=int, default=argparse.SUPPRESS, help="HTTP port (default: 3000)"
    )
    parser.add_argument(
        "--host", default=DEFAULT_HOST, help=f"bind address (default: {DEFAULT_HOST})"
    )
    parser.add_argument(
        "--watch",
        type=Path,
        nargs="?",
        const=WATCH_SOURCES,
        default=None,
        metavar="DIR",
        help="re-ingest DIR when it changes; without DIR, every source of the sources file",
    )


def _watched(watch: Path | _Watch | None, rt: Runtime) -> tuple[Source, ...] | str:
    """The sources ``--watch`` names, or what is wrong with it."""
    from ingest.errors import SourceConfigError

    if watch is None:
        return ()
    if isinstance(watch, Path):
        if not watch.is_dir():
            return f"--watch {watch} is not a directory"
        return (rt.folder_source(watch),)
    try:
        sources = rt.configured_sources()
    except SourceConfigError as exc:
        return str(exc)
    if not sources:
        return "--watch without a folder needs a sources file (RUNBOOK_SOURCES_PATH)"
    return sources


def _metrics_where(port: int, token: str | None, metrics_address: str | None) -> str:
    where = []
    if token:
        where.append(f"on port {port} with the bearer token")
    if metrics_address is not None:
        where.append(f"on {metrics_address}")
    return " and ".join(where) if where else "off"


def run(args: argparse.Namespace, rt: Runtime) -> int:
    from bot.logs import configure_logging
    from bot.oncall import OnCallError
    from bot.server import METRICS_HOST, BotServer
    from bot.slack.app import SlackBot
    from bot.slack.client import bot_token
    from bot.watcher import RunbookWatcher
    from bot.web.app import build_web_pages
    from bot.web.config import web_config
    from bot.web.errors import WebConfigError
    from bot.web_only import WebOnly
    from retrieval.errors import IndexLockedError

    s = rt.settings
    try:
        configure_logging(s.log_level, s.log_format)
    except ValueError as exc:
        error(exc)
        return EXIT_USAGE
    socket_mode = s.slack_app_token is not None
    try:
        web = web_config(s, rt.web_session_secret, args.host)
    except WebConfigError as exc:
        error(exc)
        return EXIT_USAGE
    # with neither a bot token nor a signing secret, the web pages alone (local mode, or
    # Sign in with Slack) serve without the Slack routes
    slack_off = (
        bot_token(s) is None
        and s.slack_signing_secret is None
        and not socket_mode
        and web.mode != "off"
    )
    if slack_off and web.sign_in is not None and web.sign_in.team_id is None:
        error(
            "Sign in with Slack checks the workspace people sign in from: without a bot "
            "token (SLACK_BOT_TOKEN), set RUNBOOK_SLACK_TEAM_ID (T...)"
        )
        return EXIT_USAGE
    if not slack_off and s.slack_bot_token is None:
        error("SLACK_BOT_TOKEN is not set (the bot token, xoxb-...)")
        return EXIT_USAGE
    if not slack_off and not socket_mode and s.slack_signing_secret is None:
        error(
            "SLACK_SIGNING_SECRET is not set: HTTP mode needs it to verify requests "
            "(or set SLACK_APP_TOKEN to use Socket Mode)"
        )
        return EXIT_USAGE
    watched = _watched(args.watch, rt)
    if isinstance(watched, str):
        error(watched)
        return EXIT_USAGE

    try:
        handlers: SlackBot | WebOnly = (
            WebOnly(rt) if slack_off else SlackBot(rt, socket_mode=socket_mode)
        )
    except IndexLockedError as exc:
        error(exc)
        return EXIT_FAILED
    except OnCallError as exc:
        error(exc)
        return EXIT_USAGE
    if slack_off:
        log.info(
            "Slack is off: no SLACK_BOT_TOKEN or SLACK_SIGNING_SECRET, so /slack/events is "
            "not served; the web pages are (%s)",
            _WEB_MODES[web.mode],
        )
    pages = build_web_pages(rt, handlers.service, handlers.client, web, metrics=handlers.metrics)

    stop = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        log.info("received %s, stopping", signal.Signals(signum).name)
        stop.set()

    token = s.metrics_token.get_secret_value() if s.metrics_token is not None else None
    try:
        server = BotServer(
            None if socket_mode else handlers.app,  # None: no Slack route
            rt,
            host=args.host,
            port=s.port,
            metrics=handlers.metrics.render,
            metrics_token=token,
            metrics_port=s.metrics_port,
            web_routes=pages.routes(),
        ).start()
    except OSError as exc:
        where = f"{args.host}:{s.port}"
        if s.metrics_port is not None:
            where += f" (metrics: {METRICS_HOST}:{s.metrics_port})"
        error(f"cannot listen on {where}: {exc}")
        handlers.close(wait=False)
        return EXIT_FAILED
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    watcher = RunbookWatcher(rt, watched).start() if watched else None
    socket_handler = None
    try:
        if socket_mode:
            from slack_bolt.adapter.socket_mode import SocketModeHandler

            assert s.slack_app_token is not None and handlers.app is not None
            socket_handler = SocketModeHandler(
                handlers.app,
                s.slack_app_token.get_secret_value(),
                logger=logging.getLogger("runbook_bot.socket_mode"),
                web_client=handlers.client,
            )
            try:
                socket_handler.connect()
            except Exception as exc:  # a bad app token, no network: say so, no traceback
                error(f"cannot connect to Slack over Socket Mode: {exc}")
                return EXIT_FAILED
        generation: int | None
        try:
            generation = rt.searcher.generation()
        except Exception:
            generation = None
        log.info(
            "runbook-bot serving on port %d (%s mode), index generation %s, web pages %s, "
            "metrics %s%s",
            server.port,
            "socket" if socket_mode else ("web only" if slack_off else "http"),
            generation,
            _WEB_MODES[pages.config.mode],
            _metrics_where(
                server.port,
                token,
                f"{METRICS_HOST}:{server.metrics_port}" if server.metrics_port else None,
            ),
            f", watching {', '.join(source.name for source in watched)}" if watched else "",
            extra={
                "port": server.port,
                "mode": "socket" if socket_mode else "http",
                "generation": generation,
                "metrics_port": server.metrics_port,
                "web": pages.config.mode,
            },
        )
        while not stop.wait(0.5):
            pass
    finally:
        if socket_handler is not None:
            try:
                socket_handler.close()
            except Exception:
                log.exception("closing the Socket Mode connection failed")
        server.stop()
        if watcher is not None:
            watcher.stop()
        handlers.close(wait=True)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        log.info("stopped")
    return EXIT_OK
