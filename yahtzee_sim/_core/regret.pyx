# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernel of the regret analysis in the compiled core: what each decision of a strategy
costs against optimal play, on games with fixed rolls (:func:`level_regret`).

For one turn-start state, a recording widget run (:mod:`yahtzee_sim._core.widget`,
max-EV lanes) gives the optimal value of every decision point of the turn, and the
strategy's own decisions give the probability of reaching each point
(:func:`yahtzee_sim._core.reach.reach_layer`). The loss of a decision is ``optimal value
of the point − optimal value after the strategy's action``; by the performance-difference
identity, the reach-weighted losses of all decision points sum to ``optimal value − the
strategy's expected score``.

Layers: ``0`` is the box choice, ``j >= 1`` the keep with ``j`` rerolls left.
"""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int8_t, int16_t, int64_t
from libc.stdlib cimport free, malloc

from yahtzee_sim._core.box_loss cimport box_loss
from yahtzee_sim._core.box_step cimport bonus_moves_flag
from yahtzee_sim._core.bundle cimport lanes_of, rules_of
from yahtzee_sim._core.lanes cimport LANES_UPPER, LaneTable
from yahtzee_sim._core.reach cimport reach_layer
from yahtzee_sim._core.rules cimport Rules
from yahtzee_sim._core.widget cimport widget
from yahtzee_sim._core.work cimport Work, free_work, new_work


# The per-state outputs, ``n_rows`` rows each: ``loss``, ``top_roll``, ``top_p``,
# ``top_loss``, ``top_best`` (rows of ``kr.rolls`` layers) and ``by_cat`` (rows of boxes).
cdef struct Out:
    double* loss
    double* by_cat
    int64_t* top_roll
    double* top_p
    double* top_loss
    int64_t* top_best


# A level's states and the strategy's decisions.
cdef struct States:
    const int64_t* used
    const int64_t* upper
    const int64_t* flag
    const int64_t* group_ptr
    const int16_t* keep_dec  # n x keep_layers x n_rolls
    const int8_t* cat_dec  # n x n_rolls
    int64_t keep_layers
    int64_t n_groups


cdef inline void charge(
    const Out* o, int64_t layer, double pr, double d, int64_t r, int64_t best
) noexcept nogil:
    """Add a decision's expected loss ``pr * d`` to ``layer`` of one state's rows ``o``,
    keeping its costliest roll (roll, probability, loss, optimal action)."""
    o.loss[layer] += pr * d
    if pr * d > o.top_p[layer] * o.top_loss[layer]:
        o.top_roll[layer] = r
        o.top_p[layer] = pr
        o.top_loss[layer] = d
        o.top_best[layer] = best


cdef inline void clear_rows(const Rules* kr, const Out* o) noexcept nogil:
    """One state's rows before its turn is charged: no loss, no costliest roll."""
    cdef int64_t j, c
    for j in range(kr.rolls):
        o.loss[j] = 0.0
        o.top_loss[j] = 0.0
        o.top_roll[j] = -1
        o.top_p[j] = 0.0
        o.top_best[j] = -1
    for c in range(kr.n_boxes):
        o.by_cat[c] = 0.0


cdef void turn_regret(
    const Rules* kr, int64_t used, int64_t flag, const Work* work, int64_t nu, int64_t t,
    const int16_t* keep_dec, const int8_t* cat_dec, double* p, double* w, double* fin,
    const Out* o,
) noexcept nogil:
    """Losses of one state's turn into its rows ``o``, from the widget run ``work`` of its
    used-mask and flag (``nu`` lanes), where it is lane ``t``: forward through the turn
    under the strategy's keeps ``keep_dec + (j - 1) * n_rolls``, charging each decision's
    loss, then the boxes ``cat_dec`` of the final rolls. ``p``, ``fin`` (rolls) and ``w``
    (keeps): scratch. A reached roll whose box lies outside the sheet is not charged (the
    caller refuses such a strategy), nor one whose box is filled already."""
    cdef int64_t n_rolls = kr.n_rolls
    cdef int64_t rolls_nu = n_rolls * nu
    cdef const double* roll_vals = work.roll_vals
    cdef int64_t r, j, k, c
    cdef double q, d, pr, best
    # under a bonus limit a bonus Yahtzee's boxes are valued at the next flag
    cdef const double* val_bonus = work.val_bonus if bonus_moves_flag(kr, used, flag) else NULL
    clear_rows(kr, o)
    for r in range(n_rolls):
        p[r] = kr.first_roll_prob[r]
        fin[r] = 0.0
    for j in range(kr.rolls - 1, 0, -1):
        for r in range(n_rolls):
            if p[r] == 0.0:
                continue
            k = keep_dec[(j - 1) * n_rolls + r]
            if kr.keep_size[k] == kr.n_dice:
                q = roll_vals[r * nu + t]
            else:
                q = work.keep_vals[(j * kr.n_keeps + k) * nu + t]
            d = roll_vals[j * rolls_nu + r * nu + t] - q
            if d > 0.0:
                charge(o, j, p[r], d, r, work.keep[j * rolls_nu + r * nu + t])
        reach_layer(kr, keep_dec + (j - 1) * n_rolls, p, w, fin)
    for r in range(n_rolls):
        pr = p[r] + fin[r]
        c = cat_dec[r]
        if pr == 0.0 or c < 0 or c >= kr.n_boxes or (used >> c) & 1:
            continue  # (an illegal box: the widget tabled no value for it)
        best = roll_vals[r * nu + t]
        d = box_loss(kr, used, flag, work.val, val_bonus, nu, work.slots, r, t, c, best)
        if d > 0.0:
            o.by_cat[c] += pr * d
            charge(o, 0, pr, d, r, work.cat[r * nu + t])


cdef void group_regret(
    const Rules* kr, const LaneTable* lanes, const States* s, int64_t g, Work* work,
    double* p, double* w, double* fin, const Out* out,
) noexcept nogil:
    """The states of group ``g`` (one used-mask and flag): one recording widget run over
    the lanes of their upper totals, then each state's turn."""
    cdef int64_t a = s.group_ptr[g]
    cdef int64_t b = s.group_ptr[g + 1]
    cdef int64_t lo = s.upper[a]
    cdef int64_t hi = s.upper[a]
    cdef int64_t i, nu, R = kr.rolls
    cdef Out o
    for i in range(a + 1, b):
        lo = min(lo, s.upper[i])
        hi = max(hi, s.upper[i])
    nu = hi - lo + 1
    widget(kr, lanes, s.used[a], lo, s.flag[a], lo, nu, work, 2)
    for i in range(a, b):
        o.loss = out.loss + i * R
        o.by_cat = out.by_cat + i * kr.n_boxes
        o.top_roll = out.top_roll + i * R
        o.top_p = out.top_p + i * R
        o.top_loss = out.top_loss + i * R
        o.top_best = out.top_best + i * R
        turn_regret(
            kr, s.used[i], s.flag[i], work, nu, s.upper[i] - lo,
            s.keep_dec + i * s.keep_layers * kr.n_rolls, s.cat_dec + i * kr.n_rolls, p, w,
            fin, &o,
        )


cdef bint regret_chunk(
    const Rules* kr, const LaneTable* lanes, const States* s, int64_t chunk,
    int64_t n_chunks, const Out* out,
) noexcept nogil:
    """The groups ``chunk, chunk + n_chunks, ...`` of :func:`level_regret`, with work
    buffers of their own; False if out of memory."""
    cdef Work work
    cdef double* p = <double*>malloc(kr.n_rolls * sizeof(double))
    cdef double* fin = <double*>malloc(kr.n_rolls * sizeof(double))
    cdef double* w = <double*>malloc(kr.n_keeps * sizeof(double))
    cdef bint ok = new_work(kr, kr.upper_cap + 1, 2, &work) and p != NULL and fin != NULL
    cdef int64_t g = chunk
    ok = ok and w != NULL
    while ok and g < s.n_groups:
        group_regret(kr, lanes, s, g, &work, p, w, fin, out)
        g += n_chunks
    free_work(&work)
    free(p)
    free(fin)
    free(w)
    return ok


cdef check_states(Rules r, used, upper, flag, group_ptr):
    """Refuse states or groups outside the rules (``ValueError``): the kernel reads and
    writes without bounds checks."""
    n = used.shape[0]
    if upper.shape[0] != n or flag.shape[0] != n:
        raise ValueError("used, upper and flag must have one entry per state")
    ptr = np.asarray(group_ptr)
    m = len(ptr) - 1
    if ptr.ndim != 1 or m < 0 or ptr[0] != 0 or ptr[m] != n or (np.diff(ptr) < 1).any():
        raise ValueError(f"group_ptr must be increasing offsets from 0 to n = {n}, no group empty")
    if n == 0:
        return
    if used.min() < 0 or used.max() >= ((<int64_t>1) << r.n_boxes):
        raise ValueError(f"used must be used-masks of {r.n_boxes} boxes")
    if upper.min() < 0 or upper.max() > r.upper_cap:
        raise ValueError(f"upper totals must lie in 0..{r.upper_cap}")
    if flag.min() < 0 or flag.max() >= r.flag_size:
        raise ValueError(f"flags must lie in 0..{r.flag_size - 1}")
    first = np.repeat(ptr[:m], np.diff(ptr))
    if (used[first] != used).any() or (flag[first] != flag).any():
        raise ValueError("every group must hold states of one used-mask and flag")


cdef check_decisions(Rules r, keep, cat, int64_t n):
    """Refuse decision tables the kernel cannot read (``ValueError``): ``keep`` int16 ``(n,
    layers, n_rolls)`` of keep indices, a layer per reroll at least; ``cat`` int8 ``(n,
    n_rolls)``."""
    if keep.dtype != np.int16 or cat.dtype != np.int8:
        raise ValueError(
            f"keep_dec must be int16 and cat_dec int8, got {keep.dtype} and {cat.dtype}"
        )
    if keep.ndim != 3 or cat.ndim != 2 or keep.shape[0] != n or cat.shape[0] != n:
        raise ValueError(f"keep_dec must be (n, layers, n_rolls) and cat_dec (n, n_rolls), n = {n}")
    if keep.shape[1] < r.rolls - 1 or keep.shape[2] != r.n_rolls or cat.shape[1] != r.n_rolls:
        raise ValueError(f"keep_dec needs {r.rolls - 1} layers and both {r.n_rolls} rolls")
    if keep.size and (keep.min() < 0 or keep.max() >= r.n_keeps):
        raise ValueError(f"keep indices must lie in 0..{r.n_keeps - 1}")


cdef checked_level(Rules r, LaneTable t, used, upper, flag, group_ptr, keep, cat, out):
    """The arrays of :func:`level_regret`, checked (``ValueError``), contiguous: ``None``
    when there is no state."""
    if r.saving:
        raise ValueError("level_regret takes games without saved rolls (saved_level_regret)")
    if t.kind != LANES_UPPER or t.n_offset != 0 or t.n_values < r.n_states:
        raise ValueError("lanes must be max-EV lanes over upper totals, one value per state")
    cdef const int64_t[::1] u = used
    cdef const int64_t[::1] up = upper
    cdef const int64_t[::1] f = flag
    cdef const int64_t[::1] ptr = group_ptr
    n = u.shape[0]
    check_states(r, np.asarray(u), np.asarray(up), np.asarray(f), np.asarray(ptr))
    check_decisions(r, keep, cat, n)
    if len(out) != 6:
        raise ValueError("out must be (loss, by_cat, top_roll, top_p, top_loss, top_best)")
    cdef double[:, ::1] loss = out[0]
    cdef double[:, ::1] by_cat = out[1]
    cdef int64_t[:, ::1] top_roll = out[2]
    cdef double[:, ::1] top_p = out[3]
    cdef double[:, ::1] top_loss = out[4]
    cdef int64_t[:, ::1] top_best = out[5]
    for a in (out[0], out[2], out[3], out[4], out[5]):
        if a.shape[0] != n or a.shape[1] != r.rolls:
            raise ValueError(f"loss and top_* must be (n, rolls) = ({n}, {r.rolls})")
    if by_cat.shape[0] != n or by_cat.shape[1] != r.n_boxes:
        raise ValueError(f"by_cat must be (n, n_boxes) = ({n}, {r.n_boxes})")
    if n == 0:
        return None
    decisions = (np.ascontiguousarray(keep), np.ascontiguousarray(cat))
    return (u, up, f, ptr, *decisions, loss, by_cat, top_roll, top_p, top_loss, top_best)


cdef void level_view(arrays, States* s, Out* o):
    """Point ``s`` and ``o`` into the checked arrays of :func:`checked_level`."""
    cdef const int64_t[::1] used = arrays[0]
    cdef const int64_t[::1] upper = arrays[1]
    cdef const int64_t[::1] flag = arrays[2]
    cdef const int64_t[::1] ptr = arrays[3]
    cdef const int16_t[:, :, ::1] keep = arrays[4]
    cdef const int8_t[:, ::1] cat = arrays[5]
    cdef double[:, ::1] loss = arrays[6]
    cdef double[:, ::1] by_cat = arrays[7]
    cdef int64_t[:, ::1] top_roll = arrays[8]
    cdef double[:, ::1] top_p = arrays[9]
    cdef double[:, ::1] top_loss = arrays[10]
    cdef int64_t[:, ::1] top_best = arrays[11]
    s.used = &used[0]
    s.upper = &upper[0]
    s.flag = &flag[0]
    s.group_ptr = &ptr[0]
    s.keep_dec = &keep[0, 0, 0] if keep.shape[1] else NULL
    s.keep_layers = keep.shape[1]
    s.cat_dec = &cat[0, 0]
    s.n_groups = ptr.shape[0] - 1
    o.loss = &loss[0, 0]
    o.by_cat = &by_cat[0, 0]
    o.top_roll = &top_roll[0, 0]
    o.top_p = &top_p[0, 0]
    o.top_loss = &top_loss[0, 0]
    o.top_best = &top_best[0, 0]


def level_regret(
    kr, lanes, used, upper, flag, group_ptr, keep_dec, cat_dec, out, int64_t n_chunks,
    int n_threads=1,
):
    """Per-state expected losses of one level, groups of states in parallel (the values do
    not depend on ``n_chunks`` or ``n_threads``).

    Parameters
    ----------
    kr : KernelRules
        The rules (a game without saved rolls).
    lanes : Lanes
        Max-EV lanes over upper totals of the optimal table
        (:func:`~yahtzee_sim._kernels.lanes.upper_total_lanes`).
    used, upper, flag : ndarray of int64, shape (n,)
        The turn-start states.
    group_ptr : ndarray of int64, shape (groups + 1,)
        Group ``g`` holds states ``group_ptr[g] .. group_ptr[g + 1] - 1``, all of one
        used-mask and flag: one recording widget run over the lanes of their upper totals
        serves them all.
    keep_dec : ndarray of int16, shape (n, layers, n_rolls)
        ``keep_dec[i, j - 1, r]``: the strategy's keep at roll ``r`` with ``j`` rerolls
        left (``layers`` at least the rerolls per turn).
    cat_dec : ndarray of int8, shape (n, n_rolls)
        The box the strategy chooses for each final roll.
    out : tuple of ndarray
        ``(loss, by_cat, top_roll, top_p, top_loss, top_best)``, written: ``loss[i, j]``,
        the expected loss (given the state is reached) of layer ``j`` (float64, ``(n,
        rolls)``); ``by_cat[i, c]``, box losses by the box the strategy chose (float64,
        ``(n, n_boxes)``); ``top_*[i, j]``, the costliest roll of each layer (roll,
        probability within the turn, loss, optimal action: box index or keep index;
        int64, float64, float64, int64, ``(n, rolls)``; roll and action -1 when no loss).
    n_chunks : int
        The groups are shared out in this many chunks (a few per thread: a recording work
        buffer over every upper total is large).
    n_threads : int
        Threads to run on.

    Returns
    -------
    None
    """
    cdef Rules r = rules_of(kr)
    cdef LaneTable t = lanes_of(lanes)
    cdef States s
    cdef Out o
    cdef Py_ssize_t chunk
    cdef int64_t failed = 0
    keep_dec, cat_dec = np.asarray(keep_dec), np.asarray(cat_dec)
    arrays = checked_level(r, t, used, upper, flag, group_ptr, keep_dec, cat_dec, out)
    if arrays is None:
        return
    level_view(arrays, &s, &o)
    n_chunks = max(1, min(s.n_groups, n_chunks))
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for chunk in prange(n_chunks, schedule="dynamic"):
            if not regret_chunk(&r, &t, &s, chunk, n_chunks, &o):
                failed += 1
    if failed:
        raise MemoryError("level_regret: out of memory for its work buffers")
