# cython: language_level=3
"""The widget's box step in the compiled core: each roll's best box, lane by lane, from the
value of every (open box, points) pair, computed once per state (:func:`box_values`).

The port of :mod:`yahtzee_sim._kernels.box_step` for max-EV and exponential-utility lanes
(over upper totals; product or compact layout) with no recording: the same arithmetic in
the same order, so the same values bit for bit. Ties: the first box in score-sheet order.
"""

from libc.stdint cimport int64_t

from yahtzee_sim._core.lanes cimport LANES_EXP, LaneTable
from yahtzee_sim._core.rules cimport (
    Rules,
    box_open,
    flag_after_roll,
    kinds_score_normally,
    roll_options,
    saved_state_index,
    sets_flag,
)
from yahtzee_sim._core.work cimport Work

cdef extern from *:
    """
    #define YS_NEG (-1.0e300)
    """
    const double NEG "YS_NEG"


cdef inline void box_values(
    const Rules* kr, const LaneTable* lanes, int64_t used, int64_t flag, int64_t lo,
    int64_t nu, double* val, int64_t saved,
) noexcept nogil:
    """``val[s * nu + t]`` = the value in lane ``t`` (upper total ``lo + t``) of writing the
    points of slot ``s`` in its box, for every slot of every open box: the points, the
    upper bonus if reached now, and the next state's value (its turn starting with
    ``saved`` saved rolls); exponential lanes multiply by ``exp(-θ points)`` instead."""
    cdef bint exp_lanes = lanes.kind == LANES_EXP
    cdef bint compact = lanes.n_offset > 0
    cdef const double* V = lanes.values
    cdef int64_t cap = kr.upper_cap
    cdef int64_t c, s, p, nf, nxt, a, b, shift, base, src, t
    cdef double at_cap, fp, f, fb
    cdef double* row
    for c in range(kr.n_boxes):
        if not box_open(kr, used, c):
            continue
        for s in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
            p = kr.slot_points[s]
            nf = 1 if sets_flag(kr, c, p) else flag
            nxt = used | ((<int64_t>1) << c)
            if not kr.is_upper[c] or cap == 0:  # the upper total does not move
                a, b, shift = nu, nu, 0
            else:  # lanes t < a move to lo + t + p; a <= t < b reach the cap now
                a = min(max(cap - p - lo, 0), nu)
                b = min(max(cap - lo, a), nu)
                shift = p
            if compact:  # only the states that occur (game.state.StateLayout)
                base = lanes.offset[nxt * kr.flag_size + nf] + saved * lanes.length[nxt]
                at_cap = V[base + cap] if lanes.length[nxt] > cap else 0.0
            else:
                base = saved_state_index(kr, nxt, 0, nf, saved)
                at_cap = V[base + cap]
            src = base + lo + shift
            row = val + s * nu
            if exp_lanes:
                f = lanes.scale[p]
                fb = lanes.scale[p + kr.upper_bonus]
                for t in range(a):
                    row[t] = f * V[src + t]
                for t in range(a, b):
                    row[t] = fb * at_cap
                for t in range(b, nu):
                    row[t] = f * at_cap
                continue
            fp = <double>p
            for t in range(a):
                row[t] = fp + V[src + t]
            for t in range(a, b):
                row[t] = fp + <double>kr.upper_bonus + at_cap
            for t in range(b, nu):
                row[t] = fp + at_cap


cdef inline bint bonus_moves_flag(const Rules* kr, int64_t used, int64_t flag) noexcept nogil:
    """Whether a Yahtzee rolled here earns a bonus that moves the flag (a bonus limit)."""
    cdef int64_t yi = kr.yahtzee_index
    return (
        kr.yahtzee_bonus_limit > 0 and yi >= 0 and ((used >> yi) & 1) == 1
        and flag >= 1 and flag <= kr.yahtzee_bonus_limit
    )


cdef inline void best_boxes_at(
    double* Wk, const double* V, const int64_t* rows, int64_t n, int64_t src, double mul,
    double add, int64_t nu,
) noexcept nogil:
    """``Wk[t]`` = the best of ``V[rows[i] * nu + src + t] * mul + add`` over ``i < n``
    (``NEG`` if ``n`` is 0): one roll's best box in every lane, four boxes at a time (a
    group short of four repeats its last box, which changes no maximum)."""
    cdef int64_t i, t, u
    cdef const double* v0
    cdef const double* v1
    cdef const double* v2
    cdef const double* v3
    cdef double w
    for t in range(nu):
        Wk[t] = NEG
    for i in range(0, n, 4):
        v0 = V + rows[i] * nu + src
        v1 = V + rows[min(i + 1, n - 1)] * nu + src
        v2 = V + rows[min(i + 2, n - 1)] * nu + src
        v3 = V + rows[min(i + 3, n - 1)] * nu + src
        for t in range(nu):
            w = max(Wk[t], v0[t] * mul + add)
            w = max(w, v1[t] * mul + add)
            w = max(w, v2[t] * mul + add)
            Wk[t] = max(w, v3[t] * mul + add)


cdef inline void best_open_boxes(
    const Rules* kr, double* W, const double* val, const int64_t* open_boxes, int64_t n_open,
    double mul, double* best,
) noexcept nogil:
    """One lane, every roll as if scored normally: ``W[k]`` of each roll's keep ``k`` = the
    best of ``val[slot] * mul + 0.0`` over the open boxes, box by box over all rolls."""
    cdef int64_t i, r
    cdef const int64_t* sc
    for r in range(kr.n_rolls):
        best[r] = NEG
    for i in range(n_open):
        sc = kr.box_score_slot + open_boxes[i] * kr.n_rolls
        for r in range(kr.n_rolls):
            best[r] = max(best[r], val[sc[r]] * mul + 0.0)
    for r in range(kr.n_rolls):
        W[kr.roll_keep_index[r]] = best[r]


cdef inline double best_box_one_lane(
    const double* V, const int64_t* rows, int64_t n, double mul, double add
) noexcept nogil:
    """One lane: the best of ``V[rows[i]] * mul + add`` over ``i < n`` (``NEG`` if none)."""
    cdef double w = NEG
    cdef double v
    cdef int64_t i
    for i in range(n):
        v = V[rows[i]] * mul + add
        if v > w:
            w = v
    return w


cdef inline void box_step(
    const Rules* kr, const LaneTable* lanes, int64_t used, int64_t flag, int64_t lo,
    int64_t nu, double* W, Work* work, int64_t saved,
) noexcept nogil:
    """Rows of rolls in ``W`` (row stride ``nu``) = the value of each roll's best box, lane
    by lane. n-of-a-kind rolls take their legal points (joker rules) and Yahtzee bonus
    from :func:`roll_options`; under a bonus limit a bonus Yahtzee's boxes are valued from
    ``work.val_bonus``, filled for the next flag. ``saved``: the rolls the next turn
    starts with (games with saved rolls)."""
    cdef bint exp_lanes = lanes.kind == LANES_EXP
    cdef int64_t C = kr.n_boxes
    cdef int64_t rows[64]
    cdef int64_t open_boxes[64]
    cdef int64_t n_open = 0
    cdef int64_t c, r, i, n, yb, k
    cdef double mul0, mul, add
    cdef const double* Vv
    cdef int64_t* slots = work.slots
    cdef bint moves, one_lane, normal, normal_kinds
    box_values(kr, lanes, used, flag, lo, nu, work.val, saved)
    moves = bonus_moves_flag(kr, used, flag)
    if moves:
        box_values(kr, lanes, used, flag_after_roll(kr, flag, 1), lo, nu, work.val_bonus, 0)
    for c in range(C):
        if box_open(kr, used, c):
            open_boxes[n_open] = c
            n_open += 1
    mul0 = lanes.scale[0] if exp_lanes else 1.0
    one_lane = nu == 1
    if one_lane:
        best_open_boxes(kr, W, work.val, open_boxes, n_open, mul0, work.best)
    normal_kinds = kinds_score_normally(kr, used)
    for r in range(kr.n_rolls):
        normal = kr.yahtzee_face[r] < 0 or normal_kinds
        if one_lane and normal:
            continue
        k = kr.roll_keep_index[r]
        if normal:
            for i in range(n_open):
                rows[i] = kr.score_slot[r * C + open_boxes[i]]
            best_boxes_at(W + k * nu, work.val, rows, n_open, 0, mul0, 0.0, nu)
            continue
        yb = roll_options(kr, r, used, flag, slots)
        n = 0
        for c in range(C):
            if slots[c] >= 0:
                rows[n] = kr.points_slot[c * kr.points_width + slots[c]]
                n += 1
        add = 0.0 if exp_lanes else <double>yb
        mul = lanes.scale[yb] if exp_lanes else 1.0
        Vv = work.val_bonus if (yb > 0 and moves) else work.val
        if one_lane:
            W[k] = best_box_one_lane(Vv, rows, n, mul, add)
            continue
        best_boxes_at(W + k * nu, Vv, rows, n, 0, mul, add, nu)
