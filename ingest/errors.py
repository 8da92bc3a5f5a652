"""Errors raised by the ingest package."""

from core.errors import RunbookBotError


class IngestError(RunbookBotError):
    """Base for every error the ingest package raises."""


class MalformedDocumentError(IngestError):
    """A source file could not be parsed; carries the line when known."""

    def __init__(self, path: str, reason: str, line: int | None = None) -> None:
        self.path = path
        self.reason = reason
        self.line = line
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {reason}")


class SourceConfigError(IngestError):
    """The sources configuration is wrong (unknown kind, a missing token, a bad name)."""


class SourceUnavailableError(IngestError):
    """A source could not be read (its API refused or failed); nothing was changed."""


class EmptySourceError(SourceUnavailableError):
    """A source read no document while the index holds some of it: taken for an accident
    (a missing checkout, an unmounted volume), so nothing was removed."""
