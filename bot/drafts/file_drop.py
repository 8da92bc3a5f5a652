"""Drafts handed to the person as a file when no repository token is configured: sent
to them privately, and kept for the web page (``/drafts/<id>``) to offer."""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from bot.drafts.publishing import DraftState, Published, PublishSettings, ReadyDraft, SendFile
from state.private_file import open_private

DRAFTS_PATH = "/drafts/"
_ID = re.compile(r"^[a-f0-9]{16}$")


@dataclass
class FilePublisher:
    folder: Path
    send: SendFile
    public_url: str | None = None
    kind: str = "file"

    @classmethod
    def from_settings(cls, settings: PublishSettings, send: SendFile) -> FilePublisher:
        return cls(Path(settings.drafts_dir), send, settings.public_url)

    def publish(self, draft: ReadyDraft) -> Published:
        draft_id = secrets.token_hex(8)
        self.folder.mkdir(parents=True, exist_ok=True)
        with os.fdopen(
            open_private(self.folder / f"{draft_id}.md", os.O_WRONLY | os.O_CREAT | os.O_EXCL),
            "w",
            encoding="utf-8",
        ) as fh:
            fh.write(draft.markdown)
        url = f"{self.public_url}{DRAFTS_PATH}{draft_id}" if self.public_url else None
        comment = (
            f"Your runbook draft “{draft.title}”: add it to the runbook repository at "
            f"`{draft.path}`" + (f", or download it from {url}" if url else "") + "."
        )
        self.send(draft.requested_by, draft.path.rsplit("/", 1)[-1], draft.markdown, comment)
        return Published("file", draft.path, url, "sent", branch=draft_id)

    def state(self, published: Published) -> DraftState:
        return published.state


def stored_draft(folder: Path, draft_id: str) -> str | None:
    """The Markdown of a draft handed over as a file, by its id (None if unknown)."""
    if not _ID.match(draft_id):
        return None
    path = folder / f"{draft_id}.md"
    return path.read_text(encoding="utf-8") if path.is_file() else None
