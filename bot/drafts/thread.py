"""A thread as the drafts builder reads it: who said what, where, in order."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ThreadMessage:
    """One message of the thread, already limited to what the person drafting may see."""

    ts: str
    author: str  # how the author is named in the draft ("@alice"), "" for an integration
    text: str  # what the message says, Slack markup already made plain
    link: str | None = None  # the message's permalink
    integration: bool = False  # posted by an app (an alert), not typed by a person
    edited: bool = False
    # (label, kind) of each person ("person") or user group ("group") it pulled in
    mentions: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class AlertFacts:
    """The alert the thread is about, from its notification."""

    name: str
    status: str = ""  # "firing", "resolved", ...
    text: str = ""  # the notification's headline and summary
    labels: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Subject:
    """What the draft is about and what its front matter says."""

    title: str
    service: str | None = None
    owner: str | None = None
    alert: AlertFacts | None = None
    access: tuple[str, ...] = ()  # empty: readable by the default group
    thread_url: str | None = None
    review_every: str = "90d"
    question: str | None = None  # the unanswered question the draft answers
