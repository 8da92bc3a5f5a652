"""Action ids of the buttons the bot's messages carry (one listener each)."""

from __future__ import annotations

FEEDBACK_HELPFUL = "feedback_helpful"
FEEDBACK_NOT_HELPFUL = "feedback_not_helpful"
POST_TO_CHANNEL = "post_to_channel"
ESCALATE = "escalate_to_owner"
RETRY = "retry_question"
DRAFT_RUNBOOK = "draft_runbook"  # "Draft a runbook" from the thread (bot.slack.drafting)
# A link button still sends a block_actions payload, which the app must acknowledge.
OPEN_SEARCH = "open_search"
OPEN_IN_BROWSER = "open_in_browser"
SHOW_MORE = "show_more"  # a long lead quote (and its folded examples) shown whole, in place
PAGE_ONCALL = "page_oncall"
FULL_RUNBOOK = "full_runbook"  # an alert card's "Full runbook": the whole answer in place
