"""``runbook-bot report stale|gaps``: runbook health reports for the people who own them.

``report stale`` lists stale, ownerless, not-yet-written (a TODO, or an empty Mitigation)
and retired-but-still-linked documents of the live index, ranked by how often answers
cited them in the last ``--days`` (from the query log).
``report gaps`` lists the questions that got no answer or a "not helpful", by service.

The operator's terminal gets every row. ``--post CHANNEL`` posts only what that channel's
whole audience may read: ``report stale`` the runbooks of the default group, ``report
gaps`` the rows whose answers cited only runbooks the channel may read, and whose service
is one of a runbook it may read (:class:`bot.slack.audiences.Audiences`: a channel shared
outside the company, or one Slack says nothing about, reads only shareable runbooks).

The query log is the one the bot writes (``Runtime.query_log``): the JSONL file at
``RUNBOOK_QUERY_LOG_PATH`` when set, otherwise the Redis stream. When
it cannot be read, ``report stale`` still reports (without citation counts, and says so on
stderr); ``report gaps`` has nothing to report from and fails.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING, Any, Protocol

from bot.commands.options import add_common, positive_int
from bot.commands.output import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    err,
    error,
    note,
    one_line,
    out,
    print_json,
)

if TYPE_CHECKING:
    from bot.reports import GapReader
    from bot.settings import Settings
    from core.models import Chunk
    from retrieval.permissions import PermissionResolver, UsergroupDirectory
    from state.querylog import QueryLogReader

HELP = "runbook health reports: stale documents, unanswered questions"
FORMATS = ("table", "json", "slack")
_CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]{2,}$")
DEFAULT_DAYS = 30


class _Snapshot(Protocol):
    @property
    def chunks(self) -> Sequence[Chunk]: ...


class _Searcher(Protocol):
    def snapshot(self) -> _Snapshot: ...


class Runtime(Protocol):
    """What the report commands use of :class:`bot.runtime.Runtime`."""

    @property
    def settings(self) -> Settings: ...

    @property
    def searcher(self) -> _Searcher: ...

    @property
    def query_log(self) -> QueryLogReader: ...

    def resolver(self, directory: UsergroupDirectory | None = None) -> PermissionResolver: ...


def add_arguments(parser: argparse.ArgumentParser) -> None:
    reports = parser.add_subparsers(dest="report_kind", required=True, metavar="REPORT")

    s = reports.add_parser(
        "stale",
        help="stale, ownerless, unwritten and superseded-but-linked documents, most cited first",
    )
    add_common(s)
    s.add_argument("--format", choices=FORMATS, default="table")
    s.add_argument(
        "--days",
        type=positive_int,
        default=DEFAULT_DAYS,
        help=f"citation window in days (default {DEFAULT_DAYS})",
    )
    s.add_argument("--post", metavar="CHANNEL", help="also post the report to this Slack channel")

    g = reports.add_parser("gaps", help="questions that got no answer or a 'not helpful'")
    add_common(g)
    g.add_argument("--format", choices=FORMATS, default="table")
    g.add_argument(
        "--days",
        type=positive_int,
        default=DEFAULT_DAYS,
        help=f"look back this many days (default {DEFAULT_DAYS})",
    )
    g.add_argument(
        "--post",
        metavar="CHANNEL",
        help="also post the report to this Slack channel (only the rows it may read)",
    )


def run(args: argparse.Namespace, rt: Runtime) -> int:
    return run_stale(args, rt) if args.report_kind == "stale" else run_gaps(args, rt)


def _query_log(rt: Runtime) -> QueryLogReader:
    """The query log the bot writes to (``Runtime.query_log``): the JSONL file when
    ``RUNBOOK_QUERY_LOG_PATH`` is set, else the Redis stream."""
    from state.errors import QueryLogError

    try:
        return rt.query_log
    except ValueError as exc:  # a malformed Redis URL
        raise QueryLogError(f"invalid Redis URL: {exc}") from exc


def _window_note(settings: Settings, days: int) -> None:
    kept = settings.query_log_retention_days
    if days > kept:
        note(f"the query log keeps {kept} days; --days {days} reports on those {kept}")


def _post(settings: Settings, channel: str, message: dict[str, Any]) -> int:
    from slack_sdk.errors import SlackApiError

    from bot.slack.client import make_client

    client = make_client(settings)
    try:
        response = client.chat_postMessage(
            channel=channel,
            text=message["text"],
            blocks=message["blocks"],
            unfurl_links=False,
            unfurl_media=False,
        )
    except SlackApiError as exc:
        error(one_line(f"Slack did not accept the report: {exc.response.get('error', exc)}"))
        return EXIT_FAILED
    except OSError as exc:  # urllib's URLError and socket errors
        error(one_line(f"cannot reach the Slack API: {exc}"))
        return EXIT_FAILED
    err(f"posted the report to {channel} (ts {response.get('ts')})")
    return EXIT_OK


def run_stale(args: argparse.Namespace, rt: Runtime) -> int:
    """``report stale``: stale, ownerless, unwritten and retired-but-linked documents, most
    cited first."""
    from bot.reports import (
        citation_counts,
        documents_from_chunks,
        format_json,
        format_table,
        readable_by,
        stale_report,
    )
    from bot.slack.client import bot_token
    from bot.slack.report_view import format_slack
    from state.errors import QueryLogError

    settings = rt.settings
    if args.post and bot_token(settings) is None:
        error("--post needs a Slack bot token: set SLACK_BOT_TOKEN")
        return EXIT_USAGE

    docs = documents_from_chunks(rt.searcher.snapshot().chunks)
    if not docs:
        error("the index has no documents; run `runbook-bot ingest DIR` first")
        return EXIT_FAILED

    citations: dict[str, int] | None = None
    try:
        citations = citation_counts(_query_log(rt).recent(args.days))
        _window_note(settings, args.days)
    except QueryLogError as exc:
        note(one_line(f"{exc}; reporting without citation counts"))

    today = date.today()
    rows = stale_report(docs, today, settings.stale_after_days, citations)
    if args.format == "json":
        out(format_json(rows))
    elif args.format == "slack":
        print_json(format_slack(rows, window_days=args.days))
    else:
        out(format_table(rows))

    if args.post:
        # A channel is not the operator: only documents the default group may read go
        # there, so titles and paths of restricted runbooks stay private.
        public = readable_by(docs, settings.default_access_group)
        omitted = len(docs) - len(public)
        if omitted:
            note(f"{omitted} restricted documents are left out of the posted report")
        public_rows = stale_report(public, today, settings.stale_after_days, citations)
        return _post(settings, args.post, format_slack(public_rows, window_days=args.days))
    return EXIT_OK


def _channel_reader(rt: Runtime, channel: str) -> GapReader | None:
    """Who reads a report posted to ``channel`` (an id, or a public channel's name): the
    channel's audience; None when the channel cannot be found."""
    from bot.reports import GapReader
    from bot.slack.audiences import Audiences
    from bot.slack.channels import Channels
    from bot.slack.client import make_client

    settings = rt.settings
    channels = Channels(make_client(settings))
    name = channel.strip()
    channel_id = name if _CHANNEL_ID.match(name) else channels.id_for_name(name)
    if channel_id is None:
        return None
    resolver = rt.resolver()
    audiences = Audiences(lambda: resolver, channels, settings.external_access_group)
    scope = audiences.audience(channel_id)
    if scope is None:  # a direct message: whoever it is with reads what everyone reads
        scope = resolver.audience_for_channel(None)
    return GapReader.of(scope.groups, rt.searcher.snapshot().chunks)


def run_gaps(args: argparse.Namespace, rt: Runtime) -> int:
    """``report gaps``: the questions that got no answer or a "not helpful", by service."""
    from bot.reports import format_gaps_json, format_gaps_table, gaps_report
    from bot.slack.client import bot_token
    from bot.slack.report_view import format_gaps_slack
    from state.errors import QueryLogError

    settings = rt.settings
    if args.post and bot_token(settings) is None:
        error("--post needs a Slack bot token: set SLACK_BOT_TOKEN")
        return EXIT_USAGE
    try:
        log = _query_log(rt)
        records = log.recent(args.days)
        feedback = log.recent_feedback(args.days)
    except QueryLogError as exc:
        error(one_line(exc))
        return EXIT_FAILED
    _window_note(settings, args.days)

    from bot.drafts import gaps_with_drafts, tracker_for

    drafts = tracker_for(settings)
    groups = gaps_with_drafts(
        gaps_report(records, feedback), drafts, lambda: rt.searcher.snapshot().chunks
    )
    if args.format == "json":
        out(format_gaps_json(groups))
    elif args.format == "slack":
        print_json(format_gaps_slack(groups, window_days=args.days))
    else:
        out(format_gaps_table(groups))

    if args.post:
        # A channel is not the operator: only the rows its whole audience may read.
        reader = _channel_reader(rt, args.post)
        if reader is None:
            error(one_line(f"cannot find the channel {args.post}: give its id (C…)"))
            return EXIT_FAILED
        shown = gaps_with_drafts(
            gaps_report(records, feedback, reader=reader),
            drafts,
            lambda: rt.searcher.snapshot().chunks,
        )
        omitted = sum(g.count for g in groups) - sum(g.count for g in shown)
        if omitted:
            what = "question" if omitted == 1 else "questions"
            note(f"{omitted} {what} the channel may not read left out of the posted report")
        return _post(settings, args.post, format_gaps_slack(shown, window_days=args.days))
    return EXIT_OK
