"""The web pages' errors: one tree, rooted at :class:`WebError`.

::

    WebError
    ├── WebConfigError   the web settings do not fit together (``serve`` refuses to start)
    └── SignInError      Sign in with Slack failed; the message is shown to the person
"""

from __future__ import annotations


class WebError(Exception):
    """Base of every error raised by ``bot.web``."""


class WebConfigError(WebError):
    """The web settings do not fit together, e.g. local mode on a public address."""


class SignInError(WebError):
    """Sign in with Slack did not finish; ``str(exc)`` is safe to show in the page."""
