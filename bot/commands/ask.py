"""``runbook-bot ask "q"``: the answer contract on the terminal.

Verbatim quotes with offsets, citations, warnings, or an abstention with a reason; with
``--channel`` the answer that channel's audience would get (and what would go to the asker
privately). ``--json`` prints one JSON object: the :class:`~core.models.Answer` under
``answer``, the human step (who to call now) under ``human_step``, and under ``private``
what would go to the asker privately (or null).

Without ``--groups`` or ``--as-user`` the operator asks with every group the index knows.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bot.commands.options import csv_list, words
from bot.commands.output import EXIT_OK, EXIT_USAGE, err, error, out, print_json

if TYPE_CHECKING:
    from bot.oncall import Names
    from bot.runtime import Runtime
    from retrieval.permissions import UsergroupDirectory

HELP = "answer a question with quoted, cited runbook spans"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("question", type=words)
    who = parser.add_mutually_exclusive_group()
    who.add_argument(
        "--groups", type=csv_list, default=None, help="access groups (comma separated)"
    )
    who.add_argument("--as-user", default=None, metavar="U", help="answer as this Slack user id")
    parser.add_argument("--channel", default=None, help="answer for this channel's audience")
    parser.add_argument("--json", action="store_true", help="print the answer contract as JSON")
    parser.add_argument(
        "--alert",
        action="store_true",
        help="asked in an alert's thread: the answer leads with what to do, as in Slack",
    )


def _directory(rt: Runtime) -> UsergroupDirectory | None:
    """Slack's user groups, to resolve ``--as-user`` (None without a bot token)."""
    if rt.settings.slack_bot_token is None:
        return None
    from bot.slack.client import make_client
    from bot.slack.directory import SlackUsergroupDirectory

    return SlackUsergroupDirectory(make_client(rt.settings))


def _names(rt: Runtime) -> Names | None:
    """The workspace's names for the human step (None without a bot token: as written)."""
    if rt.settings.slack_bot_token is None:
        return None
    from bot.slack.channels import Channels
    from bot.slack.client import make_client
    from bot.slack.contacts import Contacts
    from bot.slack.directory import SlackUsergroupDirectory

    client = make_client(rt.settings)
    return Contacts(
        SlackUsergroupDirectory(client),
        Channels(client),
        service_channel_template=rt.settings.service_channel_template,
        fallback=rt.settings.fallback_contact,
        client=client,
    )


def run(args: argparse.Namespace, rt: Runtime) -> int:
    from bot.logs import new_request_id
    from bot.oncall import OnCallError, build_on_call
    from bot.text import render_human_step, render_text
    from retrieval.reading import AskContext

    try:
        steps = build_on_call(rt.settings, _names(rt)).steps
    except OnCallError as exc:
        error(exc)
        return EXIT_USAGE
    service = rt.service(_directory(rt) if args.as_user else None, steps=steps)
    resolver = service.resolver
    if args.as_user:
        asker = resolver.scope_for_user(args.as_user)
    elif args.groups:
        asker = resolver.scope_for_groups(args.groups)
    else:  # a local operator: every group the index knows
        groups = {g for c in rt.searcher.snapshot().chunks for g in c.metadata.access}
        asker = resolver.scope_for_groups(groups | set(resolver.access_map.known_groups))
    audience = resolver.audience_for_channel(args.channel) if args.channel else None
    delivery = service.ask(
        args.question,
        new_request_id(),
        asker=asker,
        audience=audience,
        user_id=args.as_user,
        channel_id=args.channel,
        context=AskContext(alert=args.alert),
    )
    if args.json:
        print_json(
            {"answer": delivery.public, "human_step": delivery.step, "private": delivery.private}
        )
    else:
        out(render_text(delivery.public))
        if delivery.step is not None:
            out(render_human_step(delivery.step))
        if delivery.private is not None:
            out("\nSent privately to the asker:\n" + render_text(delivery.private))
    cache = "cache hit" if delivery.cache_hit else "cache miss"
    err(f"request {delivery.request_id}: {cache}, {delivery.latencies_ms.get('total', 0):.0f} ms")
    return EXIT_OK
