"""The gaps report with each question's draft: one call for the CLI, Slack and the web."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from bot.drafts.errors import PublishError
from bot.drafts.ledger import DraftLedger
from bot.drafts.publishing import Publisher, PublishSettings, make_publisher
from bot.drafts.tracker import DraftTracker, with_drafts
from bot.reports import GapGroup
from core.models import Chunk

if TYPE_CHECKING:
    from bot.settings import Settings


def _no_file(user_id: str, filename: str, content: str, comment: str) -> None:
    raise PublishError("files are only sent from Slack")


def tracker_for(settings: Settings) -> DraftTracker:
    """The drafts of this deployment (its data dir) and where their pull requests stand."""
    publish = PublishSettings.of(settings)

    def publisher() -> Publisher:
        return make_publisher(publish, _no_file)

    return DraftTracker(DraftLedger(settings.data_dir), publisher, files=settings.drafts_dir)


def gaps_with_drafts(
    groups: Sequence[GapGroup], tracker: DraftTracker, chunks: Callable[[], Iterable[Chunk]]
) -> list[GapGroup]:
    """``groups`` with each question's draft; the index is read only when there are any."""
    if not tracker.ledger.records():
        return list(groups)
    return with_drafts(groups, tracker.for_gaps({c.path for c in chunks()}))
