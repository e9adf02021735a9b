# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernels of the points still to come under max-EV play, in the compiled core: the moments
of every state (:func:`moments_level`), the outcomes of a turn from a position inside it
(:func:`outcomes_from_roll`) and the exact laws of every state with few open boxes
(:func:`law_lengths`, :func:`law_fill`). The same sums in the same order as the numba
kernels they replace; the Python is :mod:`yahtzee_sim.exact.points_to_come`.
"""

import numpy as np

from cython.parallel cimport prange
from libc.stdint cimport int8_t, int16_t, int64_t

from yahtzee_sim._core.bundle cimport rules_of
from yahtzee_sim._core.outcomes cimport box_outcome_keys, outcome_effects, roll_outcomes
from yahtzee_sim._core.reach cimport reach_layer
from yahtzee_sim._core.rules cimport Rules


cdef check_level(states, ptr, nxt, pts, prob, int64_t size):
    """Refuse a level's outcomes (CSR by state) that point outside ``size`` states."""
    n = states.shape[0]
    if ptr.shape[0] != n + 1 or (n and (ptr[0] != 0 or (np.diff(ptr) < 0).any())):
        raise ValueError(f"ptr must be n + 1 = {n + 1} increasing offsets from 0")
    k = ptr[n]
    if nxt.shape[0] < k or pts.shape[0] < k or prob.shape[0] < k:
        raise ValueError(f"nxt, pts and prob must hold {k} outcomes")
    if n and (states.min() < 0 or states.max() >= size):
        raise ValueError(f"states must lie in 0..{size - 1}")
    if k and (nxt[:k].min() < 0 or nxt[:k].max() >= size):
        raise ValueError(f"next states must lie in 0..{size - 1}")


def moments_level(
    const int64_t[::1] states, const int64_t[::1] ptr, const int64_t[::1] nxt,
    const int64_t[::1] pts, const double[::1] prob, double[::1] mean, double[::1] second,
    int n_threads=1,
):
    """``mean[s]``, ``second[s]`` (E[R], E[R²] of the points to come R) of the states of
    one level, from their turn outcomes and the next level's moments (in place; states in
    parallel, the values do not depend on ``n_threads``).

    Parameters
    ----------
    states : ndarray of int64, shape (n,)
        The level's states.
    ptr, nxt, pts, prob : ndarray
        Their outcomes, CSR by state: next state, points, probability.
    mean, second : ndarray of float64
        The moments of every state, read at the next states and written at ``states``.
    n_threads : int
        Threads to run on.

    Returns
    -------
    None
    """
    cdef Py_ssize_t i
    cdef int64_t t
    cdef double m1, m2, q, a
    if second.shape[0] != mean.shape[0]:
        raise ValueError("mean and second must have one entry per state")
    check_level(np.asarray(states), np.asarray(ptr), np.asarray(nxt), np.asarray(pts),
                np.asarray(prob), mean.shape[0])
    for i in prange(states.shape[0], nogil=True, num_threads=max(n_threads, 1),
                    schedule="dynamic", chunksize=256):
        m1 = 0.0
        m2 = 0.0
        for t in range(ptr[i], ptr[i + 1]):
            q = <double>pts[t]
            a = mean[nxt[t]]
            m1 = m1 + prob[t] * (q + a)
            m2 = m2 + prob[t] * (q * q + 2.0 * q * a + second[nxt[t]])
        mean[states[i]] = m1
        second[states[i]] = m2


cdef check_turn(Rules r, keep, int64_t n_cat, int64_t n_p, state, int64_t rolls_left):
    """Refuse the arguments of :func:`outcomes_from_roll` it cannot take (``ValueError``)."""
    used, upper, flag = state
    if keep.shape[1] != r.n_rolls or n_cat != r.n_rolls or n_p != r.n_rolls:
        raise ValueError(f"keep, cat_row and p must have one column per roll ({r.n_rolls})")
    if rolls_left < 0 or rolls_left > keep.shape[0]:
        raise ValueError(f"rolls_left must lie in 0..{keep.shape[0]}, got {rolls_left}")
    if keep.size and (keep.min() < 0 or keep.max() >= r.n_keeps):
        raise ValueError(f"keep indices must lie in 0..{r.n_keeps - 1}")
    if not (0 <= used < (1 << r.n_boxes) and 0 <= upper <= r.upper_cap
            and 0 <= flag < r.flag_size):
        raise ValueError("used, upper and flag must be a state of the rules")


def outcomes_from_roll(
    kr, const int16_t[:, ::1] keep, const int8_t[::1] cat_row, double[::1] p, int64_t used,
    int64_t upper, int64_t flag, int64_t rolls_left,
):
    """The outcomes of a turn from the roll law ``p`` with ``rolls_left`` rerolls.

    Parameters
    ----------
    kr : KernelRules
        The rules.
    keep : ndarray of int16, shape (layers, n_rolls)
        ``keep[j - 1, r]``: the keep at roll ``r`` with ``j`` rerolls left.
    cat_row : ndarray of int8, shape (n_rolls,)
        The box of each final roll.
    p : ndarray of float64, shape (n_rolls,)
        The law of the current roll (used as scratch).
    used, upper, flag : int
        The turn's state.
    rolls_left : int
        Rerolls left (at most ``layers``).

    Returns
    -------
    tuple of ndarray
        ``(next state, points, probability)`` of each outcome (none if a reachable final
        roll's box is illegal).
    """
    cdef Rules r = rules_of(kr)
    cdef int64_t n_rolls = r.n_rolls
    cdef int64_t width = box_outcome_keys(&r)
    cdef int64_t j, k, n, m, s, bad, pt, ub
    check_turn(r, np.asarray(keep), cat_row.shape[0], p.shape[0], (used, upper, flag), rolls_left)
    cdef double[::1] fin = np.zeros(n_rolls)
    cdef double[::1] w = np.empty(r.n_keeps)
    cdef double[::1] acc = np.zeros(r.n_boxes * width)
    cdef int64_t[::1] touched = np.empty(n_rolls, dtype=np.int64)
    with nogil:
        for j in range(rolls_left, 0, -1):
            reach_layer(&r, &keep[j - 1, 0], &p[0], &w[0], &fin[0])
        for k in range(n_rolls):
            fin[k] += p[k]
        n = roll_outcomes(&r, used, flag, &cat_row[0], &fin[0], &acc[0], &touched[0], width,
                          &bad)
    nxt_array, pts_array = np.empty(n, np.int64), np.empty(n, np.int64)
    prob_array = np.empty(n)
    cdef int64_t[::1] nxt = nxt_array
    cdef int64_t[::1] pts = pts_array
    cdef double[::1] prob = prob_array
    for m in range(n):
        s = touched[m]
        nxt[m] = outcome_effects(&r, used, upper, flag, s // width, (s % width) // 2, s % 2,
                                 &pt, &ub)
        pts[m] = pt
        prob[m] = acc[s]
    return nxt_array, pts_array, prob_array


def law_lengths(
    const int64_t[::1] states, const int64_t[::1] ptr, const int64_t[::1] nxt,
    const int64_t[::1] pts, int64_t[::1] length,
):
    """``length[s]`` of each state of a level: one past its largest remaining score.

    Parameters
    ----------
    states : ndarray of int64, shape (n,)
        The level's states.
    ptr, nxt, pts : ndarray of int64
        Their outcomes, CSR by state: next state and points.
    length : ndarray of int64
        Read at the next states, written at ``states``.

    Returns
    -------
    None
    """
    cdef int64_t i, t, top
    check_level(np.asarray(states), np.asarray(ptr), np.asarray(nxt), np.asarray(pts),
                np.asarray(pts), length.shape[0])
    with nogil:
        for i in range(states.shape[0]):
            top = 0
            for t in range(ptr[i], ptr[i + 1]):
                top = max(top, pts[t] + length[nxt[t]])
            length[states[i]] = top


def law_fill(
    const int64_t[::1] states, const int64_t[::1] ptr, const int64_t[::1] nxt,
    const int64_t[::1] pts, const double[::1] prob, double[::1] pool,
    const int64_t[::1] offset, const int64_t[::1] length, int n_threads=1,
):
    """The pmf of each state of a level: its turn outcomes' points shifted onto the next
    states' pmfs, weighted by the outcomes' probabilities (added in place; states in
    parallel, the values do not depend on ``n_threads``).

    Parameters
    ----------
    states : ndarray of int64, shape (n,)
        The level's states.
    ptr, nxt, pts, prob : ndarray
        Their outcomes, CSR by state: next state, points, probability.
    pool : ndarray of float64
        The pmfs: state ``s``'s is ``pool[offset[s] : offset[s] + length[s]]``.
    offset, length : ndarray of int64
        Where each state's pmf lies (:func:`law_lengths`).
    n_threads : int
        Threads to run on.

    Returns
    -------
    None
    """
    cdef Py_ssize_t i
    cdef int64_t t, x, o, o2, q
    cdef double pr
    if length.shape[0] != offset.shape[0]:
        raise ValueError("offset and length must have one entry per state")
    check_level(np.asarray(states), np.asarray(ptr), np.asarray(nxt), np.asarray(pts),
                np.asarray(prob), offset.shape[0])
    check_pool(np.asarray(states), np.asarray(ptr), np.asarray(nxt), np.asarray(pts),
               np.asarray(offset), np.asarray(length), pool.shape[0])
    for i in prange(states.shape[0], nogil=True, num_threads=max(n_threads, 1),
                    schedule="dynamic", chunksize=64):
        o = offset[states[i]]
        for t in range(ptr[i], ptr[i + 1]):
            q = pts[t]
            pr = prob[t]
            o2 = offset[nxt[t]]
            for x in range(length[nxt[t]]):
                pool[o + q + x] += pr * pool[o2 + x]


cdef check_pool(states, ptr, nxt, pts, offset, length, int64_t size):
    """Refuse pmfs that fall outside the pool, or outcomes past their state's pmf."""
    n = states.shape[0]
    k = ptr[n]
    if n == 0:
        return
    ends = offset[states] + length[states]
    if offset[states].min() < 0 or ends.max() > size:
        raise ValueError(f"the states' pmfs must lie in the pool ({size} entries)")
    if k == 0:
        return
    nx = nxt[:k]
    if offset[nx].min() < 0 or (offset[nx] + length[nx]).max() > size:
        raise ValueError(f"the next states' pmfs must lie in the pool ({size} entries)")
    own = np.repeat(length[states], np.diff(ptr))
    if pts[:k].min() < 0 or (pts[:k] + length[nx] > own).any():
        raise ValueError("an outcome's points reach past its state's pmf (law_lengths)")
