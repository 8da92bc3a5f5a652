"""The pages: ask, search, the stale and gaps reports, and Sign in with Slack.

Every page is for one :class:`~bot.web.session.Viewer` and shows only what their scope may
read, resolved exactly as in Slack (:meth:`PermissionResolver.scope_for_user`: Slack user
groups mapped to access groups by the access map, explicit users, the default group).
Answers come from the same :class:`~bot.service.AnswerService` as Slack's (cache, query
log, warnings); search from the same searcher, filtered inside the search.

Questions never travel unredacted in a URL: the forms POST (with the session's CSRF
token) and are redirected to ``/ask?q=<redacted>``; a ``GET /ask`` whose question holds a
secret is redirected to the redacted one before anything is answered.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlencode

import jinja2
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from bot.drafts import DRAFTS_PATH, DraftTracker, gaps_with_drafts, stored_draft
from bot.example_question import example_question
from bot.logs import bind_request_id, new_request_id
from bot.metrics import Metrics
from bot.quote_layout import BEFORE_YOU_START, by_runbook, cut_note
from bot.reports import (
    GapGroup,
    GapReader,
    ReportRow,
    citation_counts,
    documents_from_chunks,
    gaps_report,
    stale_report,
)
from bot.service import AnswerService, Delivery
from bot.text import ALTERNATIVES
from bot.web import present
from bot.web.config import WebConfig
from bot.web.errors import FormError, SignInError
from bot.web.forms import read_form
from bot.web.hosts import AllowedHosts, page_hosts
from bot.web.links import ASK_PATH, RUNBOOK_PATH, clean_question, runbook_url, with_page_links
from bot.web.quote_html import markdown_html, quote_html
from bot.web.runbook_page import RunbookPage, runbook_page
from bot.web.session import (
    CSRF_FIELD,
    LOCAL_VIEWER,
    Viewer,
    begin_sign_in,
    csrf_ok,
    csrf_token,
    end_sign_in,
    local_path,
    session_middleware,
    sign_in_session,
    sign_out_session,
    signed_in,
)
from bot.web.signin import SlackSignIn
from core.heading_text import shown_section
from core.models import DocumentHits, DocumentMetadata, SearchFilter
from retrieval.answer import is_stale
from retrieval.errors import EmbeddingError, IndexUnavailableError
from retrieval.permissions import Scope, readable
from retrieval.reading import Reading
from retrieval.search import Snapshot
from state.querylog import QueryLogError, QueryLogReader
from state.web_sessions import WebSessionStore

log = logging.getLogger("runbook_bot.web")

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"

SEARCH_PATH = "/search"
STALE_PATH = "/reports/stale"
GAPS_PATH = "/reports/gaps"
LOGIN_PATH = "/auth/slack/login"
CALLBACK_PATH = "/auth/slack/callback"
LOGOUT_PATH = "/auth/logout"
FEEDBACK_PATH = "/feedback"
FEEDBACK_VALUES = ("helpful", "not_helpful")
_REQUEST_ID = re.compile(r"^r-[0-9a-f]{10}$")

SURFACE = "web"
LOCAL_USER = "web-local"  # the query log's user in local mode (hashed like any other)
MAX_SERVICE_CHARS = 100
MAX_QUESTION_CHARS = 2_000
SEARCH_RESULTS = 10
MAX_CITED = 10  # runbooks named in one feedback form
DOC_TYPES = ("runbook", "incident", "adr", "doc")
DEFAULT_WINDOW_DAYS = 30
MAX_WINDOW_DAYS = 365

#: Every page: no framing, no inline script, no caching of answers, no referrer to the
#: runbook host (a question sits in the page's URL).
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


class Searcher(Protocol):
    def search(
        self, query: str, k: int = 10, flt: SearchFilter | None = None
    ) -> list[DocumentHits]: ...

    def snapshot(self, generation: int | None = None) -> Snapshot: ...


@dataclass(frozen=True)
class SearchPage:
    query: str
    doc_type: str
    service: str
    results: Sequence[DocumentHits]
    services: Sequence[str]
    complete: bool
    read_as: tuple[tuple[str, str], ...] = ()  # typos and the words they were read as


@dataclass(frozen=True)
class StalePage:
    rows: Sequence[ReportRow]
    window_days: int
    counts_known: bool  # False: the query log could not be read
    documents: int

    @property
    def shared(self) -> dict[str, str]:
        """Problem kind -> the explanation every row of that kind gives (said once, above
        the table, when more than one row would repeat it)."""
        details: dict[str, set[str]] = {}
        counts: dict[str, int] = {}
        for r in self.rows:
            details.setdefault(r.kind, set()).add(r.detail)
            counts[r.kind] = counts.get(r.kind, 0) + 1
        return {k: d.pop() for k, d in details.items() if len(d) == 1 and counts[k] > 1}


@dataclass(frozen=True)
class GapsPage:
    groups: Sequence[GapGroup]
    window_days: int
    error: str | None = None


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(
        safe_url=present.safe_url,
        age_text=present.age_text,
        citation_label=present.citation_label,
        shown_section=shown_section,
        by_runbook=by_runbook,
        cut_note=cut_note,
        before_you_start=BEFORE_YOU_START,
        alternatives=ALTERNATIVES,
        quote_html=quote_html,
        markdown_html=markdown_html,
        runbook_url=runbook_url,
        warning_text=present.warning_text,
        reason_text=present.reason_text,
        headline=present.headline,
        best_guess=present.best_guess,
        hit_url=present.hit_url,
        hit_excerpt=present.hit_excerpt,
        hit_excerpt_html=present.hit_excerpt_html,
        emphasis=present.emphasis,
        days=present.days,
        gap_reason=present.gap_reason,
    )
    return env


def _window(raw: str | None) -> int:
    try:
        n = int(raw or DEFAULT_WINDOW_DAYS)
    except ValueError:
        return DEFAULT_WINDOW_DAYS
    return min(max(n, 1), MAX_WINDOW_DAYS)


def _search_params(params: Mapping[str, str]) -> tuple[str, str, str]:
    """(query, doc_type, service) of a search, from its address or its form, cleaned."""
    query = clean_question(params.get("q", ""))[:MAX_QUESTION_CHARS]
    doc_type = _one_of(params.get("doc_type"), DOC_TYPES)
    service = (params.get("service") or "").strip()[:MAX_SERVICE_CHARS]
    return query, doc_type, service


def _one_of(raw: str | None, allowed: Sequence[str]) -> str:
    return raw if raw is not None and raw in allowed else ""


class WebPages:
    """The web app's endpoints; :meth:`routes` lists them for the server."""

    def __init__(
        self,
        config: WebConfig,
        service: AnswerService,
        searcher: Searcher,
        query_log: QueryLogReader | None,
        sign_in: SlackSignIn | None = None,
        *,
        metrics: Metrics | None = None,
        today: Callable[[], date] = date.today,
        read: Callable[[str], Reading] | None = None,
        sessions: WebSessionStore | None = None,
        drafts: DraftTracker | None = None,
    ) -> None:
        """``sessions``: where sign-ins are kept on the server; without one no session can
        be checked, so signed-in pages show only what the default group may read."""
        if config.mode == "slack" and sign_in is None:
            raise ValueError("Sign in with Slack is configured but no SlackSignIn was given")
        self._sessions = sessions or WebSessionStore(None, config.session_max_age)
        self.config = config
        self._service = service
        self._searcher = searcher
        self._query_log = query_log
        self._sign_in = sign_in
        self._metrics = metrics
        self._today = today
        self._read = read  # a search query as the runbooks write it (names, typos)
        self._drafts = drafts  # runbook drafts: the gaps report's, and files handed over
        self._env = _environment()
        self._env.globals["is_stale"] = self._is_stale

    # ------------------------------------------------------------------ routing

    def routes(self) -> list[BaseRoute]:
        """The pages, each behind the host check (:mod:`bot.web.hosts`), then the session."""
        hosts = [Middleware(AllowedHosts, hosts=page_hosts(self.config))]
        sessions = [*hosts, session_middleware(self.config)]

        def page(path: str, endpoint: Callable[[Request], Any], methods: list[str]) -> Route:
            return Route(path, endpoint, methods=methods, middleware=sessions)

        return [
            page("/", self.home, ["GET"]),
            page(ASK_PATH, self.ask, ["GET"]),
            page(ASK_PATH, self.ask_form, ["POST"]),
            page(FEEDBACK_PATH, self.feedback, ["POST"]),
            page(SEARCH_PATH, self.search, ["GET"]),
            page(SEARCH_PATH, self.search_form, ["POST"]),
            page(STALE_PATH, self.stale, ["GET"]),
            page(GAPS_PATH, self.gaps, ["GET"]),
            page(RUNBOOK_PATH + "{source_id:path}", self.runbook, ["GET"]),
            page(DRAFTS_PATH + "{draft_id}", self.draft_file, ["GET"]),
            page(LOGIN_PATH, self.login, ["GET"]),
            page(CALLBACK_PATH, self.callback, ["GET"]),
            page(LOGOUT_PATH, self.logout, ["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static", middleware=hosts),
        ]

    # ------------------------------------------------------------------ helpers

    def _is_stale(self, meta: DocumentMetadata) -> bool:
        return is_stale(meta, self._today(), self.config.stale_after_days)

    async def viewer(self, request: Request) -> Viewer | None:
        """Who is looking: the local operator, or the person whose session this browser
        holds while the server still has it open (an ended one is forgotten here too)."""
        if self.config.mode == "local":
            return LOCAL_VIEWER
        if self.config.mode != "slack":
            return None
        viewer = signed_in(request)
        if viewer is None:
            return None
        found = await run_in_threadpool(self._sessions.find, viewer.session_id or "")
        if found == "unknown":
            return replace(viewer, checked=False)
        if found == "ended" or found.user_id != viewer.user_id:
            sign_out_session(request)
            return None
        return replace(viewer, signed_in_scope=found.scope_id)

    def scope(self, viewer: Viewer) -> Scope:
        """What ``viewer`` may read: as in Slack for a Slack user; the configured local
        groups (and the default group) in local mode; only the default group (an
        incomplete scope) for a session that could not be checked."""
        if viewer.scope is not None:
            return viewer.scope
        resolver = self._service.resolver
        if viewer.user_id is None:
            return resolver.scope_for_groups(self.config.local_groups)
        if not viewer.checked:
            return Scope(resolver.scope_for_groups(()).groups, complete=False)
        return resolver.scope_for_user(viewer.user_id)

    async def _access_changed(self, request: Request, viewer: Viewer) -> Viewer | None:
        """``viewer`` with their scope resolved, or None when the groups they read are not
        those they signed in with: every session of theirs is ended, and they sign in
        again."""
        scope = await run_in_threadpool(self.scope, viewer)
        if (
            viewer.user_id is None
            or not viewer.checked
            or not scope.complete
            or not viewer.signed_in_scope
            or scope.scope_id == viewer.signed_in_scope
        ):
            return replace(viewer, scope=scope)
        ended = await run_in_threadpool(self._sessions.end_all, viewer.user_id)
        sign_out_session(request)
        log.info("ended web sessions: access changed", extra={"surface": SURFACE, "ended": ended})
        return None

    def render(
        self,
        request: Request,
        template: str,
        *,
        status: int = 200,
        viewer: Viewer | None = None,
        nav: str = "",
        **context: Any,
    ) -> HTMLResponse:
        html = self._env.get_template(template).render(
            viewer=viewer,
            csrf=csrf_token(request) if viewer is not None else "",
            mode=self.config.mode,
            nav=nav,
            today=self._today(),
            page_base=str(request.base_url),
            **context,
        )
        return HTMLResponse(html, status, headers=PAGE_HEADERS)

    def message(
        self,
        request: Request,
        status: int,
        title: str,
        text: str,
        *,
        viewer: Viewer | None = None,
        retry: str | None = None,
    ) -> HTMLResponse:
        return self.render(
            request,
            "message.html",
            status=status,
            viewer=viewer,
            title=title,
            text=text,
            retry=retry,
        )

    def redirect(self, url: str) -> RedirectResponse:
        return RedirectResponse(url, 303, headers=PAGE_HEADERS)

    async def _gate(self, request: Request) -> Viewer | Response:
        """The viewer with their scope, or the response for someone who may not see pages
        (yet, or again)."""
        if self.config.mode == "off":
            return self.render(request, "setup.html", status=503)
        viewer = await self.viewer(request)
        if viewer is not None:
            viewer = await self._access_changed(request, viewer)
        if viewer is not None:
            return viewer
        # the page to come back to, with secrets redacted: it travels through the session
        # cookie and the address bar
        query = urlencode([(k, clean_question(v)) for k, v in request.query_params.multi_items()])
        target = request.url.path + (f"?{query}" if query else "")
        return self.redirect(f"{LOGIN_PATH}?{urlencode({'next': local_path(target)})}")

    async def _checked_form(self, request: Request, viewer: Viewer) -> dict[str, str] | Response:
        try:
            form = await read_form(request)
        except FormError as exc:
            log.warning("refused a form: %s", exc, extra={"status": exc.status})
            return self.message(request, exc.status, "Form not accepted", str(exc), viewer=viewer)
        if not csrf_ok(request, form.get(CSRF_FIELD)):
            log.warning("refused a form without a valid CSRF token", extra={"status": 403})
            return self.message(
                request,
                403,
                "Form expired",
                "This form came from an old or different page. Reload the page and try again.",
                viewer=viewer,
            )
        return form

    def _failed(
        self, request: Request, viewer: Viewer, request_id: str, exc: BaseException
    ) -> HTMLResponse:
        if isinstance(exc, IndexUnavailableError | TimeoutError):
            detail, stage = (
                "The runbook index is unavailable right now; try again shortly.",
                "search",
            )
        elif isinstance(exc, EmbeddingError):
            detail, stage = "The search model failed to run.", "embed"
        else:
            detail, stage = "Something went wrong.", "answer"
        if self._metrics is not None:
            self._metrics.error(stage)
        return self.message(
            request,
            503,
            "No answer this time",
            f"{detail} The on-call team can find request {request_id} in the logs.",
            viewer=viewer,
        )

    # ------------------------------------------------------------------ pages

    async def home(self, request: Request) -> Response:
        if self.config.mode == "off":
            return self.render(request, "setup.html", status=503)
        viewer = await self.viewer(request)
        if viewer is None:
            return self.render(request, "signin.html", next="/")
        example = await run_in_threadpool(self._example, viewer)
        return self.render(request, "home.html", viewer=viewer, nav="ask", q="", example=example)

    def _example(self, viewer: Viewer) -> str | None:
        """The ask box's example: from the runbooks the viewer may read."""
        try:
            chunks = self._searcher.snapshot().chunks
        except Exception as exc:  # the index is down: the box shows no example
            log.warning("no example question: %s", exc)
            return None
        return example_question(chunks, self.scope(viewer).groups)

    async def ask(self, request: Request) -> Response:
        gate = await self._gate(request)
        if not isinstance(gate, Viewer):
            return gate
        raw = request.query_params.get("q", "")
        question = clean_question(raw)[:MAX_QUESTION_CHARS]
        if not question:
            return self.redirect("/")
        if question != raw:  # a secret or stray spacing in the address: drop it first
            return self.redirect(f"{ASK_PATH}?{urlencode({'q': question})}")
        request_id = new_request_id()
        try:
            delivery = await run_in_threadpool(self._answer, gate, question, request_id)
        except Exception as exc:
            log.exception("answering on the web failed", extra={"request_id": request_id})
            return self._failed(request, gate, request_id, exc)
        if self._metrics is not None:
            self._metrics.request(SURFACE, delivery.public.state)
        return self.render(
            request,
            "ask.html",
            viewer=gate,
            nav="ask",
            q=question,
            answer=with_page_links(delivery.public, str(request.base_url)),
            delivery=delivery,
        )

    def _answer(self, viewer: Viewer, question: str, request_id: str) -> Delivery:
        with bind_request_id(request_id):
            return self._service.ask(
                question,
                request_id,
                asker=self.scope(viewer),
                user_id=viewer.user_id or "web-local",
            )

    async def ask_form(self, request: Request) -> Response:
        gate = await self._gate(request)
        if not isinstance(gate, Viewer):
            return gate
        form = await self._checked_form(request, gate)
        if not isinstance(form, dict):
            return form
        question = clean_question(form.get("q", ""))[:MAX_QUESTION_CHARS]
        if not question:
            return self.redirect("/")
        return self.redirect(f"{ASK_PATH}?{urlencode({'q': question})}")

    async def feedback(self, request: Request) -> Response:
        """ "Helpful" / "Not helpful" under a web answer: into the feedback store the Slack
        buttons write, with the cited runbooks (and their access, from the index) that the
        viewer may read."""
        gate = await self._gate(request)
        if not isinstance(gate, Viewer):
            return gate
        form = await self._checked_form(request, gate)
        if not isinstance(form, dict):
            return form
        value = form.get("value", "")
        request_id = form.get("request_id", "")
        question = clean_question(form.get("q", ""))[:MAX_QUESTION_CHARS]
        if value not in FEEDBACK_VALUES or not _REQUEST_ID.match(request_id) or not question:
            return self.message(
                request,
                400,
                "Feedback not recorded",
                "This feedback form is incomplete.",
                viewer=gate,
            )
        cited = [s for s in form.get("cited", "").split() if s][:MAX_CITED]
        await run_in_threadpool(self._feedback, gate, request_id, value, question, cited)
        if self._metrics is not None:
            self._metrics.feedback(value)
        word = "helpful" if value == "helpful" else "not helpful"
        return self.render(
            request,
            "message.html",
            viewer=gate,
            title="Thanks for the feedback",
            text=f"Recorded as {word}: it helps the runbook owners see what to fix.",
            retry=None,
            back=f"{ASK_PATH}?{urlencode({'q': question})}",
        )

    def _feedback(
        self, viewer: Viewer, request_id: str, value: str, question: str, cited: Sequence[str]
    ) -> None:
        groups = self.scope(viewer).groups
        access: dict[str, tuple[str, ...]] = {}
        wanted = set(cited)
        for c in self._searcher.snapshot().chunks:
            if c.source_id in wanted and c.source_id not in access and readable(c, groups):
                access[c.source_id] = c.metadata.access
        service = next(
            (c.metadata.service for c in self._searcher.snapshot().chunks if c.source_id in access),
            None,
        )
        self._service.record_feedback(
            request_id,
            "helpful" if value == "helpful" else "not_helpful",
            user_id=viewer.user_id or LOCAL_USER,
            question=question,
            service=service,
            cited_access={s: access[s] for s in cited if s in access},
        )

    async def search(self, request: Request) -> Response:
        gate = await self._gate(request)
        if not isinstance(gate, Viewer):
            return gate
        raw = request.query_params.get("q", "")
        query, doc_type, service = _search_params(request.query_params)
        if query != raw:
            return self.redirect(self._search_url(query, doc_type, service))
        request_id = new_request_id()
        try:
            found = await run_in_threadpool(self._search, gate, query, doc_type, service)
        except Exception as exc:
            log.exception("searching on the web failed", extra={"request_id": request_id})
            return self._failed(request, gate, request_id, exc)
        return self.render(request, "search.html", viewer=gate, nav="search", page=found)

    def _search(self, viewer: Viewer, query: str, doc_type: str, service: str) -> SearchPage:
        scope = self.scope(viewer)
        allowed = [c for c in self._searcher.snapshot().chunks if readable(c, scope.groups)]
        services = sorted({c.metadata.service for c in allowed if c.metadata.service})
        if service not in services:
            service = ""
        results: list[DocumentHits] = []
        reading = Reading(query)
        if query:
            flt = SearchFilter(
                groups=tuple(sorted(scope.groups)),
                doc_types=(doc_type,) if doc_type else None,
                services=(service,) if service else None,
            )
            if self._read is not None:
                reading = self._read(query)
            results = self._searcher.search(reading.text, SEARCH_RESULTS, flt)
        return SearchPage(
            query, doc_type, service, results, services, scope.complete, reading.read_as
        )

    def _search_url(self, query: str, doc_type: str, service: str) -> str:
        params = {"q": query, "doc_type": doc_type, "service": service}
        return f"{SEARCH_PATH}?{urlencode({k: v for k, v in params.items() if v})}"

    async def search_form(self, request: Request) -> Response:
        gate = await self._gate(request)
        if not isinstance(gate, Viewer):
            return gate
        form = await self._checked_form(request, gate)
        if not isinstance(form, dict):
            return form
        return self.redirect(self._search_url(*_search_params(form)))

    async def stale(self, request: Request) -> Response:
        gate = await self._gate(request)
        if not isinstance(gate, Viewer):
            return gate
        window = _window(request.query_params.get("days"))
        request_id = new_request_id()
        try:
            page = await run_in_threadpool(self._stale, gate, window)
        except Exception as exc:
            log.exception("the stale report failed", extra={"request_id": request_id})
            return self._failed(request, gate, request_id, exc)
        return self.render(request, "stale.html", viewer=gate, nav="stale", page=page)

    def _stale(self, viewer: Viewer, window: int) -> StalePage:
        scope = self.scope(viewer)
        docs = [
            d
            for d in documents_from_chunks(self._searcher.snapshot().chunks)
            if scope.groups & set(d.access)
        ]
        counts: Mapping[str, int] | None = None
        if self._query_log is not None:
            try:
                counts = citation_counts(self._query_log.recent(window))
            except QueryLogError as exc:
                log.warning("stale report without citation counts: %s", exc)
        rows = stale_report(docs, self._today(), self.config.stale_after_days, counts)
        return StalePage(rows, window, counts is not None, len(docs))

    async def gaps(self, request: Request) -> Response:
        gate = await self._gate(request)
        if not isinstance(gate, Viewer):
            return gate
        window = _window(request.query_params.get("days"))
        allowed = self.config.report_groups
        if allowed:
            scope = await run_in_threadpool(self.scope, gate)
            if not scope.groups & set(allowed):
                return self.message(
                    request,
                    403,
                    "Not for your groups",
                    "The report of unanswered questions is for runbook owners: "
                    f"members of {', '.join(allowed)}.",
                    viewer=gate,
                )
        page = await run_in_threadpool(self._gaps, gate, window)
        return self.render(request, "gaps.html", viewer=gate, nav="gaps", page=page)

    def _gaps(self, viewer: Viewer, window: int) -> GapsPage:
        """The rows ``viewer`` may read: none that stem from a runbook they may not."""
        if self._query_log is None:
            return GapsPage((), window, "The query log is not available.")
        try:
            records = self._query_log.recent(window)
            feedback = self._query_log.recent_feedback(window)
        except QueryLogError as exc:
            log.warning("gaps report failed: %s", exc)
            return GapsPage((), window, "The query log could not be read right now.")
        chunks = self._searcher.snapshot().chunks
        reader = GapReader.of(self.scope(viewer).groups, chunks)
        groups = gaps_report(records, feedback, reader=reader)
        if self._drafts is not None:
            groups = gaps_with_drafts(groups, self._drafts, lambda: chunks)
        return GapsPage(groups, window)

    async def draft_file(self, request: Request) -> Response:
        """A runbook draft handed over as a file (its link was sent to the person)."""
        gate = await self._gate(request)
        if isinstance(gate, Response):
            return gate
        folder = self._drafts.files if self._drafts is not None else None
        text = stored_draft(folder, request.path_params["draft_id"]) if folder else None
        if text is None:
            return self.message(request, 404, "Not found", "There is no such draft.")
        return Response(
            text,
            media_type="text/markdown; charset=utf-8",
            headers={"Content-Disposition": "attachment; filename=runbook-draft.md"},
        )

    async def runbook(self, request: Request) -> Response:
        gate = await self._gate(request)
        if not isinstance(gate, Viewer):
            return gate
        source_id = request.path_params["source_id"]
        request_id = new_request_id()
        try:
            page = await run_in_threadpool(self._runbook, gate, source_id)
        except Exception as exc:
            log.exception("the runbook page failed", extra={"request_id": request_id})
            return self._failed(request, gate, request_id, exc)
        if page is None:  # the same for a runbook that is not there and one not theirs
            return self.message(
                request,
                404,
                "No such runbook",
                "No runbook you may read is at this address: it may have been renamed, "
                "removed or restricted. Search the runbooks for it.",
                viewer=gate,
            )
        return self.render(request, "runbook.html", viewer=gate, nav="", page=page)

    def _runbook(self, viewer: Viewer, source_id: str) -> RunbookPage | None:
        """The runbook ``source_id`` as ``viewer`` may read it, None when they may not (or
        it is not indexed)."""
        groups = self.scope(viewer).groups
        chunks = self._searcher.snapshot().chunks_by_source.get(source_id, [])
        if not chunks or not all(readable(c, groups) for c in chunks):
            return None
        return runbook_page(chunks, self._is_stale, self._today())

    # ------------------------------------------------------------------ sign-in

    async def login(self, request: Request) -> Response:
        if self._sign_in is None:
            return self.message(request, 404, "Not found", "Sign-in is not used here.")
        next_path = local_path(request.query_params.get("next"))
        if await self.viewer(request) is not None:
            return self.redirect(next_path)
        state, url = await run_in_threadpool(self._sign_in.start)
        begin_sign_in(request, state, next_path)
        return self.redirect(url)

    async def callback(self, request: Request) -> Response:
        if self._sign_in is None:
            return self.message(request, 404, "Not found", "Sign-in is not used here.")
        params = request.query_params
        state = params.get("state")
        matches, next_path = end_sign_in(request, state)
        retry = f"{LOGIN_PATH}?{urlencode({'next': next_path})}"
        if params.get("error"):
            return self.message(
                request, 400, "Not signed in", "The sign-in was cancelled in Slack.", retry=retry
            )
        if not matches:
            log.warning(
                "refused a sign-in whose state is not this browser's", extra={"status": 400}
            )
            return self.message(
                request,
                400,
                "Not signed in",
                "This sign-in was started in another browser or has expired.",
                retry=retry,
            )
        try:
            identity = await run_in_threadpool(
                self._sign_in.finish, params.get("code") or "", state or ""
            )
        except SignInError as exc:
            return self.message(request, 403, "Not signed in", str(exc), retry=retry)
        scope = await run_in_threadpool(self._service.resolver.scope_for_user, identity.user_id)
        session_id = await run_in_threadpool(
            self._sessions.start, identity.user_id, scope.scope_id if scope.complete else ""
        )
        sign_in_session(request, identity.user_id, identity.team_id, identity.name, session_id)
        log.info("signed in on the web", extra={"surface": SURFACE})
        return self.redirect(next_path)

    async def logout(self, request: Request) -> Response:
        viewer = await self.viewer(request)
        if viewer is None or viewer.local:
            return self.redirect("/")
        form = await self._checked_form(request, viewer)
        if not isinstance(form, dict):
            return form
        if viewer.session_id:
            await run_in_threadpool(self._sessions.end, viewer.session_id)
        sign_out_session(request)
        return self.redirect("/")
