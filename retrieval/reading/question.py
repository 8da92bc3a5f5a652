"""The question, read once: one value built when a question enters retrieval and kept
on what the search found, so that nothing downstream parses the text again.

What depends on the index (the terms in the runbooks' spelling, the names the question
gives, the words no runbook writes) is read by the searcher when it builds the value;
what the words ask for (intent, the detail, the operation, the states reported fine) is
read from the text the first time it is wanted, and kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from retrieval.reading.asked_detail import Detail, asked_detail
from retrieval.reading.asked_operation import asked_operations
from retrieval.reading.intent import (
    Intent,
    asking_words,
    asks_about_past,
    asks_where_to_start,
    question_intent,
    says_what_to_do,
)


@dataclass(frozen=True)
class Question:
    """A question as typed and as read.

    ``text`` is as typed (links dropped, the glossary applied); ``query`` is as read:
    names in the runbooks' spelling, typos corrected. ``terms`` are its search terms
    with the runbooks' long forms of its shorthand; ``unknown`` the names it gives that
    no runbook writes; ``everyday`` its words the runbooks never use, that no runbook
    needs to; ``names`` the normalized names it gives (alert names, a pinned link's
    anchor); ``anchor`` that link's ``#anchor`` as written; ``read_as`` each typo or
    name as typed and as read; ``not_tools`` the words it puts before "command" that
    name no tool of these runbooks: ordinary words their code never writes."""

    text: str
    query: str = ""
    terms: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    everyday: frozenset[str] = field(default=frozenset())
    names: frozenset[str] = field(default=frozenset())
    anchor: str | None = None
    read_as: tuple[tuple[str, str], ...] = ()
    # words it puts before "command" that name no tool here (a "migration command")
    not_tools: frozenset[str] = field(default=frozenset())

    def __str__(self) -> str:
        return self.text

    @cached_property
    def intent(self) -> Intent:
        """What kind of answer it asks for (:mod:`retrieval.reading.intent`)."""
        return question_intent(self.text)

    @cached_property
    def detail(self) -> Detail | None:
        """The command or value it asks to see."""
        return asked_detail(self.text, self.not_tools)

    @cached_property
    def operations(self) -> frozenset[str]:
        """The operations it asks for ("upgrade" of "how do i upgrade the operator")."""
        return asked_operations(self.text)

    @cached_property
    def what_to_do(self) -> bool:
        """It asks what to do, and nothing else the runbook explains."""
        return self.intent == "act" and says_what_to_do(self.text)

    @cached_property
    def where_to_start(self) -> bool:
        return asks_where_to_start(self.text)

    @cached_property
    def about_past(self) -> bool:
        """It asks what happened in an earlier incident."""
        return asks_about_past(self.text)

    @cached_property
    def asking_words(self) -> frozenset[str]:
        """Its words that only say what kind of answer is wanted ("bad" of "how bad")."""
        return asking_words(self.text)
