"""Events that change what a channel is: shared outside the company or no longer
(``channel_shared``, ``channel_unshared``), renamed (``channel_rename``, ``group_rename``).

Channel details are cached (:class:`bot.slack.channels.Channels`); each of these events
has them read again at once, so a channel just shared with another organization is
answered only from shareable runbooks from the next question on, and a renamed channel
is matched against the alert and incident channel patterns by its new name.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App

from bot.slack.context import SlackContext

log = logging.getLogger("runbook_bot.slack")


class ChannelEvents:
    def __init__(self, ctx: SlackContext) -> None:
        self.ctx = ctx

    def register(self, app: App) -> None:
        app.event("channel_shared")(self.on_shared)
        app.event("channel_unshared")(self.on_unshared)
        app.event("channel_rename")(self.on_renamed)
        app.event("group_rename")(self.on_renamed)

    def on_shared(self, event: dict[str, Any]) -> None:
        channel = str(event.get("channel") or "")
        if channel:
            self.ctx.channels.refresh(channel, shared=True)
            log.info("channel %s shared outside the company: its details read again", channel)

    def on_unshared(self, event: dict[str, Any]) -> None:
        channel = str(event.get("channel") or "")
        if channel:
            # is_ext_shared: still shared with another organization
            still = event.get("is_ext_shared")
            self.ctx.channels.refresh(channel, shared=still if isinstance(still, bool) else None)
            log.info("channel %s unshared: its details read again", channel)

    def on_renamed(self, event: dict[str, Any]) -> None:
        channel = event.get("channel")
        if isinstance(channel, dict) and channel.get("id"):
            name = str(channel.get("name") or "") or None
            self.ctx.channels.renamed(str(channel["id"]), name)
            log.info("channel %s renamed to %s", channel["id"], name)
