"""Work buffers of widget runs: scratch and recording arrays, allocated once, viewed per run.

Flat in ``_kernels/``: the kernel cache keys each kernel on this folder's files (see ``__init__``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

#: Parallel kernels allocate work buffers once per chunk of states, not per state.
MAX_CHUNKS = 64


class Work(NamedTuple):
    """Scratch and recording buffers of one widget run (flat; viewed per ``nu``)."""

    W: np.ndarray  # keeps x lanes: values
    A: np.ndarray  # keeps x lanes: best sub-keep (int32)
    val: np.ndarray  # box slots x (lanes + Yahtzee bonus): value of each (box, points)
    val_bonus: np.ndarray  # the same after a bonus Yahtzee (bonus limit; caller-valued lanes)
    slots: np.ndarray  # boxes: one roll's slot per box (int64)
    cat: np.ndarray  # rolls x lanes: best box (record >= 1)
    keep: np.ndarray  # levels x rolls x lanes: best keep (record >= 1)
    keep_vals: np.ndarray  # levels x keeps x lanes (record 2)
    roll_vals: np.ndarray  # levels x rolls x lanes (record 2)
    tops: np.ndarray  # saved-roll counts x lanes: the state's values (saved rolls only)
    B: np.ndarray  # keeps x lanes: rows of rolls = best box at a level (saved rolls only)
    cat_levels: np.ndarray  # levels x rolls x lanes: best box per level (saved, record >= 1)


@njit(cache=True, nogil=True)
def new_work(kr, max_nu, record):
    """Buffers for widget runs of up to ``max_nu`` lanes at recording level ``record``."""
    n_keeps = kr.keep_add.shape[0]
    n_rolls = kr.roll_keep_index.shape[0]
    rec = max_nu if record >= 1 else 0
    vals = max_nu if record >= 2 else 0
    n_val = kr.slot_points.shape[0] * (max_nu + kr.yahtzee_bonus)
    saving = kr.saved_size > 1
    return Work(
        np.empty(n_keeps * max_nu),
        np.empty(n_keeps * rec, dtype=np.int32),
        np.empty(n_val),
        np.empty(n_val if kr.yahtzee_bonus_limit > 0 or kr.yahtzee_bonus > 0 else 0),
        np.empty(kr.n_boxes, dtype=np.int64),
        np.empty(n_rolls * rec, dtype=np.int64),
        np.zeros(kr.levels * n_rolls * rec, dtype=np.int64),
        np.zeros(kr.levels * n_keeps * vals),
        np.zeros(kr.levels * n_rolls * vals),
        np.zeros(kr.saved_size * max_nu if saving else 0),
        np.zeros(n_keeps * max_nu if saving else 0),
        np.zeros(kr.levels * n_rolls * rec if saving else 0, dtype=np.int64),
    )


@njit(cache=True, nogil=True)
def buffer_rows(buf, n, nu):
    """The first ``n * nu`` entries of ``buf`` as ``(n, nu)`` (``(0, nu)`` if too short)."""
    if buf.shape[0] < n * nu:
        return buf[:0].reshape((0, nu))
    return buf[: n * nu].reshape((n, nu))


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def buffer_layers(buf, m, n, nu):
    """The first ``m * n * nu`` entries of ``buf`` as ``(m, n, nu)`` (``(0, n, nu)`` if too
    short)."""
    if buf.shape[0] < m * n * nu:
        return buf[:0].reshape((0, n, nu))
    return buf[: m * n * nu].reshape((m, n, nu))


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def copy_rows(rows, out, n, nu):
    """``out[k, t] = rows[k, t]`` for the first ``n`` rows."""
    for k in range(n):
        for t in range(nu):
            out[k, t] = rows[k, t]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def record_rows(rki, rows, out, nu):
    """``out[r, t] = rows[rki[r], t]``: the rows of the rolls (a level's record)."""
    for r in range(rki.shape[0]):
        for t in range(nu):
            out[r, t] = rows[rki[r], t]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def level_records(kr, work, nu):
    """``(keep, keep_vals, roll_vals)``: the per-level records of ``work`` for ``nu`` lanes,
    each ``(levels, rows, nu)`` — the best keep per roll, the value of every keep, the value
    of every roll (empty where the recording level does not keep them)."""
    n_keeps = kr.keep_add.shape[0]
    n_rolls = kr.roll_keep_index.shape[0]
    keep = buffer_layers(work.keep, kr.levels, n_rolls, nu)
    keep_vals = buffer_layers(work.keep_vals, kr.levels, n_keeps, nu)
    return keep, keep_vals, buffer_layers(work.roll_vals, kr.levels, n_rolls, nu)
