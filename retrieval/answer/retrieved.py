"""What one search found for a question: the question as read, and the candidate
documents with the evidence that each answers it."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.models import Chunk, DocumentHits
from retrieval.answer.confidence import Evidence
from retrieval.reading import Question
from retrieval.search import Snapshot, Vectors

INACTIVE_STATUSES = frozenset({"superseded", "deprecated"})


def current(chunk: Chunk) -> bool:
    """Is the chunk's document neither superseded nor deprecated?"""
    return chunk.metadata.status not in INACTIVE_STATUSES


@dataclass(frozen=True)
class Candidate:
    doc: DocumentHits
    confidence: float
    evidence: Evidence
    named: bool = False  # the question names this document outright (its alert name)
    # the vector of its section closest to the question (None without the dense mirror)
    vector: Vectors | None = field(default=None, compare=False, repr=False)

    @property
    def coverage(self) -> float:
        return self.evidence.coverage

    @property
    def chunk(self) -> Chunk:
        return self.doc.best.chunk

    @property
    def active(self) -> bool:
        return current(self.chunk)


@dataclass(frozen=True)
class Retrieval:
    question: Question  # read once (:mod:`retrieval.reading.question`)
    generation: int
    vector: Vectors
    snapshot: Snapshot
    runbooks: tuple[Candidate, ...]
    incidents: tuple[Candidate, ...]
