"""The vector store as the query path sees it: opened only when something needs it.

Answering needs the published generation and its search snapshot. In embedded
mode the generation is in the store's marker file (:mod:`retrieval.search.store_marker`),
and a snapshot persisted for that generation and stamp answers every query on its
own, so a cold ``ask`` never opens the store (nor imports its client, which takes
longer than answering). The store is opened when a snapshot has to be built, when
there is no marker (a server, or a store never published to), or when a caller
asks for it (ingest). Once open in this process, the store itself is asked for
the generation: it is the source of truth, and a store that broke under a running
process shows as an error instead of answers from a marker.

The embedded store belongs to one process at a time (its client holds an exclusive
``flock`` on the store's ``.lock`` file). A long-running process that answers from
the snapshot takes that same lock without opening the store (:meth:`reserve`), and
hands it to the client when it does open it.
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from core.models import Chunk, SearchFilter
from retrieval.errors import IndexLockedError
from retrieval.search.embeddings import Vectors
from retrieval.search.store_marker import StoreMarker, read_store_marker

if TYPE_CHECKING:
    from typing import IO

    import numpy as np
    import numpy.typing as npt

    from retrieval.search.vector_index import QdrantVectorIndex

LOCK_FILE = ".lock"  # the embedded client's own lock file


class StoreHandle:
    def __init__(
        self,
        open_store: Callable[[], QdrantVectorIndex],
        marker_dir: Path | None,
        collection: str,
    ) -> None:
        """``marker_dir``: the embedded store's directory (None for a server)."""
        self._open_store = open_store
        self._marker_dir = marker_dir
        self._collection = collection
        self._store: QdrantVectorIndex | None = None
        self._reserved: IO[str] | None = None
        self._lock = threading.Lock()

    @property
    def opened(self) -> bool:
        return self._store is not None

    def store(self) -> QdrantVectorIndex:
        """The vector store, opened on first call."""
        with self._lock:
            if self._store is None:
                self._release()
                self._store = self._open_store()
            return self._store

    def reserve(self) -> None:
        """Hold the embedded store's lock without opening it; :class:`IndexLockedError`
        when another process holds it. Nothing to hold for a server or a store not
        created yet."""
        with self._lock:
            if self._store is not None or self._reserved is not None or self._marker_dir is None:
                return
            path = self._marker_dir / LOCK_FILE
            if not path.is_file():
                return
            f = path.open("r+")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                f.close()
                raise IndexLockedError.at(self._marker_dir) from exc
            self._reserved = f

    def release(self) -> None:
        """Let go of a lock taken by :meth:`reserve` (closing the store is the caller's)."""
        with self._lock:
            self._release()

    def _release(self) -> None:
        if self._reserved is not None:
            fcntl.flock(self._reserved, fcntl.LOCK_UN)
            self._reserved.close()
            self._reserved = None

    def _file_marker(self) -> StoreMarker | None:
        if self._store is not None or self._marker_dir is None:
            return None
        return read_store_marker(self._marker_dir, self._collection)

    def marker(self) -> StoreMarker:
        """The published generation and its stamp."""
        return self._file_marker() or self.store().marker()

    def generation(self) -> int:
        marker = self._file_marker()
        return marker.generation if marker is not None else self.store().generation()

    # -- reads that need the store itself -----------------------------------------

    def search(
        self, vector: Vectors, k: int, flt: SearchFilter | None, generation: int | None = None
    ) -> list[tuple[Chunk, float]]:
        return self.store().search(vector, k, flt, generation)

    def count_live(self) -> int:
        return self.store().count_live()

    def vectors_of(
        self, chunk_ids: Sequence[str], generation: int | None = None
    ) -> dict[str, Vectors]:
        return self.store().vectors_of(chunk_ids, generation)

    def live_chunks(self, generation: int | None = None) -> list[Chunk]:
        return self.store().live_chunks(generation)

    def live_points(
        self, generation: int | None = None
    ) -> tuple[list[Chunk], npt.NDArray[np.float32]]:
        return self.store().live_points(generation)

    def ping(self) -> bool:
        return self.store().ping()
