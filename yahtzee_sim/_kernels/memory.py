"""Memory for the kernels' large work arrays.

:func:`large_empty` allocates a large work array in huge pages where the system offers
them (Linux with transparent huge pages on ``madvise``): the first write to each 2 MB
then costs one page fault instead of 512, which on a virtual machine is most of the
time a kernel spends filling a fresh array of hundreds of MB.
"""

from __future__ import annotations

import mmap

import numpy as np

#: Arrays smaller than this come from ``np.empty`` (huge pages are 2 MB).
HUGE_PAGE_BYTES = 2 << 20


def large_empty(size: int, dtype=np.float64) -> np.ndarray:
    """An uninitialized 1-d array of ``size`` items, in huge pages when it is large and
    the system supports them (else from ``np.empty``)."""
    dtype = np.dtype(dtype)
    nbytes = size * dtype.itemsize
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if nbytes < HUGE_PAGE_BYTES or advice is None:
        return np.empty(size, dtype=dtype)
    try:
        buf = mmap.mmap(-1, nbytes)
        buf.madvise(advice)
    except (OSError, ValueError):
        return np.empty(size, dtype=dtype)
    return np.frombuffer(buf, dtype=dtype, count=size)
