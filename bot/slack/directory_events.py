"""Workspace events that change who may read what: user-group membership."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App

from bot.slack.context import SlackContext

log = logging.getLogger("runbook_bot.slack")


class DirectoryEvents:
    def __init__(self, ctx: SlackContext) -> None:
        self.ctx = ctx

    def register(self, app: App) -> None:
        app.event("subteam_members_changed")(self.on_subteam_members_changed)

    def on_subteam_members_changed(self, event: dict[str, Any]) -> None:
        subteam = str(event.get("subteam_id") or "")
        if subteam:
            self.ctx.service.resolver.invalidate_usergroup(subteam)
            log.info("user group %s changed: cached members dropped", subteam)
