"""Warnings a cited document carries: stale, superseded/deprecated, ownerless."""

from __future__ import annotations

from datetime import date

from core.models import AnswerWarning, DocumentMetadata


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
