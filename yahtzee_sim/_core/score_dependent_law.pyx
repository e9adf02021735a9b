# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The exact law of score-dependent strategies in the compiled core: one level of the
forward pass over score-augmented positions (:func:`augmented_level`).

A position is a turn-start state with the points scored so far; the strategies are those
played from need lanes (target, win, utility: :mod:`yahtzee_sim.exact.score_dependent`).
The mass of every position of a level moves along its turn's outcomes
(:mod:`yahtzee_sim._core.outcomes`) into the next level: the live lanes of a state
(:func:`~yahtzee_sim._core.lanes.need_lane_live`) by the widget's recorded decisions, one
run per tile of lanes, the other lanes by the state's max-EV decisions.
"""

import numpy as np

from libc.stdint cimport int8_t, int16_t, int64_t

from yahtzee_sim._core.bundle cimport lanes_of, rules_of
from yahtzee_sim._core.lanes cimport LANES_NEED, LaneTable, need_lane_live
from yahtzee_sim._core.outcomes cimport (
    box_outcome_keys,
    outcome_effects,
    roll_outcomes,
    tally_outcome,
)
from yahtzee_sim._core.reach cimport final_roll_law
from yahtzee_sim._core.rules cimport Rules
from yahtzee_sim._core.widget cimport widget
from yahtzee_sim._core.work cimport Work, free_work, new_work


# status of a level pass
cdef enum:
    LEVEL_DONE = 0
    LEVEL_ILLEGAL_BOX = 1  # a fallback decision writes an illegal box
    LEVEL_NO_ROOM = 2  # an outcome lands outside the next level's positions


# One level's positions and where their mass goes.
cdef struct Level:
    const int64_t* off  # positions of state s: off[s] .. off[s + 1] - 1
    const double* mass
    const int64_t* next_off
    double* next_mass
    int64_t n_next_states
    double* stats  # (P(upper bonus), expected Yahtzee bonuses)
    double* cat_sum
    double* cat_zero
    double* cat_turn
    int64_t turn


# Scratch of one pass: a roll law, an outcome accumulator and one lane's decisions.
cdef struct Scratch:
    double* p  # rolls
    double* fin  # rolls
    double* w  # keeps
    double* acc  # boxes x outcome keys, zero between uses
    int64_t* touched  # rolls
    int16_t* keep_dec  # layers x rolls
    int8_t* cat_row  # rolls
    int64_t width  # outcome keys per box


cdef bint push(
    const Rules* kr, int64_t used, int64_t upper, int64_t flag, int64_t x, double mass,
    Scratch* sc, int64_t n_touched, Level* lv,
) noexcept nogil:
    """Move ``mass`` at ``x`` points so far along the outcomes ``sc.acc[sc.touched[:n]]``
    into the next level; False if an outcome lands outside the next level's positions."""
    cdef int64_t m, key, c, raw, yb, nxt, pts, ub, at
    cdef double w
    for m in range(n_touched):
        key = sc.touched[m]
        c = key // sc.width
        raw = (key % sc.width) // 2
        yb = key % 2
        nxt = outcome_effects(kr, used, upper, flag, c, raw, yb, &pts, &ub)
        w = sc.acc[key] * mass
        if nxt < 0 or nxt >= lv.n_next_states:
            return False
        at = lv.next_off[nxt] + x + pts
        if at >= lv.next_off[nxt + 1]:
            return False
        lv.next_mass[at] += w
        tally_outcome(lv.cat_sum, lv.cat_zero, lv.cat_turn, lv.stats, c, raw, yb, ub, w, lv.turn)
    return True


cdef inline void clear_outcomes(Scratch* sc, int64_t n_touched) noexcept nogil:
    """Zero the accumulator's touched keys."""
    cdef int64_t m
    for m in range(n_touched):
        sc.acc[sc.touched[m]] = 0.0


cdef void lane_decisions(const Rules* kr, const Work* work, int64_t nu, int64_t k, Scratch* sc) noexcept nogil:
    """Lane ``k``'s recorded decisions (of a widget run over ``nu`` lanes) into
    ``sc.cat_row`` and ``sc.keep_dec``."""
    cdef int64_t n_rolls = kr.n_rolls
    cdef int64_t r, j
    for r in range(n_rolls):
        sc.cat_row[r] = <int8_t>work.cat[r * nu + k]
        for j in range(1, kr.rolls):
            sc.keep_dec[(j - 1) * n_rolls + r] = <int16_t>work.keep[(j * n_rolls + r) * nu + k]


cdef int64_t push_live_lanes(
    const Rules* kr, const LaneTable* lanes, int64_t anchor, const int64_t* item,
    int64_t t_lo, int64_t t_hi, int64_t tile, Level* lv, Scratch* sc, Work* work,
) noexcept nogil:
    """Push the positions of state ``item = (used, upper, flag, state)`` on the live lanes
    ``t_lo .. t_hi`` by the widget's decisions, ``tile`` lanes per run; a status."""
    cdef int64_t used = item[0], upper = item[1], flag = item[2], s = item[3]
    cdef int64_t o = lv.off[s]
    cdef int64_t n = lv.off[s + 1] - o
    cdef int64_t lo, nu, k, x, n_touched, bad
    cdef bint fits
    lo = t_lo
    while lo <= t_hi:
        nu = min(tile, t_hi + 1 - lo)
        widget(kr, lanes, used, upper, flag, lo, nu, work, 1)
        for k in range(nu):
            x = anchor - lo - k
            if x < 0 or x >= n or lv.mass[o + x] == 0.0 or not need_lane_live(lanes, s, lo + k):
                continue
            lane_decisions(kr, work, nu, k, sc)
            final_roll_law(kr, sc.keep_dec, sc.p, sc.w, sc.fin)
            n_touched = roll_outcomes(
                kr, used, flag, sc.cat_row, sc.fin, sc.acc, sc.touched, sc.width, &bad
            )
            fits = push(kr, used, upper, flag, x, lv.mass[o + x], sc, n_touched, lv)
            clear_outcomes(sc, n_touched)
            if not fits:
                return LEVEL_NO_ROOM
        lo += tile
    return LEVEL_DONE


cdef int64_t level_loop(
    const Rules* kr, const LaneTable* lanes, int64_t anchor, const int64_t* items,
    int64_t n_items, const int16_t* opt_keep, int64_t layers, const int8_t* opt_cat,
    int64_t tile, Level* lv, Scratch* sc, Work* work, int64_t* failed_item,
) noexcept nogil:
    """The loop of :func:`augmented_level` over its states; a status, and in
    ``failed_item`` the item it stopped at."""
    cdef int64_t n_rolls = kr.n_rolls
    cdef int64_t i, s, o, n, x, t, t_lo, t_hi, n_touched, bad, status
    cdef const int64_t* item
    for i in range(n_items):
        item = items + 4 * i
        s = item[3]
        o = lv.off[s]
        n = lv.off[s + 1] - o
        failed_item[0] = i
        # the fallback (max-EV) outcomes, applied to every dead lane
        final_roll_law(kr, opt_keep + i * layers * n_rolls, sc.p, sc.w, sc.fin)
        n_touched = roll_outcomes(
            kr, item[0], item[2], opt_cat + i * n_rolls, sc.fin, sc.acc, sc.touched,
            sc.width, &bad,
        )
        if bad >= 0:
            return LEVEL_ILLEGAL_BOX
        t_lo, t_hi = (<int64_t>1) << 40, -((<int64_t>1) << 40)
        for x in range(n):
            if lv.mass[o + x] == 0.0:
                continue
            t = anchor - x
            if need_lane_live(lanes, s, t):
                t_lo = min(t_lo, t)
                t_hi = max(t_hi, t)
            elif not push(kr, item[0], item[1], item[2], x, lv.mass[o + x], sc, n_touched, lv):
                clear_outcomes(sc, n_touched)
                return LEVEL_NO_ROOM
        clear_outcomes(sc, n_touched)
        status = push_live_lanes(kr, lanes, anchor, item, t_lo, t_hi, tile, lv, sc, work)
        if status != LEVEL_DONE:
            return status
    return LEVEL_DONE



cdef check_level(Rules r, LaneTable t, items, opt_keep, opt_cat, off, mass, next_off,
                 next_mass, sums, int64_t tile):
    """Refuse the arguments of :func:`augmented_level` its loop cannot take (``ValueError``)."""
    if t.kind != LANES_NEED:
        raise ValueError("augmented_level plays need lanes (points still needed)")
    if tile < 1:
        raise ValueError(f"tile must be at least 1, got {tile}")
    if items.ndim != 2 or items.shape[1] != 4:
        raise ValueError("items must be rows (used, upper, flag, state)")
    n = items.shape[0]
    if opt_keep.dtype != np.int16 or opt_cat.dtype != np.int8:
        raise ValueError(f"opt_keep must be int16 and opt_cat int8, got {opt_keep.dtype} and {opt_cat.dtype}")
    if opt_keep.ndim != 3 or opt_keep.shape[0] != n or opt_keep.shape[2] != r.n_rolls:
        raise ValueError(f"opt_keep must be ({n}, layers, {r.n_rolls})")
    if opt_keep.shape[1] < r.rolls - 1:
        raise ValueError(f"opt_keep must have a layer per reroll ({r.rolls - 1})")
    if opt_cat.shape != (n, r.n_rolls):
        raise ValueError(f"opt_cat must be ({n}, {r.n_rolls})")
    read = opt_keep[:, : r.rolls - 1]  # the layers the turns read (none with one roll)
    if read.size and (read.min() < 0 or read.max() >= r.n_keeps):
        raise ValueError(f"opt_keep indices must lie in 0..{r.n_keeps - 1}")
    if off.ndim != 1 or off.shape[0] < 2 or mass.shape[0] != off[off.shape[0] - 1]:
        raise ValueError("mass must hold off[-1] positions")
    if (next_off.ndim != 1 or next_off.shape[0] < 2
            or next_mass.shape[0] != next_off[next_off.shape[0] - 1]):
        raise ValueError("next_mass must hold next_off[-1] positions")
    if np.any(np.diff(off) < 0) or np.any(np.diff(next_off) < 0) or off[0] < 0 or next_off[0] < 0:
        raise ValueError("off and next_off must be non-decreasing offsets from 0 or more")
    if sums[0].shape[0] != 2 or any(a.shape[0] != r.n_boxes for a in sums[1:]):
        raise ValueError(f"stats must have 2 entries and cat_sum, cat_zero, cat_turn {r.n_boxes}")
    if n == 0:
        return
    used, upper, flag, states = items.T
    if states.min() < 0 or states.max() >= min(off.shape[0] - 1, t.n_offset):
        raise ValueError("item states must index off and the lanes' rows")
    if used.min() < 0 or used.max() >= (1 << r.n_boxes):
        raise ValueError(f"used must be used-masks of {r.n_boxes} boxes")
    if upper.min() < 0 or upper.max() > r.upper_cap:
        raise ValueError(f"upper totals must lie in 0..{r.upper_cap}")
    if flag.min() < 0 or flag.max() >= r.flag_size:
        raise ValueError(f"flags must lie in 0..{r.flag_size - 1}")


def augmented_level(
    kr, lanes, int64_t anchor, items, opt_keep, opt_cat, off, mass, next_off, next_mass,
    int64_t turn, int64_t tile, stats, cat_sum, cat_zero, cat_turn,
):
    """Push the mass of every score-augmented position of one level to the next level.

    Releases the GIL: threads may push disjoint items into their own next levels.

    Parameters
    ----------
    kr : KernelRules
        The rules.
    lanes : Lanes
        The strategy's need lanes (:func:`~yahtzee_sim._kernels.lanes.points_needed_lanes`).
    anchor : int
        Lane ``anchor - x`` is the lane of ``x`` points so far.
    items : ndarray of int64, shape (n, 4)
        Rows ``(used, upper, flag, state)``: the turn-start states pushed.
    opt_keep : ndarray of int16, shape (n, layers, n_rolls)
        The fallback (max-EV) keep of each state at each roll with ``j`` rerolls left
        (layer ``j - 1``), played on dead lanes.
    opt_cat : ndarray of int8, shape (n, n_rolls)
        The fallback box of each state at each final roll.
    off, mass : ndarray of int64 and float64
        State ``s`` has mass ``mass[off[s] + x]`` at ``x`` points so far.
    next_off, next_mass : ndarray of int64 and float64
        The next level's positions; ``next_mass`` is added to.
    turn : int
        The 0-based turn of the level (the per-box turn sums).
    tile : int
        Lanes per widget run.
    stats, cat_sum, cat_zero, cat_turn : ndarray of float64
        Added to: P(upper bonus) and expected Yahtzee bonuses (2), and per box the
        expected points, P(zero) and the expected turn it is filled in.

    Returns
    -------
    int
        The first item whose fallback box is illegal at a reachable roll (its pushes not
        made), or -1.
    """
    cdef Rules r = rules_of(kr)
    cdef LaneTable t = lanes_of(lanes)
    items = np.ascontiguousarray(items, dtype=np.int64)
    opt_keep, opt_cat = np.ascontiguousarray(opt_keep), np.ascontiguousarray(opt_cat)
    sums = (stats, cat_sum, cat_zero, cat_turn)
    check_level(r, t, items, opt_keep, opt_cat, np.asarray(off), np.asarray(mass),
                np.asarray(next_off), np.asarray(next_mass), sums, tile)
    cdef const int64_t[:, ::1] iv = items
    cdef const int16_t[:, :, ::1] kv = opt_keep
    cdef const int8_t[:, ::1] cv = opt_cat
    cdef const int64_t[::1] ov = off
    cdef const double[::1] mv = mass
    cdef const int64_t[::1] nov = next_off
    cdef double[::1] nmv = next_mass
    cdef double[::1] st = stats
    cdef double[::1] cs = cat_sum
    cdef double[::1] cz = cat_zero
    cdef double[::1] ct = cat_turn
    cdef int64_t n = iv.shape[0]
    if n == 0:
        return -1
    width = box_outcome_keys(&r)
    buffers = (np.empty(r.n_rolls), np.empty(r.n_rolls), np.empty(r.n_keeps),
               np.zeros(r.n_boxes * width), np.empty(r.n_rolls, dtype=np.int64),
               np.zeros(max(r.rolls - 1, 1) * r.n_rolls, dtype=np.int16),
               np.empty(r.n_rolls, dtype=np.int8))
    cdef double[::1] p = buffers[0]
    cdef double[::1] fin = buffers[1]
    cdef double[::1] w = buffers[2]
    cdef double[::1] acc = buffers[3]
    cdef int64_t[::1] touched = buffers[4]
    cdef int16_t[::1] keep_dec = buffers[5]
    cdef int8_t[::1] cat_row = buffers[6]
    cdef Scratch sc
    sc.p, sc.fin, sc.w, sc.acc = &p[0], &fin[0], &w[0], &acc[0]
    sc.touched, sc.keep_dec, sc.cat_row, sc.width = &touched[0], &keep_dec[0], &cat_row[0], width
    cdef Level lv
    # boundscheck is off: &v[0] of an empty view is its (unread) data pointer
    lv.off, lv.mass, lv.next_off, lv.next_mass = &ov[0], &mv[0], &nov[0], &nmv[0]
    lv.n_next_states = nov.shape[0] - 1
    lv.stats, lv.cat_sum, lv.cat_zero, lv.cat_turn = &st[0], &cs[0], &cz[0], &ct[0]
    lv.turn = turn
    cdef Work work
    cdef int64_t status, failed_item = -1
    if not new_work(&r, tile, 1, &work):
        free_work(&work)
        raise MemoryError("augmented_level: out of memory for its work buffer")
    with nogil:
        status = level_loop(&r, &t, anchor, &iv[0, 0], n, &kv[0, 0, 0], kv.shape[1],
                            &cv[0, 0], tile, &lv, &sc, &work, &failed_item)
    free_work(&work)
    if status == LEVEL_NO_ROOM:
        raise ValueError(f"item {failed_item}: an outcome lands outside next_off's positions")
    return failed_item if status == LEVEL_ILLEGAL_BOX else -1
