"""Finding runbook sections and answering from them, in three rooms that stand on one another.

* :mod:`retrieval.reading`: the question (tokens, names, spelling, intent, what it asks for);
* :mod:`retrieval.search`: embeddings, the vector and keyword indexes, the snapshot, fusion;
* :mod:`retrieval.answer`: parts, quotes, citations, confidence, tiers, the answerers.

Each room's ``__init__`` is its face: ``__all__`` lists what other packages use, and bot and
ingest import retrieval only through the faces, :mod:`retrieval.errors` and
:mod:`retrieval.permissions` (tests/test_import_direction.py). This module imports nothing,
so importing an error class stays cheap.
"""
