"""Reading the question: tokens and names, spelling, the glossary and alert text, intent,
the detail or operation asked for, and what leads an answer given where it was asked.

The lowest room of retrieval: it imports neither search nor answer. What other packages
use is listed in ``__all__``.
"""

from __future__ import annotations

from retrieval.reading.asked_detail import (
    Detail,
    asked_detail,
    asked_tool,
    asks_for_command,
    code_of,
    written_in_code,
)
from retrieval.reading.asked_operation import asked_operations, check_task
from retrieval.reading.evidence import TermStats, coverage, query_terms, unknown_entities
from retrieval.reading.follow_ups import FollowUp, follow_up
from retrieval.reading.intent import (
    WANTED,
    Intent,
    SectionKind,
    asking_words,
    asks_about_past,
    asks_what_to_do,
    asks_where_to_start,
    heading_kinds,
    intent_match,
    question_intent,
    spells_the_rule,
)
from retrieval.reading.leading import AskContext, is_pasted_alert, leads_with_action
from retrieval.reading.lexicon import (
    Lexicon,
    inflected_words,
    spelled_words,
    with_long_forms,
    written_in,
)
from retrieval.reading.names import (
    ALERT_WORDS,
    as_titled,
    as_written,
    document_names,
    naming_terms,
    only_names,
    query_names,
    written_as_name,
    written_names,
)
from retrieval.reading.query import (
    AlertContext,
    Glossary,
    build_query,
    drop_links,
    load_glossary,
    parse_alert_text,
)
from retrieval.reading.question import Question
from retrieval.reading.spelling import Reading, corrected, typo_targets
from retrieval.reading.team_words import TeamWords, WordsFileError, load_team_words
from retrieval.reading.tokenize import TOKENIZER_VERSION, tokenize

__all__ = [
    "ALERT_WORDS",
    "TOKENIZER_VERSION",
    "WANTED",
    "AlertContext",
    "AskContext",
    "Detail",
    "FollowUp",
    "Glossary",
    "Intent",
    "Lexicon",
    "Question",
    "Reading",
    "SectionKind",
    "TeamWords",
    "TermStats",
    "WordsFileError",
    "as_titled",
    "as_written",
    "asked_detail",
    "asked_operations",
    "asked_tool",
    "asking_words",
    "asks_about_past",
    "asks_for_command",
    "asks_what_to_do",
    "asks_where_to_start",
    "build_query",
    "check_task",
    "code_of",
    "corrected",
    "coverage",
    "document_names",
    "drop_links",
    "follow_up",
    "heading_kinds",
    "inflected_words",
    "intent_match",
    "is_pasted_alert",
    "leads_with_action",
    "load_glossary",
    "load_team_words",
    "naming_terms",
    "only_names",
    "parse_alert_text",
    "query_names",
    "query_terms",
    "question_intent",
    "spelled_words",
    "spells_the_rule",
    "tokenize",
    "typo_targets",
    "unknown_entities",
    "with_long_forms",
    "written_as_name",
    "written_in",
    "written_in_code",
    "written_names",
]
