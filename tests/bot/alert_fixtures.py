"""Alert posts as alerting integrations send them to Slack (tests/fixtures/alerts)."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import ROOT

ALERTS = ROOT / "tests" / "fixtures" / "alerts"


def alert_message(name: str, **fields: Any) -> dict[str, Any]:
    """The message event of ``tests/fixtures/alerts/<name>.json``, with ``fields`` set."""
    message: dict[str, Any] = json.loads((ALERTS / f"{name}.json").read_text(encoding="utf-8"))
    message.update(fields)
    return message
