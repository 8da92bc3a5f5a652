"""runbook-bot in Slack.

``app`` wires a bolt App from one module per surface (``slash``, ``mentions``,
``alert_replies``, ``direct_messages``, ``shortcuts``, ``app_home``, ``buttons``,
``directory_events``, ``channel_events``), all sharing ``context.SlackContext``.
``answering`` turns a question (or an alert) into a reply for any surface;
``answer_view``, ``notices`` and ``home_view`` render messages with the one Block Kit
toolkit (``blockkit``) and the Markdown display conversion (``mrkdwn``); ``report_view``
renders the health reports. ``messages``, ``alerts`` and ``alert_post`` read Slack
messages and the alerts integrations post; ``alert_ledger`` keeps alert replies quiet
(one per alert, rate limit, resolution); ``thread_memory`` remembers the runbook each
thread is about; ``channels`` knows channels (read again when Slack says one changed)
and ``audiences`` who may read what in them (Slack Connect); ``contacts`` turns owners
into Slack user groups; ``requests`` keeps delivered answers for their buttons (in
``state.ttl_store``, the fail-soft Redis state they share); ``sender`` sends with a
minimal fallback; ``client`` builds the one WebClient.
"""
