"""The dense mirror's product runs numpy's BLAS on one thread (see blas_threads)."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_info

from retrieval.search.blas_threads import one_blas_thread


def test_numpy_blas_runs_on_one_thread_and_scores_the_same() -> None:
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((3000, 384)).astype(np.float32)
    vector = rng.standard_normal(384).astype(np.float32)
    before = matrix @ vector
    one_blas_thread()
    one_blas_thread()  # once is enough; again does nothing
    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    assert blas and all(i["num_threads"] == 1 for i in blas)
    assert np.array_equal(matrix @ vector, before)
