"""Kernels of the exact two-player solver (:mod:`yahtzee_sim.multiplayer.duel`).

A *joint position* is a turn start of the visible two-player game: the mover's state,
the waiter's state and the score difference. Its value row holds P(the waiter wins)
(ties split) in *lanes* ``L = D + (mover's points - waiter's points)``, i.e. the
waiter's points still needed shifted by ``D``; lanes before the row are 1, lanes past
it 0 (:func:`.lanes.points_needed_lanes`).

A turn of the mover X is one widget run in need lanes (lane = X's points needed + D):
writing ``q`` points leads to the joint position (mover Y, waiter X') whose row, read
``q`` lanes lower, is exactly P(X wins) from there. The widget takes the best keeps
and boxes; the row of (mover X, waiter Y) is then ``1 - `` its result, lanes reversed.
So the one widget solves the two-player game; this module only lays out the lanes.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from yahtzee_sim._kernels.box_step import bonus_moves_flag
from yahtzee_sim._kernels.lanes import LANES_NEED, Lanes
from yahtzee_sim._kernels.scoring import flag_after_roll, scored_state
from yahtzee_sim._kernels.widget import widget
from yahtzee_sim._kernels.work_buffers import new_work

#: Lanes per widget call (the work array of a tile stays in cache).
TILE = 128


@njit(cache=True, nogil=True)
def decode(kr, s):
    """``(used, upper, flag)`` of state index ``s``
    (:func:`yahtzee_sim.game.state.decode_state`)."""
    cap1 = kr.upper_cap + 1
    rest = s // cap1
    return rest // kr.flag_size, s % cap1, rest % kr.flag_size


@njit(cache=True, nogil=True)
def successors(kr, states):
    """Every state the widget may score into from ``states`` (each open box at each of
    its slots' points, after a bonus Yahtzee too where that moves the flag), with
    repeats."""
    out = []
    for i in range(states.shape[0]):
        used, upper, flag = decode(kr, states[i])
        flags = [flag]
        if bonus_moves_flag(kr, used, flag):
            flags.append(flag_after_roll(kr, flag, 1))
        for f in flags:
            for c in range(kr.n_boxes):
                if (used >> c) & 1:
                    continue
                for s in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
                    out.append(scored_state(kr, used, upper, f, c, kr.slot_points[s])[0])
    return np.array(out, dtype=np.int64)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _fill_next_rows(next_off, n_y, iy, d, mr_y, x2_states, x2_mr, off, first, length):
    """Point the single-state row arrays ``off, first, length`` (indexed by the mover's
    next state X') at the rows of the joint positions (mover Y = waiter ``iy``, waiter
    X') of the next stage."""
    for j in range(x2_states.shape[0]):
        s = x2_states[j]
        off[s] = next_off[j * n_y + iy]
        first[s] = d - mr_y
        length[s] = mr_y + x2_mr[j] + 1


@njit(cache=True, parallel=True, nogil=True)
def solve_stage(
    kr,
    values,
    d,
    m_states,
    m_mr,
    w_mr,
    out_off,
    next_off,
    x2_states,
    x2_mr,
    iy_lo,
    iy_hi,
    out,
    base,
    threads,
):
    """Rows of the joint positions (mover ``m_states[i]``, waiter number ``iy``) for
    ``iy_lo <= iy < iy_hi``, from the next stage's rows in ``values``.

    ``out_off[iy * n_m + i]`` is the row's offset; the row is written to ``out`` at
    ``offset - base`` (``out`` is ``values`` and ``base`` 0 in one process; a worker
    returns its block). ``next_off[j * n_y + iy]`` is the offset of the next stage's
    position (mover: waiter ``iy`` of this stage, waiter: the mover's next state
    ``x2_states[j]``). ``m_mr``, ``w_mr``, ``x2_mr``: most points still to come.
    """
    n_m = m_states.shape[0]
    n_y = w_mr.shape[0]
    n_states = (np.int64(1) << kr.n_boxes) * kr.flag_size * (kr.upper_cap + 1)
    count = iy_hi - iy_lo
    n_chunks = min(count, threads)
    for chunk in prange(n_chunks):
        # rows by state, read only at the states the mover can score into (every one set)
        off = np.empty(n_states, dtype=np.int64)
        first = np.empty(n_states, dtype=np.int64)
        length = np.empty(n_states, dtype=np.int64)
        work = new_work(kr, TILE, 0)
        lanes = Lanes(LANES_NEED, values, off, length, first, 1.0, 0.0, np.zeros(0))
        for iy in range(iy_lo + chunk, iy_hi, n_chunks):
            mr_y = w_mr[iy]
            _fill_next_rows(next_off, n_y, iy, d, mr_y, x2_states, x2_mr, off, first, length)
            for i in range(n_m):
                used, upper, flag = decode(kr, m_states[i])
                nu = m_mr[i] + mr_y + 1
                lo = d - mr_y
                o = out_off[iy * n_m + i] - base
                for t0 in range(0, nu, TILE):
                    k = min(TILE, nu - t0)
                    W = widget(kr, lanes, used, upper, flag, lo + t0, k, work, np.int64(0))[0]
                    for t in range(k):  # lane lo + t0 + t of X is entry nu - 1 - t0 - t
                        out[o + nu - 1 - t0 - t] = 1.0 - W[0, t]


@njit(cache=True, nogil=True)
def mover_turn(kr, values, d, state, mr_x, mr_y, next_off, n_y, iy, x2_states, x2_mr, lane):
    """One widget run of the mover at ``state`` (waiter number ``iy`` of ``n_y``) in the
    single lane ``lane`` (= the mover's points needed + ``d``), recording every value (level
    2): returns the widget's views ``(W, cat, keep, keep_vals, roll_vals)``."""
    n_states = (np.int64(1) << kr.n_boxes) * kr.flag_size * (kr.upper_cap + 1)
    off = np.empty(n_states, dtype=np.int64)
    first = np.empty(n_states, dtype=np.int64)
    length = np.empty(n_states, dtype=np.int64)
    _fill_next_rows(next_off, n_y, iy, d, mr_y, x2_states, x2_mr, off, first, length)
    lanes = Lanes(LANES_NEED, values, off, length, first, 1.0, 0.0, np.zeros(0))
    one = np.int64(1)  # not a literal: the same compiled widget as the regret's
    work = new_work(kr, one, 2)
    used, upper, flag = decode(kr, state)
    return widget(kr, lanes, used, upper, flag, lane, one, work, np.int64(2))


@njit(cache=True, parallel=True, nogil=True)
def policy_stage(
    values, d, m_mr, w_mr, out_off, ptr, nxt_j, pts, prob, next_off, x2_mr, iy_lo, iy_hi, out, base
):
    """:func:`solve_stage` for a mover playing a fixed policy that depends on its own
    position only: the turn from mover number ``i`` ends at its next state number
    ``nxt_j[e]`` with ``pts[e]`` points with probability ``prob[e]`` (``ptr[i] <= e <
    ptr[i + 1]``). The waiter's P(win) in its lane ``L`` is the mean over the outcomes of
    1 - the next position's row at lane ``2 d - L - q``."""
    n_m = m_mr.shape[0]
    n_y = w_mr.shape[0]
    for iy in prange(iy_lo, iy_hi):
        mr_y = w_mr[iy]
        f2 = d - mr_y
        for i in range(n_m):
            nu = m_mr[i] + mr_y + 1
            o = out_off[iy * n_m + i] - base
            first = d - m_mr[i]
            for t in range(nu):
                out[o + t] = 0.0
            for e in range(ptr[i], ptr[i + 1]):
                j = nxt_j[e]
                o2 = next_off[j * n_y + iy]
                n2 = mr_y + x2_mr[j] + 1
                p = prob[e]
                for t in range(nu):
                    k = 2 * d - (first + t) - pts[e] - f2
                    v = 1.0 if k < 0 else (0.0 if k >= n2 else values[o2 + k])
                    out[o + t] += p * (1.0 - v)
