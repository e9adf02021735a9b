"""Prefetching in the need-lane kernels: the hint compiles, changes no value, and asks
for exactly the table entries the box-value fill reads. Large work arrays come in huge
pages where the system has them, and behave as any array."""

from __future__ import annotations

import platform

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from numba.core.errors import TypingError

from yahtzee_sim._kernels.lanes import need_row_lanes, row_span
from yahtzee_sim._kernels.memory import HUGE_PAGE_BYTES, large_empty, prefetch


@njit
def _sum_with_prefetch(a, ahead):
    total = 0.0
    for i in range(a.shape[0]):
        prefetch(a, min(i + ahead, a.shape[0] - 1))
        total += a[i]
    return total


@njit
def _prefetch_matrix(m):
    prefetch(m, 0)


def test_prefetch_changes_no_value():
    a = np.random.default_rng(1).random(10_000)
    total = 0.0
    for x in a:  # the same sum in the same order, without the hints
        total += x
    assert _sum_with_prefetch(a, 64) == total
    ints = np.arange(100, dtype=np.int16)
    prefetch_int = njit(lambda x: prefetch(x, 3))
    prefetch_int(ints)
    assert np.array_equal(ints, np.arange(100, dtype=np.int16))


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86-64 instruction name")
def test_prefetch_emits_the_instruction():
    a = np.zeros(10)
    _sum_with_prefetch(a, 8)
    asm = _sum_with_prefetch.inspect_asm(_sum_with_prefetch.signatures[0])
    assert "prefetch" in asm


def test_prefetch_wants_a_1d_array():
    with pytest.raises(TypingError):
        _prefetch_matrix(np.zeros((2, 2)))


@njit
def _read_lanes(V, offset, first, length, lo, nu):
    val = np.empty((1, nu))
    need_row_lanes(val, 0, V, offset, first, length, lo, nu, -1.0, -2.0)
    return val[0]


@settings(max_examples=300, deadline=None)
@given(
    first=st.integers(0, 20),
    length=st.integers(1, 30),
    lo=st.integers(-40, 60),
    nu=st.integers(1, 40),
    offset=st.integers(0, 5),
)
def test_row_span_is_what_the_fill_reads(first, length, lo, nu, offset):
    """The entries a prefetch asks for (``row_span``) are exactly the row entries
    ``need_row_lanes`` reads for lanes ``lo .. lo + nu - 1``: none missed, none extra."""
    V = np.arange(offset + length, dtype=np.float64)  # entry i holds i
    got = _read_lanes(V, offset, first, length, lo, nu)
    read = sorted(int(v) - offset for v in got if v >= 0)
    a, b = row_span.py_func(first, length, lo, lo + nu - 1)
    assert read == list(range(a, b + 1))


@pytest.mark.parametrize("size", [0, 10, HUGE_PAGE_BYTES // 8 + 3])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_large_empty_is_a_writable_array_of_the_size_asked(size, dtype):
    a = large_empty(size, dtype)
    assert a.shape == (size,) and a.dtype == dtype and a.flags.writeable
    a[:] = np.arange(size, dtype=dtype)
    view = a[: size - size % 2].reshape(-1, 2) if size else a
    assert np.array_equal(view.ravel(), np.arange(view.size, dtype=dtype))
    assert _sum_with_prefetch(a.astype(np.float64), 8) == float(np.arange(size).sum())


def test_large_empty_falls_back_to_numpy_without_huge_pages(monkeypatch):
    import mmap

    monkeypatch.delattr(mmap, "MADV_HUGEPAGE", raising=False)
    a = large_empty(HUGE_PAGE_BYTES, np.float64)
    assert a.shape == (HUGE_PAGE_BYTES,) and a.base is None  # np.empty's own memory
