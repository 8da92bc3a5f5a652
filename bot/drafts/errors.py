"""Errors raised while drafting a runbook from a thread and publishing it."""

from core.errors import RunbookBotError


class DraftError(RunbookBotError):
    """Base for every error of the drafts package."""


class DraftRefused(DraftError):
    """A draft may not be made from this thread (its audience, an unknown channel); the
    message says why, in words for the person who asked."""


class DraftInvalid(DraftError):
    """The draft would not pass ``ingest --check``; ``problems`` name each reason."""

    def __init__(self, problems: tuple[str, ...]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


class PublishError(DraftError):
    """The draft could not be published (the repository refused, the API failed)."""
