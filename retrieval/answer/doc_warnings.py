"""Warnings a cited document carries: stale, superseded/deprecated, ownerless."""

from __future__ import annotations

from datetime import date

from core.models import AnswerWarning, Chunk, DocumentMetadata


def stale_limit(meta: DocumentMetadata, stale_after_days: int) -> int:
    """Days after which the document counts as stale (its own review_every wins)."""
    return meta.review_every_days if meta.review_every_days else stale_after_days


def is_stale(meta: DocumentMetadata, today: date, stale_after_days: int) -> bool:
    return meta.updated is not None and (today - meta.updated).days > stale_limit(
        meta, stale_after_days
    )


def document_warnings(
    meta: DocumentMetadata, source_id: str, title: str, today: date, stale_after_days: int
) -> list[AnswerWarning]:
    out: list[AnswerWarning] = []
    if meta.updated is not None and is_stale(meta, today, stale_after_days):
        age = (today - meta.updated).days
        owner = meta.owner or "no owner"
        out.append(
            AnswerWarning(
                kind="stale",
                message=(
                    f"'{title}' was last updated {age} days ago ({meta.updated.isoformat()}, "
                    f"review every {stale_limit(meta, stale_after_days)} days; owner {owner}). "
                    "Verify before acting."
                ),
                source_id=source_id,
            )
        )
    if meta.status in ("superseded", "deprecated"):
        by = f" by {meta.superseded_by}" if meta.superseded_by else ""
        out.append(
            AnswerWarning(
                kind="deprecated" if meta.status == "deprecated" else "superseded",
                message=f"'{title}' is {meta.status}{by}.",
                source_id=source_id,
            )
        )
    if not meta.owner:
        out.append(
            AnswerWarning(
                kind="ownerless",
                message=f"'{title}' has no owner on record.",
                source_id=source_id,
            )
        )
    return out


def superseded_note(old: Chunk, new: Chunk | None) -> AnswerWarning:
    """``old`` is superseded or deprecated: the answer comes from ``new``, or, with
    none, is not to be followed without checking."""
    m = old.metadata
    status = m.status
    by = f" by {m.superseded_by}" if m.superseded_by else ""
    if new is not None:
        msg = (
            f"'{old.title}' also matches but is {status}{by}; "
            f"this answer comes from the current '{new.title}'."
        )
    else:
        msg = f"'{old.title}' is {status}{by}; do not follow it without checking."
    kind = "deprecated" if status == "deprecated" else "superseded"
    return AnswerWarning(kind=kind, message=msg, source_id=old.source_id)
