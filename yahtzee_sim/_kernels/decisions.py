"""Decisions read off the widget: per-state decision tables of table strategies
(optimal, Glenn's heuristics, target play), lane by lane for exact evaluation, and
every option's value for the advisor.

For a turn-start state, one recorded widget run gives the best box for every roll
and the best keep for every roll and number of rerolls left.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from yahtzee_sim._kernels.widget import widget
from yahtzee_sim._kernels.work_buffers import MAX_CHUNKS, buffer_rows, new_work


def fill_states(kr, lanes, used, upper, flag, lo, slots, keep_cache, cat_cache) -> None:
    """Record the best decisions of states ``i`` (one lane ``lo[i]``: the upper total for
    max-EV lanes, the points still needed for target lanes) into
    ``keep_cache[slots[i], j - 1, r]`` (j rerolls left) and ``cat_cache[slots[i], s, r]``
    (``s`` rolls saved, or ``cat_cache[slots[i], r]``; int16 and int8), in parallel over
    states: :func:`fill_lanes`
    with one lane per state, so that one compiled kernel serves both."""
    n = len(used)
    if cat_cache.ndim == 2:  # games without saved rolls: one box per roll
        cat_cache = cat_cache[:, None, :]
    fill_lanes(
        kr, lanes, used, upper, flag, lo, np.ones(n, dtype=np.int64),
        np.arange(n, dtype=np.int64), np.asarray(slots, dtype=np.int64), keep_cache, cat_cache,
    )  # fmt: skip


@njit(cache=True, parallel=True, nogil=True)
def fill_lanes(kr, lanes, used, upper, flag, lo, nu, row0, lane_row, keep_rows, cat_rows):
    """Best decisions of groups ``g`` (state ``used[g], upper[g], flag[g]``, lanes ``lo[g]
    .. lo[g] + nu[g] - 1``: upper totals for max-EV lanes, points still needed for target
    lanes; one widget run over all of them) into rows ``lane_row[row0[g] + t]`` (skipped
    when -1) of ``keep_rows`` (rows, layers, rolls; int16) and ``cat_rows`` (rows, saved
    rolls, rolls; int8: the best box when the turn saves that many rolls), in parallel
    over groups."""
    n_rolls = kr.roll_keep_index.shape[0]
    n = used.shape[0]
    max_nu = 1
    for g in range(n):
        max_nu = max(max_nu, nu[g])
    n_chunks = min(n, MAX_CHUNKS)
    for chunk in prange(n_chunks):
        work = new_work(kr, max_nu, 1)
        for g in range(chunk, n, n_chunks):
            m = nu[g]
            _, cat, keep, _, _ = widget(
                kr, lanes, used[g], upper[g], flag[g], lo[g], m, work, np.int64(1)
            )
            cat_levels = buffer_rows(work.cat_levels, kr.levels * n_rolls, m)
            for t in range(m):
                row = lane_row[row0[g] + t]
                if row < 0:
                    continue
                for r in range(n_rolls):
                    cat_rows[row, 0, r] = cat[r, t]
                    for s in range(1, kr.saved_size):  # scored with s rolls saved
                        cat_rows[row, s, r] = cat_levels[s * n_rolls + r, t]
                    for j in range(1, kr.levels):
                        keep_rows[row, j - 1, r] = keep[j, r, t]


@njit(cache=True, nogil=True)
def gather_decisions(slot_of_state, states, roll_idx, table, layer):
    """``table[slot_of_state[states[i]], layer, roll_idx[i]]`` as int64, one pass."""
    out = np.empty(states.shape[0], dtype=np.int64)
    for i in range(states.shape[0]):
        out[i] = table[slot_of_state[states[i]], layer, roll_idx[i]]
    return out


@njit(cache=True, nogil=True)
def position_values(kr, lanes, used, upper, flag):
    """Values of every keep (per rerolls left) and the best decisions, for one state.

    Returns ``(keep_vals (rolls, n_keeps), cat_choice (n_rolls,), keep_choice (rolls,
    n_rolls))``; ``keep_vals[j, k]`` is the expected points still to come after keeping
    ``k`` with ``j`` rerolls left.
    """
    one = np.int64(1)  # not a literal: the same compiled widget as the regret's
    work = new_work(kr, one, 2)
    _, cat, keep, keep_vals, _ = widget(kr, lanes, used, upper, flag, upper, one, work, np.int64(2))
    return keep_vals[:, :, 0].copy(), cat[:, 0].copy(), keep[:, :, 0].copy()


@njit(cache=True, nogil=True)
def keep_codes(kr, keeps, dice, out):
    """Keep index of every row of face counts ``keeps`` (checked against ``dice``).

    Writes ``out[i]`` and returns -1, or returns the first row that keeps a face
    more often than it shows (or a negative count).
    """
    m, F = keeps.shape
    for i in range(m):
        code = 0
        for f in range(F):
            a = keeps[i, f]
            if a < 0 or a > dice[i, f]:
                return i
            code += a * kr.code_weights[f]
        out[i] = kr.code_to_keep[code]
    return -1
