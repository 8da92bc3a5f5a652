"""numpy's BLAS on one thread, for the dense mirror's matrix-vector product.

A search over the dense mirror is one product of the vector matrix with the query
vector: memory-bound, well under a millisecond at 10k chunks on one core. OpenBLAS runs
it on every core and its worker threads then spin, waiting for more work, for a while
after each call; onnxruntime, embedding the next question, finds those cores taken,
and a query embedding inside an ask took twice as long as the same embedding back to
back. One thread gives the same scores, bit for bit: each score is one row's dot
product, whichever thread computes it. The limit is per process and lasts (via
``threadpoolctl``, which finds the BLAS library numpy loaded).
"""

from __future__ import annotations

import threading

_lock = threading.Lock()
_limited = False


def one_blas_thread() -> None:
    """Limit numpy's BLAS to one thread in this process (once; later calls do nothing)."""
    global _limited
    with _lock:
        if _limited:
            return
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")
        _limited = True
