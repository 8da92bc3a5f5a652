"""Errors raised by the retrieval package (one base, foreign errors wrapped)."""

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
