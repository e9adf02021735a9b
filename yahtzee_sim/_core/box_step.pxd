# cython: language_level=3
"""The widget's box step in the compiled core: each roll's best box, lane by lane, from the
value of every (open box, points) pair, computed once per state (:func:`box_values`).

The port of :mod:`yahtzee_sim._kernels.box_step` for max-EV and exponential-utility lanes
(over upper totals; product or compact layout) and need lanes (points still needed), with
no recording: the same arithmetic in the same order, so the same values bit for bit.
Ties: the first box in score-sheet order.
"""

from libc.stdint cimport int64_t

from yahtzee_sim._core.lanes cimport LANES_EXP, LANES_NEED, LaneTable
from yahtzee_sim._core.rules cimport (
    Rules,
    box_open,
    next_state_depends_on_points,
    flag_after_roll,
    kinds_score_normally,
    roll_options,
    saved_state_index,
    scored_state,
    sets_flag,
)
from yahtzee_sim._core.work cimport Work

cdef extern from *:
    """
    #define YS_NEG (-1.0e300)
    """
    const double NEG "YS_NEG"


cdef inline void need_row_lanes(
    double* row, const double* V, int64_t offset, int64_t first, int64_t length, int64_t lo,
    int64_t nu, double top, double bottom,
) noexcept nogil:
    """``row[t]`` = need lane ``lo + t`` of the row at ``V[offset:]`` holding lanes ``first ..
    first + length - 1``: ``top`` before it (the goal reached), ``bottom`` past it."""
    cdef int64_t i = lo - first
    cdef int64_t a = min(max(-i, 0), nu)
    cdef int64_t b = min(max(length - i, 0), nu)
    cdef int64_t t
    for t in range(a):
        row[t] = top
    for t in range(a, b):
        row[t] = V[offset + i + t]
    for t in range(b, nu):
        row[t] = bottom


cdef inline void need_box_values(
    const Rules* kr, const LaneTable* lanes, int64_t used, int64_t upper, int64_t flag,
    int64_t lo, int64_t nu, double* val,
) noexcept nogil:
    """:func:`box_values` of need lanes: ``val[s * nu + t]`` = the next state's value with
    ``lo + t - q`` points still needed, ``q`` = the slot's points + the upper bonus. A box
    that moves neither the upper total nor the flag sends every slot to one next state."""
    cdef int64_t c, s, p, q, s2, bonus
    cdef int64_t f2, n2, o2
    cdef bint same_next
    for c in range(kr.n_boxes):
        if not box_open(kr, used, c):
            continue
        same_next = not next_state_depends_on_points(kr, c)
        f2 = n2 = o2 = 0
        if same_next:
            s2 = scored_state(kr, used, upper, flag, c, 0, &bonus)
            f2 = lanes.first[s2] if lanes.n_first > 0 else 0
            n2, o2 = lanes.length[s2], lanes.offset[s2]
        for s in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
            p = kr.slot_points[s]
            if same_next:
                q = p
            else:
                s2 = scored_state(kr, used, upper, flag, c, p, &bonus)
                q = p + bonus
                f2 = lanes.first[s2] if lanes.n_first > 0 else 0
                n2, o2 = lanes.length[s2], lanes.offset[s2]
            need_row_lanes(val + s * nu, lanes.values, o2, f2, n2, lo - q, nu, lanes.top, lanes.bottom)


cdef inline void box_values(
    const Rules* kr, const LaneTable* lanes, int64_t used, int64_t upper, int64_t flag,
    int64_t lo, int64_t nu, double* val, int64_t saved,
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
    if lanes.kind == LANES_NEED:
        need_box_values(kr, lanes, used, upper, flag, lo, nu, val)
        return
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
    double* Wk, const double* V, int64_t width, const int64_t* rows, int64_t n, int64_t src,
    double mul, double add, int64_t nu,
) noexcept nogil:
    """``Wk[t]`` = the best of ``V[rows[i] * width + src + t] * mul + add`` over ``i < n``
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
        v0 = V + rows[i] * width + src
        v1 = V + rows[min(i + 1, n - 1)] * width + src
        v2 = V + rows[min(i + 2, n - 1)] * width + src
        v3 = V + rows[min(i + 3, n - 1)] * width + src
        for t in range(nu):
            w = max(Wk[t], v0[t] * mul + add)
            w = max(w, v1[t] * mul + add)
            w = max(w, v2[t] * mul + add)
            Wk[t] = max(w, v3[t] * mul + add)


cdef inline void best_open_boxes(
    const Rules* kr, double* W, const double* val, int64_t width, int64_t src,
    const int64_t* open_boxes, int64_t n_open, double mul, double* best,
) noexcept nogil:
    """One lane, every roll as if scored normally: ``W[k]`` of each roll's keep ``k`` = the
    best of ``val[slot * width + src] * mul + 0.0`` over the open boxes, box by box over
    all rolls."""
    cdef int64_t i, r
    cdef const int64_t* sc
    for r in range(kr.n_rolls):
        best[r] = NEG
    for i in range(n_open):
        sc = kr.box_score_slot + open_boxes[i] * kr.n_rolls
        for r in range(kr.n_rolls):
            best[r] = max(best[r], val[sc[r] * width + src] * mul + 0.0)
    for r in range(kr.n_rolls):
        W[kr.roll_keep_index[r]] = best[r]


cdef inline double best_box_one_lane(
    const double* V, int64_t width, int64_t src, const int64_t* rows, int64_t n, double mul,
    double add,
) noexcept nogil:
    """One lane: the best of ``V[rows[i] * width + src] * mul + add`` over ``i < n``
    (``NEG`` if none)."""
    cdef double w = NEG
    cdef double v
    cdef int64_t i
    for i in range(n):
        v = V[rows[i] * width + src] * mul + add
        if v > w:
            w = v
    return w


cdef inline int64_t box_pad(const Rules* kr, const LaneTable* lanes, int64_t flag) noexcept nogil:
    """Extra lanes of box values below ``lo``: the Yahtzee bonus in need lanes of a state
    whose n-of-a-kind rolls earn it (the flag is set), else 0."""
    return kr.yahtzee_bonus if lanes.kind == LANES_NEED and flag else 0


cdef inline void kind_box(
    const Rules* kr, const LaneTable* lanes, int64_t r, int64_t used, int64_t flag,
    int64_t nu, int64_t pad, double* Wk, Work* work, bint moves,
) noexcept nogil:
    """``Wk[t]`` = the best box of n-of-a-kind roll ``r`` in every lane: its legal points
    under the joker rules and its Yahtzee bonus ``yb`` (:func:`roll_options`), which adds
    to max-EV lanes and in need lanes reads the box values ``yb`` lanes lower."""
    cdef bint exp_lanes = lanes.kind == LANES_EXP
    cdef bint need_lanes = lanes.kind == LANES_NEED
    cdef int64_t rows[64]
    cdef int64_t c, n = 0
    cdef int64_t yb = roll_options(kr, r, used, flag, work.slots)
    cdef int64_t src = pad - yb if need_lanes else pad  # lane t reads lane src + t
    cdef double add = 0.0 if need_lanes or exp_lanes else <double>yb
    cdef double mul = lanes.scale[yb] if exp_lanes else 1.0
    cdef const double* V = work.val_bonus if (yb > 0 and moves) else work.val
    for c in range(kr.n_boxes):
        if work.slots[c] >= 0:
            rows[n] = kr.points_slot[c * kr.points_width + work.slots[c]]
            n += 1
    if nu == 1:
        Wk[0] = best_box_one_lane(V, nu + pad, src, rows, n, mul, add)
    else:
        best_boxes_at(Wk, V, nu + pad, rows, n, src, mul, add, nu)


cdef inline void box_step(
    const Rules* kr, const LaneTable* lanes, int64_t used, int64_t upper, int64_t flag,
    int64_t lo, int64_t nu, double* W, Work* work, int64_t saved,
) noexcept nogil:
    """Rows of rolls in ``W`` (row stride ``nu``) = the value of each roll's best box, lane
    by lane; n-of-a-kind rolls by :func:`kind_box` (in need lanes such states' box values
    start :func:`box_pad` lanes early, for the Yahtzee bonus's shift). Under a bonus limit a
    bonus Yahtzee's boxes are valued from ``work.val_bonus``, filled for the next flag.
    ``saved``: the rolls the next turn starts with (games with saved rolls)."""
    cdef int64_t pad = box_pad(kr, lanes, flag)
    cdef int64_t width = nu + pad
    cdef int64_t C = kr.n_boxes
    cdef int64_t rows[64]
    cdef int64_t open_boxes[64]
    cdef int64_t n_open = 0
    cdef int64_t c, r, i, k
    cdef double mul0
    cdef bint moves, one_lane, normal, normal_kinds
    box_values(kr, lanes, used, upper, flag, lo - pad, width, work.val, saved)
    moves = bonus_moves_flag(kr, used, flag)
    if moves:
        box_values(
            kr, lanes, used, upper, flag_after_roll(kr, flag, 1), lo - pad, width,
            work.val_bonus, 0,
        )
    for c in range(C):
        if box_open(kr, used, c):
            open_boxes[n_open] = c
            n_open += 1
    mul0 = lanes.scale[0] if lanes.kind == LANES_EXP else 1.0
    one_lane = nu == 1
    if one_lane:
        best_open_boxes(kr, W, work.val, width, pad, open_boxes, n_open, mul0, work.best)
    normal_kinds = kinds_score_normally(kr, used)
    for r in range(kr.n_rolls):
        normal = kr.yahtzee_face[r] < 0 or normal_kinds
        if one_lane and normal:
            continue
        k = kr.roll_keep_index[r]
        if normal:
            for i in range(n_open):
                rows[i] = kr.score_slot[r * C + open_boxes[i]]
            best_boxes_at(W + k * nu, work.val, width, rows, n_open, pad, mul0, 0.0, nu)
            continue
        kind_box(kr, lanes, r, used, flag, nu, pad, W + k * nu, work, moves)
