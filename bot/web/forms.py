"""Reading the pages' forms: small URL-encoded bodies, within a size cap and a deadline.

The forms hold a question and a CSRF token; anything larger than :data:`MAX_FORM_BYTES`,
slower than :data:`FORM_TIMEOUT_SECONDS`, or not a URL-encoded form is refused with the
HTTP status in :class:`FormError`.
"""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs

from starlette.requests import ClientDisconnect, Request

from bot.web.errors import FormError

MAX_FORM_BYTES = 16_384
FORM_TIMEOUT_SECONDS = 10.0
MAX_FIELDS = 20


async def read_form(request: Request) -> dict[str, str]:
    """A small URL-encoded form: at most :data:`MAX_FORM_BYTES`, within a deadline."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise FormError(415, "a form was expected")
    body = bytearray()
    try:
        async with asyncio.timeout(FORM_TIMEOUT_SECONDS):
            async for chunk in request.stream():
                body += chunk
                if len(body) > MAX_FORM_BYTES:
                    raise FormError(413, "the form is too large")
    except TimeoutError:
        raise FormError(408, "the form was not received in time") from None
    except ClientDisconnect:
        raise FormError(400, "the browser went away") from None
    try:
        fields = parse_qs(body.decode("utf-8"), max_num_fields=MAX_FIELDS, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        raise FormError(400, "the form could not be read") from None
    return {k: v[0] for k, v in fields.items() if v}
