"""Composing the answer: a runbook's parts and their ranking, quotes and citations, the
signals, confidence and its calibration, the tiers below a sure answer, disclosure to an
audience, evaluation and the LLM answerer.

It stands on :mod:`retrieval.search` and :mod:`retrieval.reading`. What other packages use
is listed in ``__all__``; the OpenAI client loads only when the LLM answerer is first asked
for, so answering without an LLM never imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from retrieval.answer.answer_config import AnswerConfig
from retrieval.answer.answerer import Answerer, ExtractiveAnswerer
from retrieval.answer.calibration import Sample, fit
from retrieval.answer.citations import chunk_url, search_link
from retrieval.answer.confidence import ConfidenceModel
from retrieval.answer.disclosure import Disclosure, DocumentLookup, for_audience, snapshot_lookup
from retrieval.answer.doc_warnings import is_stale, stale_limit
from retrieval.answer.evaluation import (
    CitedSpan,
    Metrics,
    Outcome,
    Question,
    compute,
    judge_sections,
    load_questions,
)
from retrieval.answer.not_answered import REASON_TEXT
from retrieval.answer.outline import document_parts
from retrieval.answer.part_ranking import SectionWeights
from retrieval.answer.relevance import Pair, Relevance, RelevanceFit, product
from retrieval.answer.runbook_match import RunbookMatch, RunbookMatcher
from retrieval.answer.runbook_sections import RunbookSections, citation_kinds
from retrieval.answer.signals import signal
from retrieval.answer.stubs import stub

if TYPE_CHECKING:
    from retrieval.answer.llm_answerer import LLMAnswerer, build_openai_client

__all__ = [
    "REASON_TEXT",
    "AnswerConfig",
    "Answerer",
    "CitedSpan",
    "ConfidenceModel",
    "Disclosure",
    "DocumentLookup",
    "ExtractiveAnswerer",
    "LLMAnswerer",
    "Metrics",
    "Outcome",
    "Pair",
    "Question",
    "Relevance",
    "RelevanceFit",
    "RunbookMatch",
    "RunbookMatcher",
    "RunbookSections",
    "Sample",
    "SectionWeights",
    "build_openai_client",
    "chunk_url",
    "citation_kinds",
    "compute",
    "document_parts",
    "fit",
    "for_audience",
    "is_stale",
    "judge_sections",
    "load_questions",
    "product",
    "search_link",
    "signal",
    "snapshot_lookup",
    "stale_limit",
    "stub",
]

# heavy on import: loaded when first asked for
_LAZY = {
    "LLMAnswerer": "llm_answerer",
    "build_openai_client": "llm_answerer",
}


def __getattr__(name: str) -> Any:
    """A name of ``_LAZY``, imported from its module on first use."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
