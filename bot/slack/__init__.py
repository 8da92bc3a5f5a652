"""runbook-bot in Slack.

``app`` wires a bolt App from one module per surface (``slash``, ``mentions``,
``buttons``, ``directory_events``), all sharing ``context.SlackContext``. ``answering``
turns a question into a reply for any surface; ``answer_view`` and ``notices`` render
messages with the one Block Kit toolkit (``blockkit``) and the Markdown display
conversion (``mrkdwn``); ``report_view`` renders the health reports. ``messages`` and
``alerts`` read Slack messages and alerts, ``channels`` knows channels, ``contacts`` turns
owners into Slack user groups, ``requests`` keeps delivered answers for their buttons,
``sender`` sends with a minimal fallback, ``client`` builds the one WebClient.
"""
