"""Errors raised by the retrieval package (one base, foreign errors wrapped)."""

from __future__ import annotations

from core.errors import RunbookBotError


class RetrievalError(RunbookBotError):
    """Base for every error the retrieval package raises."""


class EmbeddingError(RetrievalError):
    """The embedding model could not be loaded or run."""


class EmbeddingMismatchError(RetrievalError):
    """The index was built with a different embedding model or dimension."""


class IndexUnavailableError(RetrievalError):
    """The vector store cannot be reached or opened."""


class IndexLockedError(IndexUnavailableError):
    """The embedded index is held by another process."""

    @classmethod
    def at(cls, path: object) -> IndexLockedError:
        return cls(
            f"the index at {path} is in use by another runbook-bot process "
            "(embedded mode allows one process per data dir). Stop it, use "
            "`serve --watch` to re-ingest in-process, or run a Qdrant server "
            "(RUNBOOK_QDRANT_URL)."
        )


class UnknownSignalError(RetrievalError):
    """A signal switched off that the signal table (retrieval.answer.signals) does not list."""


class ModelDataError(RetrievalError):
    """A fitted model's data file (the relevance weighting) is missing or malformed."""
