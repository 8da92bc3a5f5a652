"""Slack request signing for tests: headers that slack_bolt's signature check accepts."""

from __future__ import annotations

import hashlib
import hmac
import time

from slack_sdk.signature import SignatureVerifier


def signed_headers(secret: str, body: str | bytes, timestamp: int | None = None) -> dict[str, str]:
    """``X-Slack-Request-Timestamp`` and ``X-Slack-Signature`` for ``body``.

    The signature is ``v0=`` + hex HMAC-SHA256 of ``"v0:{timestamp}:{body}"`` keyed with the
    signing secret; ``timestamp`` defaults to now (Slack rejects requests older than 5 min).
    """
    ts = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    if signature is None:  # older slack_sdk versions: compute it the documented way
        raw = body.decode("utf-8") if isinstance(body, bytes) else body
        digest = hmac.new(secret.encode(), f"v0:{ts}:{raw}".encode(), hashlib.sha256)
        signature = "v0=" + digest.hexdigest()
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": signature}
