# cython: language_level=3
"""A turn's outcomes in the compiled core: the law of the final roll grouped by outcome
``(box, raw points, Yahtzee bonus?)`` (:func:`roll_outcomes`), what an outcome does to the
state and the score (:func:`outcome_effects`), and its share of the per-box and bonus
statistics (:func:`tally_outcome`). Shared by the exact evaluator's kernels; the same
arithmetic in the same order as the numba kernels they replace.
"""

from libc.stdint cimport int8_t, int64_t

from yahtzee_sim._core.rules cimport (
    Rules,
    box_legal_points,
    flag_after_roll,
    joker_case,
    scored_state,
    yahtzee_bonus_points,
)


cdef inline int64_t box_outcome_keys(const Rules* kr) noexcept nogil:
    """The keys of one box's outcomes in :func:`roll_outcomes`' accumulator: two (Yahtzee
    bonus or not) per points from 0 to the most any box scores."""
    return 2 * (kr.max_points + 1)


cdef inline int64_t roll_outcomes(
    const Rules* kr, int64_t used, int64_t flag, const int8_t* cat_row, const double* fin,
    double* acc, int64_t* touched, int64_t width, int64_t* bad_roll,
) noexcept nogil:
    """Group the law ``fin`` (rolls) of a turn's final roll by outcome ``(box cat_row[r],
    legal points, Yahtzee bonus?)``: ``acc[c * width + 2 * points + bonus]`` += P, the keys
    listed in ``touched`` (rolls). Returns the number of keys; ``bad_roll[0]`` = the first
    reachable roll whose box is illegal (nothing then accumulated, 0 returned), else -1.
    ``acc`` (``kr.n_boxes * width``) is zero on entry and holds only the touched keys."""
    cdef int64_t n_touched = 0
    cdef int64_t r, m, c, pts, yb, s
    for r in range(kr.n_rolls):
        if fin[r] == 0.0:
            continue
        c = cat_row[r]
        pts = -1
        yb = 0
        if 0 <= c < kr.n_boxes:
            if kr.yahtzee_face[r] >= 0:
                pts = box_legal_points(kr, joker_case(kr, r, used, flag), r, used, c)
                yb = 1 if yahtzee_bonus_points(kr, r, used, flag) > 0 else 0
            elif ((used >> c) & 1) == 0:
                pts = kr.score_table[r * kr.n_boxes + c]
        if pts < 0:
            for m in range(n_touched):
                acc[touched[m]] = 0.0
            bad_roll[0] = r
            return 0
        s = c * width + 2 * pts + yb
        if acc[s] == 0.0:
            touched[n_touched] = s
            n_touched += 1
        acc[s] += fin[r]
    bad_roll[0] = -1
    return n_touched


cdef inline int64_t outcome_effects(
    const Rules* kr, int64_t used, int64_t upper, int64_t flag, int64_t cat, int64_t raw,
    int64_t yb, int64_t* pts, int64_t* ub,
) noexcept nogil:
    """The next state of one outcome (returned), its points with bonuses (``pts[0]``) and
    whether it pays the upper bonus (``ub[0]``, 0 or 1)."""
    cdef int64_t bonus
    cdef int64_t nxt = scored_state(kr, used, upper, flag_after_roll(kr, flag, yb), cat, raw,
                                    &bonus)
    pts[0] = raw + yb * kr.yahtzee_bonus + bonus
    ub[0] = 1 if bonus > 0 else 0
    return nxt


cdef inline void tally_outcome(
    double* cat_sum, double* cat_zero, double* cat_turn, double* stats, int64_t c,
    int64_t raw, int64_t yb, int64_t ub, double m, int64_t turn,
) noexcept nogil:
    """Add probability ``m`` of an outcome (box ``c``, ``raw`` points, Yahtzee bonus
    ``yb``, upper bonus ``ub``, in 0-based ``turn``) to the per-box and bonus statistics."""
    cat_sum[c] += m * <double>raw
    if raw == 0:
        cat_zero[c] += m
    cat_turn[c] += m * <double>(turn + 1)
    stats[0] += m * <double>ub
    stats[1] += m * <double>yb
