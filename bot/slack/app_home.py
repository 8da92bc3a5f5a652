"""The App Home tab, published when someone opens it (``app_home_opened``).

It shows the viewer what they can act on: the runbooks they own (an owner names a Slack
user group they are in, or them) that are stale or retired but still linked, ownerless
runbooks of the same services, the questions about those services that nothing
answered (the gaps report), and how to ask. Only runbooks the viewer may read appear,
and only the questions whose answers cited nothing the viewer may not read.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from slack_bolt import App

from bot.drafts import DraftTracker, gaps_with_drafts
from bot.example_question import example_question
from bot.reports import (
    DocInfo,
    GapReader,
    citation_counts,
    documents_from_chunks,
    gaps_report,
    stale_report,
)
from bot.slack.context import SlackContext
from bot.slack.directory import SlackUsergroupDirectory
from bot.slack.home_view import HomeData, home_view, render_home
from core.models import Chunk
from retrieval.permissions import DirectoryError
from state.querylog import Feedback, QueryLogReader, QueryRecord

log = logging.getLogger("runbook_bot.slack")
GAPS_DAYS = 30
_USER = re.compile(r"^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$")
_SUBTEAM = re.compile(r"^<!subteam\^(S[A-Z0-9]+)(?:\|([^>]*))?>$")


@dataclass(frozen=True)
class HomeSources:
    chunks: Callable[[], Sequence[Chunk]]  # the live index
    query_log: Callable[[], QueryLogReader]
    directory: SlackUsergroupDirectory
    days: int = GAPS_DAYS
    drafts: DraftTracker | None = None  # each question's runbook draft


def owns(owner: str | None, user_id: str, groups: frozenset[str]) -> bool:
    """Does ``owner`` (as a runbook writes it: ``@team``, ``@org/team``, a user-group or
    user mention or id, several separated by commas) name the user or one of their user
    groups (``groups``: handles and ids)?"""
    if not owner:
        return False
    for token in re.split(r"[,\s]+", owner.strip()):
        if not token:
            continue
        m = _USER.match(token)
        if m is not None:
            if m[1] == user_id:
                return True
            continue
        m = _SUBTEAM.match(token)
        if m is not None:
            if m[1] in groups or (m[2] or "").lstrip("@") in groups:
                return True
            continue
        if token == user_id:
            return True
        handle = token.lstrip("@")
        if handle in groups or handle.rsplit("/", 1)[-1] in groups:
            return True
    return False


class AppHome:
    def __init__(self, ctx: SlackContext, sources: HomeSources) -> None:
        self.ctx = ctx
        self.sources = sources

    def register(self, app: App) -> None:
        app.event("app_home_opened")(self.on_opened)

    def on_opened(self, event: dict[str, Any]) -> None:
        if event.get("tab") not in (None, "home"):
            return  # the Messages tab: nothing to publish
        user_id = str(event.get("user") or "")
        if user_id:
            self.ctx.submit(self.publish, user_id)

    def publish(self, user_id: str) -> None:
        try:
            blocks = render_home(self.gather(user_id))
            self.ctx.client.views_publish(user_id=user_id, view=home_view(blocks))
        except Exception as exc:
            self.ctx.failed("home", exc, "slack_home")

    def gather(self, user_id: str) -> HomeData:
        ctx = self.ctx
        scope = ctx.audiences.asker(user_id)
        chunks = self.sources.chunks()
        docs = [d for d in documents_from_chunks(chunks) if scope.groups.intersection(d.access)]
        owners_known = True
        try:
            groups = self.sources.directory.groups_of(user_id)
        except DirectoryError as exc:
            log.warning("cannot tell the user groups of %s: %s", user_id, exc)
            groups, owners_known = frozenset(), False
        owned = [d for d in docs if owns(d.owner, user_id, groups)]
        services = tuple(sorted({d.service for d in owned if d.service}))
        records: list[QueryRecord] = []
        feedback: list[Feedback] = []
        gaps_known = True
        try:
            log_reader = self.sources.query_log()
            records = log_reader.recent(self.sources.days)
            feedback = log_reader.recent_feedback(self.sources.days)
        except Exception as exc:  # the question log is optional here
            log.warning("cannot read the query log for the App Home: %s", exc)
            gaps_known = False
        rows = self._rows(docs, owned, services, records if gaps_known else None)
        reader = GapReader.of(scope.groups, chunks)
        gaps = tuple(
            g for g in gaps_report(records, feedback, reader=reader) if g.service in services
        )
        if self.sources.drafts is not None:
            gaps = tuple(gaps_with_drafts(gaps, self.sources.drafts, lambda: chunks))
        return HomeData(
            owned=len(owned),
            services=services,
            rows=tuple(rows),
            gaps=gaps,
            gaps_days=self.sources.days,
            gaps_known=gaps_known,
            owners_known=owners_known,
            example=example_question(chunks, scope.groups),
        )

    def _rows(
        self,
        docs: Sequence[DocInfo],
        owned: Sequence[DocInfo],
        services: Sequence[str],
        records: Sequence[QueryRecord] | None,
    ) -> list[Any]:
        counts = citation_counts(records) if records is not None else None
        ctx = self.ctx
        mine = {d.source_id for d in owned}
        rows = stale_report(docs, ctx.today(), ctx.settings.stale_after_days, counts)
        by_id = {d.source_id: d for d in docs}
        return [
            r
            for r in rows
            if (r.kind != "ownerless" and r.source_id in mine)
            or (r.kind == "ownerless" and by_id[r.source_id].service in services)
        ]
