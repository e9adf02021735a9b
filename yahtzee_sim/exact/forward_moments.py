"""What the exact evaluator's forward pass accumulates: reach probabilities, partial moments
and the per-box and bonus statistics (:class:`Moments`), added to by
:func:`yahtzee_sim._core.exact.forward_level`."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Moments(NamedTuple):
    """What the forward pass accumulates: per state the reach probability ``A`` and the
    partial moments ``B = E[score; at s]``, ``S2 = E[score^2; at s]``; per box the
    expected points, P(zero) and fill turn; ``stats`` = (P(upper bonus), expected
    Yahtzee bonuses)."""

    A: np.ndarray
    B: np.ndarray
    S2: np.ndarray
    cat_sum: np.ndarray
    cat_zero: np.ndarray
    cat_turn: np.ndarray
    stats: np.ndarray


def new_moments(n_states: int, n_boxes: int) -> Moments:
    """Zero moments, with the start state reached for sure."""
    m = Moments(*(np.zeros(n) for n in (n_states,) * 3 + (n_boxes,) * 3 + (2,)))
    m.A[0] = 1.0
    return m


def kernel_array(a, dtype) -> np.ndarray:
    """``a`` as a C-contiguous array of ``dtype``, the kernels' decision types (keeps int16,
    boxes int8), without a copy when it already is one.

    Raises
    ------
    ValueError
        If ``a`` holds a value that ``dtype`` cannot hold.
    """
    a = np.asarray(a)
    if a.dtype == dtype and a.flags.c_contiguous:
        return a
    b = np.ascontiguousarray(a, dtype=dtype)
    if not np.array_equal(b, a):
        raise ValueError(f"decision tables must hold values that fit {np.dtype(dtype)}")
    return b
