""" "Draft a runbook from this thread": the message shortcut, the button on "no runbook"
and "not sure" answers and on a resolved alert that had none, the review modal, and the
pull request (or file) made once the person confirms.

The modal opens at once ("Reading the thread…") and is filled in when the thread is
read. A draft holds only what the person may see and the channel may keep: deleted
messages, the bot's own answers and, in a channel shared with another organization, that
organization's messages are left out; a private channel's draft is readable by the
channel's audience from the access map (``access:``), or is refused when the access map
does not list the channel. Nothing is created before the person confirms.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from slack_bolt import Ack, App
from slack_sdk.errors import SlackApiError

from bot.drafts import (
    AlertFacts,
    DraftError,
    DraftInvalid,
    DraftLedger,
    DraftRefused,
    DraftTracker,
    Publisher,
    PublishSettings,
    ReadyDraft,
    Subject,
    ThreadMessage,
    build_draft,
    check_draft,
    checked_path,
    draft_path,
    make_publisher,
    new_record,
    publisher_kind,
)
from bot.slack import actions as ids
from bot.slack.blockkit import Message, actions, button, fallback, section
from bot.slack.context import SlackContext
from bot.slack.draft_thread import ReadThread, ThreadReader, restricted_lines, thread_link
from bot.slack.draft_view import (
    REVIEW_CALLBACK,
    failed_message,
    loading_view,
    published_message,
    refusal_view,
    review_view,
    submitted_fields,
)
from ingest.sync import IngestOptions
from state.querylog import hash_user
from state.ttl_store import TtlStore

if TYPE_CHECKING:
    import redis

    from bot.slack.app import SlackBot
    from bot.slack.directory import SlackUsergroupDirectory

log = logging.getLogger("runbook_bot.slack")
SHORTCUT_ID = "draft_runbook"
SURFACE = "slack_draft"
PENDING_SECONDS = 6 * 3600
THREAD_LIMIT = 200
THREAD_PREFIX = "thread:"
_GROUP_ID = re.compile(r"^S[A-Z0-9]{6,}$")
UNLISTED_PRIVATE = (
    "This is a private channel the access map does not list, so a runbook drafted from it "
    "would be readable by everyone. Ask the team that runs the bot to add the channel to "
    "the access map (channels:), then draft it again."
)
NOT_A_MEMBER = "You are not in this channel: a draft holds only messages you can see."
EXPIRED = "This draft has expired: start again from the thread."


@dataclass(frozen=True)
class DraftTools:
    """What drafting needs besides the Slack context."""

    ledger: DraftLedger
    publisher: Callable[[], Publisher]
    publish_to: Callable[[], str]  # "opens a pull request in acme/runbooks", ...
    ingest_options: Callable[[], IngestOptions]
    service_owner: Callable[[str], str | None]  # the owner of a service's runbooks
    known_services: Callable[[], frozenset[str]]
    pending: TtlStore  # drafts shown in a review modal, by id, until confirmed
    groups_of: Callable[[str], frozenset[str]]  # a person's Slack user groups
    tracker: DraftTracker
    restricted: Callable[[frozenset[str]], frozenset[str]]  # lines ``groups`` may not read


@dataclass(frozen=True)
class Origin:
    """Where a draft is made from and for whom."""

    user_id: str
    channel_id: str
    root_ts: str | None  # the thread (None: only the question, e.g. a slash command)
    team_id: str | None
    question: str | None = None  # as asked: the draft's title
    service: str | None = None
    logged: str | None = None  # as the query log (and so the gaps report) holds it


def draft_button(value: str) -> dict[str, Any]:
    return button(":memo: Draft a runbook", ids.DRAFT_RUNBOOK, value=value)


def resolved_offer(channel: str, thread_ts: str, alertname: str | None) -> Message:
    """Posted in a resolved alert's thread when no runbook answered it."""
    what = f"*{alertname}*" if alertname else "This alert"
    text = f":memo: {what} resolved without a runbook. Draft one from this thread?"
    return Message(
        text=fallback("Resolved without a runbook: draft one from this thread?"),
        blocks=[
            section(text),
            actions(
                [draft_button(f"{THREAD_PREFIX}{channel}:{thread_ts}")], block_id="draft_offer"
            ),
        ],
    )


class Drafting:
    def __init__(self, ctx: SlackContext, tools: DraftTools) -> None:
        self.ctx = ctx
        self.tools = tools
        self.pending = tools.pending

    def register(self, app: App) -> None:
        app.shortcut(SHORTCUT_ID)(self.on_shortcut)
        app.action(ids.DRAFT_RUNBOOK)(self.on_button)
        app.view(REVIEW_CALLBACK)(self.on_submit)

    # -- opening -------------------------------------------------------------------------

    def on_shortcut(self, ack: Ack, body: dict[str, Any]) -> None:
        ack()
        message = body.get("message") or {}
        origin = Origin(
            user_id=str((body.get("user") or {}).get("id") or ""),
            channel_id=str((body.get("channel") or {}).get("id") or ""),
            root_ts=str(message.get("thread_ts") or message.get("ts") or "") or None,
            team_id=str((body.get("team") or {}).get("id") or "") or None,
        )
        self._open(body, origin)

    def on_button(self, ack: Ack, body: dict[str, Any]) -> None:
        ack()
        value = str(((body.get("actions") or [{}])[0]).get("value") or "")
        user = str((body.get("user") or {}).get("id") or "")
        team = str((body.get("team") or {}).get("id") or "") or None
        clicked_in = str((body.get("channel") or {}).get("id") or "")
        if value.startswith(THREAD_PREFIX):
            channel, _, ts = value.removeprefix(THREAD_PREFIX).partition(":")
            origin = Origin(user, channel, ts or None, team)
        else:
            stored = self.ctx.requests.get(value)
            if stored is None:
                self._show(body, None, refusal_view(EXPIRED))
                return
            channel = stored.channel_id or clicked_in
            origin = Origin(
                user,
                channel,
                stored.thread_ts,
                team,
                question=stored.asked or stored.question,
                service=stored.service,
                logged=stored.question,
            )
        self._open(body, origin)

    def _show(self, body: dict[str, Any], view_id: str | None, view: dict[str, Any]) -> None:
        client = self.ctx.client
        if view_id:
            client.views_update(view_id=view_id, view=view)
        else:
            client.views_open(trigger_id=str(body.get("trigger_id") or ""), view=view)

    def _open(self, body: dict[str, Any], origin: Origin) -> None:
        opened = self.ctx.client.views_open(
            trigger_id=str(body.get("trigger_id") or ""), view=loading_view()
        )
        view_id = str((opened.get("view") or {}).get("id") or "")
        self.ctx.submit(self._prepare, view_id, origin)

    def _prepare(self, view_id: str, origin: Origin) -> None:
        try:
            view = self._review(origin)
        except DraftRefused as exc:
            log.info("draft refused in %s: %s", origin.channel_id, exc)
            self.ctx.metrics.request(SURFACE, "refused")
            view = refusal_view(str(exc))
        except Exception as exc:
            self.ctx.failed("draft", exc, SURFACE)
            view = refusal_view("The thread could not be read: try again in a minute.")
        self.ctx.client.views_update(view_id=view_id, view=view)

    # -- reading the thread ----------------------------------------------------------------

    def _access(self, origin: Origin) -> tuple[str, ...]:
        """The draft's ``access:``: the channel's audience when it is private or listed in
        the access map; refused for a private channel the map does not list."""
        channel = origin.channel_id
        if not channel or channel.startswith("D"):
            return ()
        info = self.ctx.channels.info(channel)
        resolver = self.ctx.service.resolver
        listed = resolver.audience_for_channel(channel).groups - {resolver.default_group}
        if info.is_private and not listed:
            raise DraftRefused(UNLISTED_PRIVATE)
        if info.is_private and not self._member(channel, origin.user_id):
            raise DraftRefused(NOT_A_MEMBER)
        return tuple(sorted(listed))

    def _member(self, channel: str, user: str) -> bool:
        try:
            resp = self.ctx.client.conversations_members(channel=channel, limit=1000)
        except SlackApiError:
            return False
        return user in (resp.get("members") or [])

    def _readers(self, origin: Origin, access: tuple[str, ...]) -> frozenset[str]:
        """Who will read the draft: its ``access`` groups, else the channel's audience."""
        if access:
            return frozenset(access)
        scope = self.ctx.audiences.audience(origin.channel_id) or self.ctx.audiences.asker(
            origin.user_id, origin.channel_id
        )
        return frozenset(scope.groups)

    def _read(self, origin: Origin, access: tuple[str, ...] = ()) -> ReadThread:
        if not origin.root_ts or not origin.channel_id:
            return ReadThread((), None, 0)
        client = self.ctx.client
        resp = client.conversations_replies(
            channel=origin.channel_id, ts=origin.root_ts, limit=THREAD_LIMIT
        )
        messages = list(resp.get("messages") or [])
        root_link = None
        try:
            root_link = client.chat_getPermalink(
                channel=origin.channel_id, message_ts=origin.root_ts
            ).get("permalink")
        except SlackApiError as exc:
            log.info("no permalink for the thread: %s", exc)
        names: dict[str, str] = {}

        def name_of(user_id: str) -> str:
            if not user_id:
                return ""
            if user_id not in names:
                names[user_id] = _user_name(client, user_id)
            return names[user_id]

        root = origin.root_ts
        reader = ThreadReader(
            team_id=origin.team_id,
            bot_user_id=_bot_user(self.ctx),
            external=self.ctx.audiences.is_external(origin.channel_id),
            name_of=name_of,
            permalink=lambda ts: thread_link(root_link, ts, root),
            restricted=self.tools.restricted(self._readers(origin, access)),
        )
        return reader.read(messages)

    def _subject(self, origin: Origin, thread: ReadThread, access: tuple[str, ...]) -> Subject:
        alert = thread.alert
        title = origin.question or (alert.name if alert else "") or _first_line(thread)
        service = (
            _label(alert, "service")
            or origin.service
            or _channel_service(self.ctx.channels.name(origin.channel_id), self.tools)
        )
        owner = (self.tools.service_owner(service) if service else None) or self._group_of(
            origin.user_id
        )
        root_link = thread.messages[0].link if thread.messages else None
        return Subject(
            title=title or "Untitled runbook",
            service=service,
            owner=owner,
            alert=alert,
            access=access,
            thread_url=root_link,
            question=origin.question,
        )

    def _group_of(self, user_id: str) -> str | None:
        try:
            found = self.tools.groups_of(user_id)
            # handles, not ids (S0…), when the directory knows both
            groups = sorted(g for g in found if not _GROUP_ID.match(g)) or sorted(found)
        except Exception:
            return None
        return f"@{groups[0]}" if groups else None

    def _review(self, origin: Origin) -> dict[str, Any]:
        access = self._access(origin)
        thread = self._read(origin, access)
        subject = self._subject(origin, thread, access)
        draft = build_draft(thread.messages, subject, today=self.ctx.today())
        path = draft_path(subject.service, subject.title)
        problems = self._problems(draft.markdown, path)
        draft_id = secrets.token_hex(8)
        pending = {
            "origin": asdict(origin),
            "subject": _subject_dict(subject),
            "messages": [asdict(m) for m in thread.messages],
            "left_out": thread.left_out,
        }
        self.pending.put(draft_id, json.dumps(pending), PENDING_SECONDS)
        self.ctx.metrics.request(SURFACE, "drafted")
        return review_view(
            draft,
            path,
            draft_id,
            publish_to=self.tools.publish_to(),
            problems=problems,
            left_out=thread.left_out,
            withheld=thread.withheld,
        )

    def _problems(self, markdown: str, path: str) -> tuple[str, ...]:
        try:
            check_draft(markdown, checked_path(path), self.tools.ingest_options())
        except DraftInvalid as exc:
            return exc.problems
        return ()

    # -- confirming ------------------------------------------------------------------------

    def on_submit(self, ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        fields = submitted_fields(view)
        draft_id = str(view.get("private_metadata") or "")
        raw = self.pending.get(draft_id) if draft_id else None
        if raw is None:
            ack(response_action="errors", errors={"title": EXPIRED})
            return
        pending = json.loads(raw)
        if not fields["title"]:
            ack(response_action="errors", errors={"title": "A runbook needs a title."})
            return
        try:
            path = checked_path(fields["path"])
        except DraftInvalid as exc:
            ack(response_action="errors", errors={"path": exc.problems[0][:150]})
            return
        subject = replace(
            _subject_of(pending["subject"]),
            title=fields["title"],
            service=fields["service"] or None,
            owner=fields["owner"] or None,
        )
        messages = [ThreadMessage(**_tuples(m)) for m in pending["messages"]]
        draft = build_draft(messages, subject, today=self.ctx.today())
        problems = self._problems(draft.markdown, path)
        if problems:
            ack(response_action="errors", errors={"path": "; ".join(problems)[:150]})
            return
        if not self.ctx.dedup.first_time(f"draft:{draft_id}"):
            ack()
            return
        ack()
        user = str((body.get("user") or {}).get("id") or "")
        ready = ReadyDraft(
            title=subject.title,
            service=subject.service,
            path=path,
            markdown=draft.markdown,
            thread_url=subject.thread_url,
            requested_by=user,
            question=subject.question,
            requested_name=_user_name(self.ctx.client, user) if user else "",
        )
        logged = pending["origin"].get("logged") or subject.question
        self.ctx.submit(self._publish, ready, logged)

    def _publish(self, ready: ReadyDraft, logged: str | None) -> None:
        ctx = self.ctx
        try:
            published = self.tools.publisher().publish(ready)
        except DraftError as exc:
            log.warning("draft %s not published: %s", ready.path, exc)
            ctx.metrics.request(SURFACE, "error")
            ctx.sender.post(ready.requested_by, failed_message(ready.title, str(exc)))
            return
        self.tools.ledger.add(
            new_record(
                logged,
                ready.title,
                ready.service,
                published,
                ready.thread_url,
                hash_user(ready.requested_by, ctx.user_salt()),
            )
        )
        ctx.metrics.request(SURFACE, published.kind)
        if published.kind == "pull_request":
            ctx.sender.post(ready.requested_by, published_message(ready.title, published))


def send_file(ctx: SlackContext) -> Callable[[str, str, str, str], None]:
    """Sends a draft's file to a person in their direct messages with the bot."""

    def send(user_id: str, filename: str, content: str, comment: str) -> None:
        opened = ctx.client.conversations_open(users=user_id)
        channel = str((opened.get("channel") or {}).get("id") or "")
        ctx.client.files_upload_v2(
            channel=channel,
            filename=filename,
            content=content,
            title=filename,
            initial_comment=comment,
        )

    return send


# --------------------------------------------------------------------------- helpers


def _bot_user(ctx: SlackContext) -> str | None:
    try:
        return str(ctx.client.auth_test().get("user_id") or "") or None
    except SlackApiError:
        return None


def _user_name(client: Any, user_id: str) -> str:
    try:
        user = client.users_info(user=user_id).get("user") or {}
    except SlackApiError:
        return f"@{user_id}"
    profile = user.get("profile") or {}
    name = profile.get("display_name") or user.get("name") or user_id
    return f"@{name}"


def _label(alert: AlertFacts | None, key: str) -> str | None:
    return dict(alert.labels).get(key) if alert else None


def _channel_service(name: str | None, tools: DraftTools) -> str | None:
    if not name:
        return None
    known = sorted(tools.known_services(), key=len, reverse=True)
    return next((s for s in known if s in name), None)


def _first_line(thread: ReadThread) -> str:
    for m in thread.messages:
        for line in m.text.splitlines():
            if line.strip() and "```" not in line:
                return " ".join(line.split())[:80]
    return ""


def _subject_dict(subject: Subject) -> dict[str, Any]:
    return asdict(subject)


def _tuples(item: dict[str, Any]) -> dict[str, Any]:
    return {k: tuple(tuple(x) for x in v) if k == "mentions" else v for k, v in item.items()}


def _subject_of(data: dict[str, Any]) -> Subject:
    alert = data.get("alert")
    facts = (
        AlertFacts(**{**alert, "labels": tuple(tuple(x) for x in alert.get("labels") or ())})
        if alert
        else None
    )
    return Subject(**{**data, "alert": facts, "access": tuple(data.get("access") or ())})


def publish_to(settings: PublishSettings) -> str:
    if publisher_kind(settings) == "github":
        return f"opens a pull request in {settings.github_repo}"
    return "sends you the file in a direct message"


def service_owners(chunks: Any, service: str) -> str | None:
    """The owner most of a service's indexed runbooks name."""
    counts: dict[str, int] = {}
    seen: set[str] = set()
    for chunk in chunks:
        meta = chunk.metadata
        if chunk.source_id in seen or meta.service != service or not meta.owner:
            continue
        seen.add(chunk.source_id)
        counts[meta.owner] = counts.get(meta.owner, 0) + 1
    return max(counts, key=lambda o: counts[o]) if counts else None


def drafting_tools(
    bot: SlackBot, store: redis.Redis | None, directory: SlackUsergroupDirectory
) -> DraftTools:
    """The collaborators drafting runs on, from the running bot."""
    runtime = bot.runtime
    settings = PublishSettings.of(runtime.settings)
    ledger = DraftLedger(runtime.settings.data_dir)
    send = send_file(bot.context)

    def publisher() -> Publisher:
        return make_publisher(settings, send)

    return DraftTools(
        ledger=ledger,
        publisher=publisher,
        publish_to=lambda: publish_to(settings),
        ingest_options=runtime.ingest_options,
        service_owner=lambda service: service_owners(runtime.searcher.snapshot().chunks, service),
        known_services=bot._known_services,
        pending=TtlStore(store, "draft", runtime.settings.redis_namespace),
        groups_of=directory.groups_of,
        tracker=DraftTracker(ledger, publisher, files=runtime.settings.drafts_dir),
        restricted=lambda groups: _restricted(runtime.searcher.snapshot().chunks, groups),
    )


def _restricted(chunks: Any, groups: frozenset[str]) -> frozenset[str]:
    return restricted_lines(c.text for c in chunks if not groups & set(c.metadata.access))


__all__ = [
    "DraftTools",
    "Drafting",
    "draft_button",
    "drafting_tools",
    "resolved_offer",
    "send_file",
]
