"""The web pages of ``runbook-bot serve``: ask, search and reports, signed in with Slack.

:func:`web_answer_url` builds the "Open in browser" link of an answer (``/ask?q=...``);
:mod:`bot.web.app` assembles the routes that ``serve`` adds to its Starlette app.
"""

from bot.web.links import web_answer_url

__all__ = ["web_answer_url"]
