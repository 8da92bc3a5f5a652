"""Where a draft goes in the runbook repository: ``<service>/<title-slug>.md``."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from bot.drafts.errors import DraftInvalid

NO_SERVICE_FOLDER = "general"
_MAX_SLUG = 60
_SAFE_PART = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


def slug(text: str, limit: int = _MAX_SLUG) -> str:
    """``Checkout API: DB refused`` -> ``checkout-api-db-refused``."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    out = "-".join(words)[:limit].strip("-")
    return out or "untitled"


def draft_path(service: str | None, title: str) -> str:
    """The path a draft of ``title`` for ``service`` gets in the runbook repository."""
    folder = slug(service, 40) if service else NO_SERVICE_FOLDER
    return f"{folder}/{slug(title)}.md"


def checked_path(path: str) -> str:
    """``path`` as given for a draft, when it stays inside the runbook repository: a
    relative POSIX path of plain names ending in ``.md``; else :class:`DraftInvalid`."""
    text = path.strip().replace("\\", "/")
    pure = PurePosixPath(text)
    parts = pure.parts
    if (
        not text
        or pure.is_absolute()
        or not parts
        or any(not _SAFE_PART.match(p) for p in parts)
        or pure.suffix != ".md"
    ):
        raise DraftInvalid(
            (
                f"{path!r} is not a runbook path: use lower-case names, folders separated "
                "by /, ending in .md (e.g. checkout-api/db-connections.md)",
            )
        )
    return str(pure)
