"""Links into the web pages that other surfaces (Slack answers) hand out.

    web_answer_url("https://runbooks.acme.io", "checkout-api db refused")
    # 'https://runbooks.acme.io/ask?q=checkout-api%20db%20refused'

The question is redacted first (a pasted token never travels in a link, a browser
history or a proxy log) and cut so that the whole link fits in a Slack button URL.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from core.heading_text import plain_section
from core.models import Answer, Citation, Suggestion
from core.redact import redact

ASK_PATH = "/ask"
#: Slack's limit on a button's URL; a link longer than this is cut at the question.
MAX_LINK_CHARS = 3000
#: At most this many characters of one question character once percent-encoded (UTF-8).
_MAX_ENCODED_PER_CHAR = 12


def clean_question(question: str) -> str:
    """The question as the web pages use it: redacted, on one line; empty when it holds
    no word or name (``"?"`` asks nothing, and the closest runbooks to nothing are noise)."""
    text = " ".join(redact(question).split())
    return text if any(ch.isalnum() for ch in text) else ""


def ask_url(base_url: str, question: str) -> str:
    """``<base_url>/ask?q=<question>``, the question percent-encoded as it is."""
    return f"{base_url.rstrip('/')}{ASK_PATH}?q={quote(question, safe='')}"


def web_answer_url(base_url: str | None, question: str) -> str | None:
    """The web page answering ``question`` for whoever opens it (after Sign in with Slack,
    with their own permissions); None when ``base_url`` (``RUNBOOK_PUBLIC_URL``) is unset
    or the question is empty."""
    if not base_url or not base_url.strip():
        return None
    text = clean_question(question)
    if not text:
        return None
    url = ask_url(base_url.strip(), text)
    while len(url) > MAX_LINK_CHARS:
        if not text:
            return None  # the base alone is too long for a link
        over = len(url) - MAX_LINK_CHARS
        text = text[: len(text) - max(1, over // _MAX_ENCODED_PER_CHAR)].rstrip()
        url = ask_url(base_url.strip(), text)
    return url if text else None


# --------------------------------------------------------------------------- runbook pages

RUNBOOK_PATH = "/runbooks/"
_SLUG_GAP = re.compile(r"[^0-9a-z]+")


def heading_anchor(section: str) -> str:
    """The anchor of a section on its runbook's page: its plain heading path as a slug
    (``Mitigation > Restart pgbouncer`` -> ``mitigation-restart-pgbouncer``)."""
    return _SLUG_GAP.sub("-", plain_section(section).lower()).strip("-") or "top"


def runbook_url(base_url: str, source_id: str, section: str | None = None) -> str:
    """``<base_url>/runbooks/<source_id>#<section's anchor>``: the whole runbook at its
    indexed revision, at the section."""
    anchor = f"#{heading_anchor(section)}" if section else ""
    return f"{base_url.rstrip('/')}{RUNBOOK_PATH}{quote(source_id, safe='/:')}{anchor}"


def with_page_links(answer: Answer, base_url: str | None) -> Answer:
    """``answer`` with every citation and suggestion that has no source link (a folder
    outside git, a template without the commit) linked to its runbook's page, at its
    section, and so is a citation's precondition section: no title is ever unclickable.
    Unchanged when ``base_url`` is unset."""
    if not base_url or not base_url.strip():
        return answer
    base = base_url.strip()

    def cited(c: Citation) -> Citation:
        url = c.url or runbook_url(base, c.source_id, c.section if c.section != c.title else None)
        before = c.before
        if before is not None and not before.url:  # its precondition section, likewise
            linked = runbook_url(base, c.source_id, before.section)
            before = before.model_copy(update={"url": linked})
        if url == c.url and before == c.before:
            return c
        return c.model_copy(update={"url": url, "before": before})

    def suggested(s: Suggestion) -> Suggestion:
        url = s.url or runbook_url(base, s.source_id, s.section if s.section != s.title else None)
        return s if url == s.url else s.model_copy(update={"url": url})

    return answer.model_copy(
        update={
            "citations": tuple(map(cited, answer.citations)),
            "related": tuple(map(cited, answer.related)),
            "suggestions": tuple(map(suggested, answer.suggestions)),
        }
    )
