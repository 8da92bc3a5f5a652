"""Runbooks drafted from incident threads: the thread made into Markdown the ingest
accepts, checked with ``ingest --check``'s own reading, published as a pull request in
the runbook repository (or handed over as a file), and tracked against the unanswered
question it answers."""

from bot.drafts.builder import Draft, DraftSections, Step, build_draft
from bot.drafts.errors import DraftError, DraftInvalid, DraftRefused, PublishError
from bot.drafts.file_drop import DRAFTS_PATH, stored_draft
from bot.drafts.gaps import gaps_with_drafts, tracker_for
from bot.drafts.ledger import DraftLedger, DraftRecord, new_record, question_key
from bot.drafts.paths import checked_path, draft_path
from bot.drafts.publishing import (
    PUBLISHERS,
    Published,
    Publisher,
    PublishSettings,
    ReadyDraft,
    SendFile,
    make_publisher,
    publisher_kind,
)
from bot.drafts.thread import AlertFacts, Subject, ThreadMessage
from bot.drafts.tracker import DraftTracker, GapDraft, with_drafts
from bot.drafts.validation import check_draft

__all__ = [
    "DRAFTS_PATH",
    "PUBLISHERS",
    "AlertFacts",
    "Draft",
    "DraftError",
    "DraftInvalid",
    "DraftLedger",
    "DraftRecord",
    "DraftRefused",
    "DraftSections",
    "DraftTracker",
    "GapDraft",
    "PublishError",
    "PublishSettings",
    "Published",
    "Publisher",
    "ReadyDraft",
    "SendFile",
    "Step",
    "Subject",
    "ThreadMessage",
    "build_draft",
    "check_draft",
    "checked_path",
    "draft_path",
    "gaps_with_drafts",
    "make_publisher",
    "new_record",
    "publisher_kind",
    "question_key",
    "stored_draft",
    "tracker_for",
    "with_drafts",
]
