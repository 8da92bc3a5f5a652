"""What an answer says when its quotes lack the command or value the question asks for.

The command and value check weighs in the confidence model with the rest of the evidence;
an answer that clears the bar all the same (the rest is strong, or it is the alert's own
runbook, which answers however sure) says what it does not show, so that the reader
looks before acting.
"""

from __future__ import annotations

from core.models import AbstainReason, AnswerWarning

NO_COMMAND_SHOWN = "The quoted sections show no command for this: check before running anything."
NO_VALUE_SHOWN = "The quoted sections do not give the value asked for: check the runbook."


def unshown_detail_note(reason: AbstainReason | None) -> AnswerWarning | None:
    """The note for the check's ``reason`` (``no-command``, ``no-value``); None for any
    other reason, or none. It speaks of the quotes together, not of one runbook."""
    if reason == "no-command":
        message = NO_COMMAND_SHOWN
    elif reason == "no-value":
        message = NO_VALUE_SHOWN
    else:
        return None
    return AnswerWarning(kind="detail-not-shown", message=message)
