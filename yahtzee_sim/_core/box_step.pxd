# cython: language_level=3
"""The widget's box step in the compiled core: each roll's best box, lane by lane, from the
value of every (open box, points) pair, computed once per state (:func:`box_values`).

For max-EV and exponential-utility lanes (over upper totals; product or compact layout)
and need lanes (points still needed), and the caller-valued lanes of mixed states
(:func:`mixed_box_step`).
Ties: the first box in score-sheet order. A caller that records passes the ``cat`` rows
to :func:`box_step`; one that does not passes NULL, and the loops that record are skipped.
"""

from libc.stdint cimport int64_t, uint8_t

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
    int64_t lo, int64_t nu, double* val, const uint8_t* only,
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
            if only != NULL and not only[s]:
                continue
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
    int64_t lo, int64_t nu, double* val, int64_t saved, const uint8_t* only,
) noexcept nogil:
    """``val[s * nu + t]`` = the value in lane ``t`` (upper total ``lo + t``) of writing the
    points of slot ``s`` in its box, for every slot of every open box: the points, the
    upper bonus if reached now, and the next state's value (its turn starting with
    ``saved`` saved rolls); exponential lanes multiply by ``exp(-θ points)`` instead.
    ``only`` (not NULL): just the slots ``s`` with ``only[s]``, the others left as they
    are."""
    cdef bint exp_lanes = lanes.kind == LANES_EXP
    cdef bint compact = lanes.n_offset > 0
    cdef const double* V = lanes.values
    cdef int64_t cap = kr.upper_cap
    cdef int64_t c, s, p, nf, nxt, a, b, shift, base, src, t
    cdef double at_cap, fp, f, fb
    cdef double* row
    if lanes.kind == LANES_NEED:
        need_box_values(kr, lanes, used, upper, flag, lo, nu, val, only)
        return
    for c in range(kr.n_boxes):
        if not box_open(kr, used, c):
            continue
        for s in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
            if only != NULL and not only[s]:
                continue
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
    double mul, double add, int64_t nu, int64_t* ck, const int64_t* boxes,
) noexcept nogil:
    """``Wk[t]`` = the best of ``V[rows[i] * width + src + t] * mul + add`` over ``i < n``
    (``NEG`` if ``n`` is 0): one roll's best box in every lane, four boxes at a time (a
    group short of four repeats its last box, which changes no maximum; with ``mul`` 1 and
    ``add`` 0 the values are read as they are: no value is -0.0). With a record
    ``ck`` (not NULL), ``ck[t]`` = that box, ``boxes[i]`` (the first on ties; -1 if none)."""
    cdef int64_t i, t, c0, c1, c2, c3, a
    cdef const double* v0
    cdef const double* v1
    cdef const double* v2
    cdef const double* v3
    cdef double w, v
    cdef bint g
    cdef bint plain = mul == 1.0 and add == 0.0
    for t in range(nu):
        Wk[t] = NEG
    if ck != NULL:
        for t in range(nu):
            ck[t] = -1
    for i in range(0, n, 4):
        v0 = V + rows[i] * width + src
        v1 = V + rows[min(i + 1, n - 1)] * width + src
        v2 = V + rows[min(i + 2, n - 1)] * width + src
        v3 = V + rows[min(i + 3, n - 1)] * width + src
        if ck == NULL and plain:  # max-EV and need lanes: the values themselves
            for t in range(nu):
                w = max(Wk[t], v0[t])
                w = max(w, v1[t])
                w = max(w, v2[t])
                Wk[t] = max(w, v3[t])
            continue
        if ck == NULL:
            for t in range(nu):
                w = max(Wk[t], v0[t] * mul + add)
                w = max(w, v1[t] * mul + add)
                w = max(w, v2[t] * mul + add)
                Wk[t] = max(w, v3[t] * mul + add)
            continue
        c0, c1 = boxes[i], boxes[min(i + 1, n - 1)]
        c2, c3 = boxes[min(i + 2, n - 1)], boxes[min(i + 3, n - 1)]
        for t in range(nu):
            w, a = Wk[t], ck[t]
            v = v0[t] * mul + add
            g = v > w
            w, a = (v if g else w), (c0 if g else a)
            v = v1[t] * mul + add
            g = v > w
            w, a = (v if g else w), (c1 if g else a)
            v = v2[t] * mul + add
            g = v > w
            w, a = (v if g else w), (c2 if g else a)
            v = v3[t] * mul + add
            g = v > w
            Wk[t], ck[t] = (v if g else w), (c3 if g else a)


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
    double add, int64_t* ck, const int64_t* boxes,
) noexcept nogil:
    """One lane: the best of ``V[rows[i] * width + src] * mul + add`` over ``i < n``
    (``NEG`` if none); with a record ``ck`` (not NULL), ``ck[0]`` = its box ``boxes[i]``
    (the first on ties; -1 if none)."""
    cdef double w = NEG
    cdef double v
    cdef int64_t i
    cdef int64_t a = -1
    for i in range(n):
        v = V[rows[i] * width + src] * mul + add
        if v > w:
            w = v
            a = i
    if ck != NULL:
        ck[0] = boxes[a] if a >= 0 else -1
    return w


cdef inline int64_t box_pad(const Rules* kr, const LaneTable* lanes, int64_t flag) noexcept nogil:
    """Extra lanes of box values below ``lo``: the Yahtzee bonus in need lanes of a state
    whose n-of-a-kind rolls earn it (the flag is set), else 0."""
    return kr.yahtzee_bonus if lanes.kind == LANES_NEED and flag else 0


cdef inline void kind_box(
    const Rules* kr, const LaneTable* lanes, int64_t r, int64_t used, int64_t flag,
    int64_t nu, int64_t pad, double* Wk, Work* work, bint moves, int64_t* ck,
) noexcept nogil:
    """``Wk[t]`` = the best box of n-of-a-kind roll ``r`` in every lane: its legal points
    under the joker rules and its Yahtzee bonus ``yb`` (:func:`roll_options`), which adds
    to max-EV lanes and in need lanes reads the box values ``yb`` lanes lower; with a
    record ``ck`` (not NULL), ``ck[t]`` = that box."""
    cdef bint exp_lanes = lanes.kind == LANES_EXP
    cdef bint need_lanes = lanes.kind == LANES_NEED
    cdef int64_t rows[64]
    cdef int64_t boxes[64]
    cdef int64_t c, n = 0
    cdef int64_t yb = roll_options(kr, r, used, flag, work.slots)
    cdef int64_t src = pad - yb if need_lanes else pad  # lane t reads lane src + t
    cdef double add = 0.0 if need_lanes or exp_lanes else <double>yb
    cdef double mul = lanes.scale[yb] if exp_lanes else 1.0
    cdef const double* V = work.val_bonus if (yb > 0 and moves) else work.val
    for c in range(kr.n_boxes):
        if work.slots[c] >= 0:
            rows[n] = kr.points_slot[c * kr.points_width + work.slots[c]]
            boxes[n] = c
            n += 1
    if nu == 1:
        Wk[0] = best_box_one_lane(V, nu + pad, src, rows, n, mul, add, ck, boxes)
    else:
        best_boxes_at(Wk, V, nu + pad, rows, n, src, mul, add, nu, ck, boxes)


cdef inline void box_step(
    const Rules* kr, const LaneTable* lanes, int64_t used, int64_t upper, int64_t flag,
    int64_t lo, int64_t nu, double* W, Work* work, int64_t saved, int64_t* cat,
) noexcept nogil:
    """Rows of rolls in ``W`` (row stride ``nu``) = the value of each roll's best box, lane
    by lane; n-of-a-kind rolls by :func:`kind_box` (in need lanes such states' box values
    start :func:`box_pad` lanes early, for the Yahtzee bonus's shift). Under a bonus limit a
    bonus Yahtzee's boxes are valued from ``work.val_bonus``, filled for the next flag.
    ``saved``: the rolls the next turn starts with (games with saved rolls). With a record
    ``cat`` (rolls x ``nu``, not NULL), ``cat[r * nu + t]`` = roll ``r``'s best box in lane
    ``t`` (the first in card order on ties)."""
    cdef int64_t pad = box_pad(kr, lanes, flag)
    cdef int64_t width = nu + pad
    cdef int64_t C = kr.n_boxes
    cdef int64_t rows[64]
    cdef int64_t open_boxes[64]
    cdef int64_t n_open = 0
    cdef int64_t c, r, i, k
    cdef int64_t* ck
    cdef double mul0
    cdef bint moves, one_lane, normal, normal_kinds
    box_values(kr, lanes, used, upper, flag, lo - pad, width, work.val, saved, NULL)
    moves = bonus_moves_flag(kr, used, flag)
    if moves:
        box_values(
            kr, lanes, used, upper, flag_after_roll(kr, flag, 1), lo - pad, width,
            work.val_bonus, 0, NULL,
        )
    for c in range(C):
        if box_open(kr, used, c):
            open_boxes[n_open] = c
            n_open += 1
    mul0 = lanes.scale[0] if lanes.kind == LANES_EXP else 1.0
    one_lane = nu == 1
    if one_lane and cat == NULL:  # box by box over every roll (n-of-a-kind rolls below)
        best_open_boxes(kr, W, work.val, width, pad, open_boxes, n_open, mul0, work.best)
    normal_kinds = kinds_score_normally(kr, used)
    for r in range(kr.n_rolls):
        normal = kr.yahtzee_face[r] < 0 or normal_kinds
        ck = cat + r * nu if cat != NULL else NULL
        k = kr.roll_keep_index[r]
        if one_lane and normal:
            if cat != NULL:
                for i in range(n_open):
                    rows[i] = kr.score_slot[r * C + open_boxes[i]]
                W[k] = best_box_one_lane(work.val, width, pad, rows, n_open, mul0, 0.0, ck, open_boxes)
            continue
        if normal:
            for i in range(n_open):
                rows[i] = kr.score_slot[r * C + open_boxes[i]]
            best_boxes_at(
                W + k * nu, work.val, width, rows, n_open, pad, mul0, 0.0, nu, ck, open_boxes
            )
            continue
        kind_box(kr, lanes, r, used, flag, nu, pad, W + k * nu, work, moves, ck)


cdef inline void mask_used_boxes(
    const Rules* kr, int64_t used, int64_t t, double* val, int64_t nu
) noexcept nogil:
    """Given lanes of mixed states: lane ``t``'s filled boxes (``used``; under forced order
    every box but the next) get the value ``NEG`` in ``val`` (slots x ``nu``), so that no
    roll writes in them (:func:`mixed_box_step`)."""
    cdef int64_t c, s
    for c in range(kr.n_boxes):
        if not box_open(kr, used, c):
            for s in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
                val[s * nu + t] = NEG


cdef inline void mixed_box_step(
    const Rules* kr, const int64_t* used, const int64_t* flag, int64_t nu, double* W,
    Work* work,
) noexcept nogil:
    """The box step of caller-valued lanes whose turn-start states differ: lane ``t`` is a
    game at filled boxes ``used[t]`` and flag ``flag[t]``, its box values in ``work.val``
    (after a bonus Yahtzee, ``work.val_bonus``; slots x ``nu``, filled boxes ``NEG``:
    :func:`mask_used_boxes`). A roll's best box is a max over the boxes open in any lane;
    n-of-a-kind rolls, whose legal boxes and bonus depend on the lane's own boxes and flag,
    are scored lane by lane (:func:`roll_options`). Records ``work.cat`` (work recording
    at level 1 or more)."""
    cdef int64_t C = kr.n_boxes
    cdef int64_t open_any = 0
    cdef int64_t boxes[64]
    cdef int64_t rows[64]
    cdef int64_t n = 0
    cdef int64_t c, r, t, i, k, yb
    cdef double v
    cdef const double* V
    cdef double* Wk
    cdef int64_t* ck
    for t in range(nu):
        open_any |= ~used[t]
    for c in range(C):
        if (open_any >> c) & 1:
            boxes[n] = c
            n += 1
    for r in range(kr.n_rolls):
        k = kr.roll_keep_index[r]
        Wk = W + k * nu
        ck = work.cat + r * nu
        if kr.yahtzee_face[r] < 0:  # normal scoring: the boxes' own slots
            for i in range(n):
                rows[i] = kr.score_slot[r * C + boxes[i]]
            best_boxes_at(Wk, work.val, nu, rows, n, 0, 1.0, 0.0, nu, ck, boxes)
            continue
        for t in range(nu):
            Wk[t] = NEG
            ck[t] = -1
        yb = 0
        for t in range(nu):  # n of a kind: joker rules and the bonus, per lane
            if t == 0 or used[t] != used[t - 1] or flag[t] != flag[t - 1]:
                yb = roll_options(kr, r, used[t], flag[t], work.slots)  # else as lane t - 1
            V = work.val_bonus if yb > 0 else work.val
            for c in range(C):
                if work.slots[c] >= 0:
                    v = V[kr.points_slot[c * kr.points_width + work.slots[c]] * nu + t]
                    if v > Wk[t]:
                        Wk[t] = v
                        ck[t] = c
