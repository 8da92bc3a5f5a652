"""Shared, short-lived state in Redis, used fail-soft: the bot answers while Redis is down.

One helper (:class:`state.fail_soft.FailSoftRedis`) runs every Redis call: on a Redis
error it marks Redis unhealthy (:class:`core.health.ServiceHealth`: warn once per
outage, ask again after an interval, note the recovery) and the caller takes its
fallback. Every key is built by :class:`state.keys.Keys`, which applies the deployment's
namespace (``RUNBOOK_REDIS_NAMESPACE``).

What lives here, each in a module named after it:

* ``answer_cache``: answers by question, scope, index generation and mode;
* ``dedup``: each Slack event answered once across retries and replicas;
* ``querylog``: what was asked and the feedback on it, with the access groups of what
  each answer cited (Redis streams, or a file);
* ``usergroups``: the members of Slack user groups, for permission scopes;
* ``ttl_store``: expiring values shared by replicas, with an in-process copy while Redis
  is down (the request store, the alert ledger, thread memory, sign-in states use it);
* ``sign_in_states``: the one-time OAuth ``state`` values of Sign in with Slack;
* ``web_sessions``: web page sign-ins kept on the server, so signing out or a change of
  access ends them (fail-closed while Redis is down).

Imports: ``state`` reads the domain values of ``retrieval`` (answers, redaction) and
never imports ``bot``.
"""
