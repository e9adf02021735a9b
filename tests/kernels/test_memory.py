"""Large work arrays come in huge pages where the system has them, and behave as any
array."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim._kernels.memory import HUGE_PAGE_BYTES, large_empty


@pytest.mark.parametrize("size", [0, 10, HUGE_PAGE_BYTES // 8 + 3])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_large_empty_is_a_writable_array_of_the_size_asked(size, dtype):
    a = large_empty(size, dtype)
    assert a.shape == (size,) and a.dtype == dtype and a.flags.writeable
    a[:] = np.arange(size, dtype=dtype)
    view = a[: size - size % 2].reshape(-1, 2) if size else a
    assert np.array_equal(view.ravel(), np.arange(view.size, dtype=dtype))
    assert a.astype(np.float64).sum() == float(np.arange(size).sum())


def test_large_empty_falls_back_to_numpy_without_huge_pages(monkeypatch):
    import mmap

    monkeypatch.delattr(mmap, "MADV_HUGEPAGE", raising=False)
    a = large_empty(HUGE_PAGE_BYTES, np.float64)
    assert a.shape == (HUGE_PAGE_BYTES,) and a.base is None  # np.empty's own memory
