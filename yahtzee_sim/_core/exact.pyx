# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernels of the exact evaluator in the compiled core: one turn's outcome law per state
(:func:`turn_outcomes`, :func:`compact_outcomes`, :func:`level_effects`), then the
forward pass (reach and partial moments, :func:`forward_level`) and the backward pass
(the law of the points to come, :func:`support_top`, :func:`pmf_level`) over levels.

A *turn outcome* of a state is a triple ``(box, raw points, Yahtzee bonus?)`` with its
probability under the strategy's fixed decisions; the next state and the points scored
(bonuses included) follow from it (:mod:`yahtzee_sim._core.outcomes`). The same sums in
the same order as the numba kernels they replace, so the same bits.
"""

import numpy as np

from cython.parallel cimport prange
from libc.stdint cimport int8_t, int16_t, int64_t

from yahtzee_sim._core.bundle cimport rules_of
from yahtzee_sim._core.outcomes cimport (
    box_outcome_keys,
    outcome_effects,
    roll_outcomes,
    tally_outcome,
)
from yahtzee_sim._core.reach cimport final_roll_law
from yahtzee_sim._core.rules cimport Rules


cdef check_decisions(Rules r, keep, cat, int64_t n, bint saved=False):
    """Refuse decision tables the unchecked loops cannot read (``ValueError``): ``keep``
    int16 ``(n, layers, n_rolls)``, every entry a keep index; ``cat`` int8 ``(n, n_rolls)``
    (``saved``: ``(n, banks, n_rolls)``)."""
    if keep.dtype != np.int16 or cat.dtype != np.int8:
        raise ValueError(f"keep must be int16 and cat int8, got {keep.dtype} and {cat.dtype}")
    cat_ndim = 3 if saved else 2
    if keep.ndim != 3 or cat.ndim != cat_ndim:
        raise ValueError(f"keep must have 3 dimensions and cat {cat_ndim}")
    if keep.shape[0] != n or cat.shape[0] != n:
        raise ValueError(f"keep and cat must have one row per state ({n})")
    if keep.shape[2] != r.n_rolls or cat.shape[cat_ndim - 1] != r.n_rolls:
        raise ValueError(f"keep and cat must have one column per roll ({r.n_rolls})")
    if keep.size and (keep.min() < 0 or keep.max() >= r.n_keeps):
        raise ValueError(f"keep indices must lie in 0..{r.n_keeps - 1}")


cdef check_states(Rules r, used, upper, flag):
    """Refuse turn-start states outside the rules (``ValueError``): one used-mask, upper
    total and flag per state, each in range."""
    n = used.shape[0]
    if upper.shape[0] != n or flag.shape[0] != n:
        raise ValueError("used, upper and flag must have one entry per state")
    if n == 0:
        return
    if used.min() < 0 or used.max() >= (1 << r.n_boxes):
        raise ValueError(f"used must be used-masks of {r.n_boxes} boxes")
    if upper.min() < 0 or upper.max() > r.upper_cap:
        raise ValueError(f"upper totals must lie in 0..{r.upper_cap}")
    if flag.min() < 0 or flag.max() >= r.flag_size:
        raise ValueError(f"flags must lie in 0..{r.flag_size - 1}")


cdef inline bint same_keeps(const int16_t* a, const int16_t* b, int64_t n) noexcept nogil:
    """Whether two states' keep tables (``n`` entries each) are equal."""
    cdef int64_t k
    for k in range(n):
        if a[k] != b[k]:
            return False
    return True


cdef void outcomes_loop(
    const Rules* kr, int64_t n, const int64_t* used, const int64_t* flag,
    const int16_t* keep_dec, int64_t layers, const int8_t* cat_dec, int8_t* out_cat,
    int16_t* out_raw, int8_t* out_yb, double* out_prob, int64_t* out_n, int64_t* bad_roll,
    double* p, double* fin, double* w, double* acc, int64_t* touched,
) noexcept nogil:
    """The loop of :func:`turn_outcomes` over its states (scratch: ``p``, ``fin``, ``w``,
    ``acc`` zeroed, ``touched``)."""
    cdef int64_t n_rolls = kr.n_rolls
    cdef int64_t width = box_outcome_keys(kr)
    cdef int64_t table = layers * n_rolls
    cdef int64_t i, m, s, n_touched, row
    for i in range(n):
        # neighbouring states (often the same boxes, another upper total) tend to keep
        # alike: the final-roll law is recomputed only when the keeps differ
        if not (i > 0 and kr.rolls > 1
                and same_keeps(keep_dec + i * table, keep_dec + (i - 1) * table, table)):
            final_roll_law(kr, keep_dec + i * table, p, w, fin)
        n_touched = roll_outcomes(
            kr, used[i], flag[i], cat_dec + i * n_rolls, fin, acc, touched, width, bad_roll + i
        )
        row = i * n_rolls
        for m in range(n_touched):
            s = touched[m]
            out_cat[row + m] = <int8_t>(s // width)
            out_raw[row + m] = <int16_t>((s % width) // 2)
            out_yb[row + m] = <int8_t>(s % 2)
            out_prob[row + m] = acc[s]
            acc[s] = 0.0
        out_n[i] = n_touched


cdef check_turn(Rules r, used, upper, flag, keep_dec, cat_dec, outs):
    """Refuse the arguments of :func:`turn_outcomes` its loop cannot take (``ValueError``)."""
    n = used.shape[0]
    check_states(r, np.asarray(used), np.asarray(upper), np.asarray(flag))
    check_decisions(r, keep_dec, cat_dec, n)
    if keep_dec.shape[1] < r.rolls - 1:
        raise ValueError(f"keep_dec must have a layer per reroll ({r.rolls - 1})")
    for a in map(np.asarray, outs[:4]):
        if a.shape[0] != n or a.shape[1] != r.n_rolls:
            raise ValueError(f"the out_* arrays must be (n, n_rolls) = ({n}, {r.n_rolls})")
    if outs[4].shape[0] != n or outs[5].shape[0] != n:
        raise ValueError("out_n and bad_roll must have one entry per state")


def turn_outcomes(
    kr, const int64_t[::1] used, const int64_t[::1] upper, const int64_t[::1] flag,
    keep_dec, cat_dec, int8_t[:, ::1] out_cat, int16_t[:, ::1] out_raw,
    int8_t[:, ::1] out_yb, double[:, ::1] out_prob, int64_t[::1] out_n,
    int64_t[::1] bad_roll,
):
    """Outcome law of one turn for each state ``i`` (serial; releases the GIL: a caller
    runs slices of the states in threads, and each state's outcomes are the same
    whatever the slice it is in).

    Parameters
    ----------
    kr : KernelRules
        The rules (:func:`~yahtzee_sim._kernels.scoring.kernel_rules`).
    used, upper, flag : ndarray of int64, shape (n,)
        The turn-start states.
    keep_dec : ndarray of int16, shape (n, layers, n_rolls)
        ``keep_dec[i, j - 1, r]``: the keep index at roll ``r`` with ``j`` rerolls left
        (``layers`` at least the rerolls per turn).
    cat_dec : ndarray of int8, shape (n, n_rolls)
        The box chosen for each final roll.
    out_cat, out_raw, out_yb, out_prob : ndarray, shape (n, n_rolls)
        int8, int16, int8, float64: the outcomes of state ``i`` go to
        ``out_*[i, :out_n[i]]``.
    out_n, bad_roll : ndarray of int64, shape (n,)
        The number of outcomes of each state; the first reachable final roll whose
        chosen box is illegal (-1 if none: such a state has no outcomes).

    Returns
    -------
    None
    """
    cdef Rules r = rules_of(kr)
    cdef int64_t n = used.shape[0]
    keep_dec, cat_dec = np.asarray(keep_dec), np.asarray(cat_dec)
    check_turn(r, used, upper, flag, keep_dec, cat_dec,
               (out_cat, out_raw, out_yb, out_prob, out_n, bad_roll))
    cdef int64_t layers = keep_dec.shape[1]
    if n == 0:
        return
    cdef const int16_t[:, :, ::1] keep = np.ascontiguousarray(keep_dec)
    cdef const int8_t[:, ::1] cat = np.ascontiguousarray(cat_dec)
    cdef double[::1] p = np.empty(r.n_rolls)
    cdef double[::1] fin = np.empty(r.n_rolls)
    cdef double[::1] w = np.empty(r.n_keeps)
    cdef double[::1] acc = np.zeros(r.n_boxes * box_outcome_keys(&r))
    cdef int64_t[::1] touched = np.empty(r.n_rolls, dtype=np.int64)
    with nogil:
        outcomes_loop(
            &r, n, &used[0], &flag[0], &keep[0, 0, 0], layers, &cat[0, 0], &out_cat[0, 0],
            &out_raw[0, 0], &out_yb[0, 0], &out_prob[0, 0], &out_n[0], &bad_roll[0],
            &p[0], &fin[0], &w[0], &acc[0], &touched[0],
        )


def compact_outcomes(
    const int64_t[::1] out_n, const int8_t[:, ::1] out_cat, const int16_t[:, ::1] out_raw,
    const int8_t[:, ::1] out_yb, const double[:, ::1] out_prob, int8_t[::1] cat,
    int16_t[::1] raw, int8_t[::1] yb, double[::1] prob, int64_t start,
):
    """Copy the first ``out_n[i]`` outcomes of every row ``i`` to consecutive entries.

    Parameters
    ----------
    out_n : ndarray of int64, shape (n,)
        Outcomes per row (at most the rows' width).
    out_cat, out_raw, out_yb, out_prob : ndarray, shape (n, width)
        The outcomes by row (:func:`turn_outcomes`).
    cat, raw, yb, prob : ndarray
        int8, int16, int8, float64: the outcomes from ``start`` on.
    start : int
        The first entry written.

    Returns
    -------
    int
        The next free entry.
    """
    cdef int64_t n = out_n.shape[0]
    cdef int64_t width = out_cat.shape[1]
    cdef int64_t e = start
    cdef int64_t i, m
    for a in map(np.asarray, (out_cat, out_raw, out_yb, out_prob)):
        if a.shape[0] != n or a.shape[1] != width:
            raise ValueError("out_n and the out_* arrays must have the same rows and width")
    counts = np.asarray(out_n)
    if n and (counts.min() < 0 or counts.max() > width):
        raise ValueError(f"out_n must lie in 0..{width}")
    total = int(counts.sum())
    if start < 0 or any(len(a) < start + total for a in map(np.asarray, (cat, raw, yb, prob))):
        raise ValueError(f"cat, raw, yb and prob must hold {start + total} entries")
    with nogil:
        for i in range(n):
            for m in range(out_n[i]):
                cat[e] = out_cat[i, m]
                raw[e] = out_raw[i, m]
                yb[e] = out_yb[i, m]
                prob[e] = out_prob[i, m]
                e += 1
    return e


cdef check_csr(ptr, int64_t n, int64_t n_out):
    """Refuse a CSR pointer that does not split ``n_out`` outcomes among ``n`` states."""
    ptr = np.asarray(ptr)
    if ptr.shape[0] != n + 1 or ptr[0] != 0 or ptr[n] > n_out or (np.diff(ptr) < 0).any():
        raise ValueError(f"ptr must be n + 1 = {n + 1} increasing offsets into the outcomes")


def level_effects(
    kr, const int64_t[::1] used, const int64_t[::1] upper, const int64_t[::1] flag,
    const int64_t[::1] ptr, const int8_t[::1] cat, const int16_t[::1] raw,
    const int8_t[::1] yb, int64_t[::1] nxt, int64_t[::1] pts, int8_t[::1] ub,
):
    """Fill ``nxt``, ``pts`` and ``ub`` of every outcome of a level (CSR by state).

    Parameters
    ----------
    kr : KernelRules
        The rules.
    used, upper, flag : ndarray of int64, shape (n,)
        The states.
    ptr : ndarray of int64, shape (n + 1,)
        State ``i``'s outcomes are ``ptr[i] .. ptr[i + 1] - 1``.
    cat, raw, yb : ndarray
        int8, int16, int8: each outcome's box, raw points and Yahtzee bonus (0 or 1).
    nxt, pts, ub : ndarray
        int64, int64, int8: the next state, the points with bonuses, the upper bonus.

    Returns
    -------
    None
    """
    cdef Rules r = rules_of(kr)
    cdef int64_t n = used.shape[0]
    cdef int64_t i, t, p, u
    check_states(r, np.asarray(used), np.asarray(upper), np.asarray(flag))
    check_csr(ptr, n, cat.shape[0])
    k = ptr[n]
    if any(len(a) < k for a in map(np.asarray, (raw, yb, nxt, pts, ub))):
        raise ValueError(f"the outcome arrays must hold {k} entries")
    if k and (np.asarray(cat)[:k].min() < 0 or np.asarray(cat)[:k].max() >= r.n_boxes):
        raise ValueError(f"boxes must lie in 0..{r.n_boxes - 1}")
    with nogil:
        for i in range(n):
            for t in range(ptr[i], ptr[i + 1]):
                nxt[t] = outcome_effects(
                    &r, used[i], upper[i], flag[i], cat[t], raw[t], yb[t], &p, &u
                )
                pts[t] = p
                ub[t] = <int8_t>u


cdef check_forward(acc, states, ptr, cat, outcomes):
    """Refuse the arguments of :func:`forward_level` its loop cannot take (``ValueError``)."""
    A, B, S2, cat_sum, cat_zero, cat_turn, stats = map(np.asarray, acc)
    n, size, boxes = len(states), len(A), len(cat_sum)
    if len(B) != size or len(S2) != size or len(stats) < 2:
        raise ValueError("A, B and S2 must have one entry per state, stats two")
    if len(cat_zero) != boxes or len(cat_turn) != boxes:
        raise ValueError("cat_sum, cat_zero and cat_turn must have one entry per box")
    check_csr(ptr, n, len(cat))
    k = ptr[n]
    if any(len(a) < k for a in map(np.asarray, outcomes)):
        raise ValueError(f"the outcome arrays must hold {k} entries")
    nxt = np.asarray(outcomes[2])[:k]
    if n and (np.asarray(states).min() < 0 or np.asarray(states).max() >= size):
        raise ValueError(f"states must lie in 0..{size - 1}")
    if k and (nxt.min() < 0 or nxt.max() >= size):
        raise ValueError(f"next states must lie in 0..{size - 1}")
    if k and (np.asarray(cat)[:k].min() < 0 or np.asarray(cat)[:k].max() >= boxes):
        raise ValueError(f"boxes must lie in 0..{boxes - 1}")


def forward_level(
    const int64_t[::1] states, const int64_t[::1] ptr, const int8_t[::1] cat,
    const int16_t[::1] raw, const int8_t[::1] yb, const int64_t[::1] nxt,
    const int64_t[::1] pts, const int8_t[::1] ub, const double[::1] prob, int64_t turn, acc,
):
    """Push reach probability and partial moments from a level's states to the next
    level's, and add each outcome's contribution to the per-box and bonus statistics.

    Parameters
    ----------
    states : ndarray of int64, shape (n,)
        The level's state indices.
    ptr, cat, raw, yb, nxt, pts, ub, prob : ndarray
        Their outcomes, CSR by state (:class:`~yahtzee_sim.exact.forward.LevelOutcomes`).
    turn : int
        The level (0-based turn).
    acc : Moments
        ``(A, B, S2, cat_sum, cat_zero, cat_turn, stats)``, float64, added to in place
        (:class:`~yahtzee_sim.exact.moments.Moments`).

    Returns
    -------
    None
    """
    cdef double[::1] A = acc[0]
    cdef double[::1] B = acc[1]
    cdef double[::1] S2 = acc[2]
    cdef double[::1] cat_sum = acc[3]
    cdef double[::1] cat_zero = acc[4]
    cdef double[::1] cat_turn = acc[5]
    cdef double[::1] stats = acc[6]
    cdef int64_t n = states.shape[0]
    cdef int64_t i, s, t, m
    cdef double a, b, s2, pr, x
    check_forward(acc, states, ptr, cat, (raw, yb, nxt, pts, ub, prob))
    with nogil:
        for i in range(n):
            s = states[i]
            a = A[s]
            b = B[s]
            s2 = S2[s]
            for t in range(ptr[i], ptr[i + 1]):
                pr = prob[t]
                x = <double>pts[t]
                m = nxt[t]
                A[m] += pr * a
                B[m] += pr * (b + x * a)
                S2[m] += pr * (s2 + 2.0 * x * b + x * x * a)
                tally_outcome(
                    &cat_sum[0], &cat_zero[0], &cat_turn[0], &stats[0], cat[t], raw[t], yb[t],
                    ub[t], pr * a, turn,
                )


def support_top(const int64_t[::1] ptr, const int64_t[::1] nxt_row, const int64_t[::1] pts,
                const int64_t[::1] top_next):
    """Highest reachable future score of each state.

    Parameters
    ----------
    ptr : ndarray of int64, shape (n + 1,)
        The states' outcomes, CSR.
    nxt_row, pts : ndarray of int64
        Each outcome's row in the next level and its points.
    top_next : ndarray of int64
        The next level's highest future scores, by row.

    Returns
    -------
    ndarray of int64, shape (n,)
    """
    cdef int64_t n = ptr.shape[0] - 1
    if n < 0:
        raise ValueError("ptr must have at least one entry")
    check_csr(ptr, n, min(nxt_row.shape[0], pts.shape[0]))
    check_rows(nxt_row, ptr[n], top_next.shape[0])
    out_array = np.zeros(n, dtype=np.int64)
    cdef int64_t[::1] out = out_array
    cdef int64_t i, t, h
    with nogil:
        for i in range(n):
            h = 0
            for t in range(ptr[i], ptr[i + 1]):
                h = max(h, pts[t] + top_next[nxt_row[t]])
            out[i] = h
    return out_array


cdef check_rows(nxt_row, int64_t k, int64_t n_next):
    """Refuse next-level rows outside ``0 .. n_next - 1`` among the first ``k``."""
    rows = np.asarray(nxt_row)[:k]
    if k and (rows.min() < 0 or rows.max() >= n_next):
        raise ValueError(f"next-level rows must lie in 0..{n_next - 1}")


def pmf_level(
    const int64_t[::1] ptr, const int64_t[::1] nxt_row, const int64_t[::1] pts,
    const double[::1] prob, const double[:, ::1] V_next, const int64_t[::1] top_next,
    double[:, ::1] V, int n_threads=1,
):
    """``V[i, x]`` = P(future score = x) from state ``i``: the mixture of the next states'
    laws shifted by the points of each outcome, states in parallel (the values do not
    depend on ``n_threads``).

    Parameters
    ----------
    ptr : ndarray of int64, shape (n + 1,)
        The states' outcomes, CSR.
    nxt_row, pts, prob : ndarray
        int64, int64, float64: each outcome's row in the next level, points, probability.
    V_next : ndarray of float64, shape (n_next, L_next)
        The next level's laws.
    top_next : ndarray of int64, shape (n_next,)
        The highest score of each next law (columns past it are not read).
    V : ndarray of float64, shape (n, L)
        Written: row ``i`` is state ``i``'s law.
    n_threads : int
        Threads to run on.

    Returns
    -------
    None
    """
    cdef int64_t n = ptr.shape[0] - 1
    cdef int64_t L = V.shape[1]
    cdef Py_ssize_t i
    if n < 0 or V.shape[0] != n:
        raise ValueError("V must have one row per state (ptr: n + 1 entries)")
    check_csr(ptr, n, min(nxt_row.shape[0], pts.shape[0], prob.shape[0]))
    k = ptr[n]
    check_rows(nxt_row, k, min(V_next.shape[0], top_next.shape[0]))
    if k:
        tops = np.asarray(top_next)[np.asarray(nxt_row)[:k]]
        if tops.min() < 0 or tops.max() >= V_next.shape[1]:
            raise ValueError(f"top_next must lie in 0..{V_next.shape[1] - 1}")
        if np.asarray(pts)[:k].min() < 0 or (tops + np.asarray(pts)[:k]).max() >= L:
            raise ValueError(f"V must have a column for every reachable score (< {L})")
    if n == 0:
        return
    for i in prange(n, nogil=True, num_threads=max(n_threads, 1), schedule="dynamic",
                    chunksize=64):
        pmf_row(&V[i, 0], L, &ptr[0], i, &nxt_row[0], &pts[0], &prob[0], &V_next[0, 0],
                V_next.shape[1], &top_next[0])


cdef inline void pmf_row(
    double* Vi, int64_t L, const int64_t* ptr, int64_t i, const int64_t* nxt_row,
    const int64_t* pts, const double* prob, const double* V_next, int64_t L_next,
    const int64_t* top_next,
) noexcept nogil:
    """Row ``Vi`` (``L`` columns) of :func:`pmf_level`: state ``i``'s law."""
    cdef int64_t x, t, row, s, top
    cdef double pr
    cdef const double* Vn
    cdef double* Vs
    for x in range(L):
        Vi[x] = 0.0
    for t in range(ptr[i], ptr[i + 1]):
        row = nxt_row[t]
        pr = prob[t]
        s = pts[t]
        top = top_next[row]
        Vn = V_next + row * L_next
        Vs = Vi + s
        for x in range(top + 1):
            Vs[x] += pr * Vn[x]
