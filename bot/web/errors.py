"""The web pages' errors: one tree, rooted at :class:`WebError`.

::

    WebError
    ├── WebConfigError   the web settings do not fit together (``serve`` refuses to start)
    ├── SignInError      Sign in with Slack failed; the message is shown to the person
    └── FormError        a form body that cannot be read; ``status`` is the HTTP answer
"""

from __future__ import annotations

from core.errors import RunbookBotError


class WebError(RunbookBotError):
    """Base of every error raised by ``bot.web``."""


class WebConfigError(WebError):
    """The web settings do not fit together, e.g. local mode on a public address."""


class SignInError(WebError):
    """Sign in with Slack did not finish; ``str(exc)`` is safe to show in the page."""


class FormError(WebError):
    """A form body that cannot be read (too large, too slow, not a form)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
