"""Search over the index: embeddings, the vector and keyword indexes, the per-generation
snapshot, HyDE, and the hybrid searcher that fuses them.

It reads questions with :mod:`retrieval.reading` and knows nothing of answers. What other
packages use is listed in ``__all__``; the Qdrant client loads only when the vector index is
first asked for, so a cold ``ask`` in embedded mode never imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from retrieval.search.embeddings import Embedder, FastEmbedder, Vectors
from retrieval.search.fusion import DEFAULT_RRF_K
from retrieval.search.hybrid import HybridSearcher, SearchConfig, group_by_document
from retrieval.search.hyde import HydeQuery
from retrieval.search.link_pages import mostly_links
from retrieval.search.site_pages import SCHEME, SitePages
from retrieval.search.snapshot import Snapshot, SnapshotCache
from retrieval.search.spans import section_text
from retrieval.search.store_handle import StoreHandle
from retrieval.search.store_marker import StoreMarker, read_store_marker
from retrieval.search.template_headings import heading_key
from retrieval.search.template_text import filler_key

if TYPE_CHECKING:
    from retrieval.search.vector_index import QdrantVectorIndex, open_client

__all__ = [
    "DEFAULT_RRF_K",
    "SCHEME",
    "Embedder",
    "FastEmbedder",
    "HybridSearcher",
    "HydeQuery",
    "QdrantVectorIndex",
    "SearchConfig",
    "SitePages",
    "Snapshot",
    "SnapshotCache",
    "StoreHandle",
    "StoreMarker",
    "Vectors",
    "filler_key",
    "group_by_document",
    "heading_key",
    "mostly_links",
    "open_client",
    "read_store_marker",
    "section_text",
]

# heavy on import: loaded when first asked for
_LAZY = {
    "QdrantVectorIndex": "vector_index",
    "open_client": "vector_index",
}


def __getattr__(name: str) -> Any:
    """A name of ``_LAZY``, imported from its module on first use."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
