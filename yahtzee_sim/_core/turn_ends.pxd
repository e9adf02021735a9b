# cython: language_level=3
"""The ends of a turn in a game with saved rolls, for the compiled core's backward passes
over positions (exact moments, regret): what scoring each roll in the strategy's box does
(:func:`turn_end_entries`) and the moments of the points to come past it
(:func:`put_turn_end`). The same arithmetic as the numba kernels they replace.
"""

from libc.math cimport NAN
from libc.stdint cimport int8_t, int64_t

from yahtzee_sim._core.rules cimport (
    Rules,
    flag_after_roll,
    roll_box_points,
    sets_flag,
    upper_after,
    yahtzee_bonus_points,
)


cdef inline void turn_end_entries(
    const Rules* kr, const int64_t* offset, const int64_t* count, int64_t used,
    int64_t upper, int64_t flag, const int8_t* cat_row, int64_t shift, int64_t t,
    int64_t ld, double* q, int64_t* nxt, int64_t* step,
) noexcept nogil:
    """Lane ``t`` of the turn ends of every roll ``r`` scored in box ``cat_row[r]`` from
    ``(used, upper, flag)``: the points with bonuses ``q[r * ld + t]``, the next state's
    index with no roll saved, minus ``shift``, ``nxt[r * ld + t]`` and the index step per
    saved roll ``step[r * ld + t]`` (``offset``, ``count``: the layout's ``block_offset``
    and ``upper_count``). An illegal box gives ``q`` NaN (the moments it reaches are NaN,
    which reach the start state only if the strategy can make that move) and index 0."""
    cdef int64_t r, c, raw, yb, u2, bonus, nf, used2, e
    for r in range(kr.n_rolls):
        e = r * ld + t
        c = cat_row[r]
        raw = -1
        if 0 <= c < kr.n_boxes:
            raw = roll_box_points(kr, r, used, flag, c)
        if raw < 0:
            q[e] = NAN
            nxt[e] = 0
            step[e] = 0
            continue
        yb = 1 if yahtzee_bonus_points(kr, r, used, flag) > 0 else 0
        u2 = upper_after(kr, upper, c, raw, &bonus)
        nf = 1 if sets_flag(kr, c, raw) else flag_after_roll(kr, flag, yb)
        used2 = used | ((<int64_t>1) << c)
        nxt[e] = offset[used2 * kr.flag_size + nf] + u2 - shift
        step[e] = count[used2]
        q[e] = <double>(raw + yb * kr.yahtzee_bonus + bonus)


cdef inline void put_turn_end(
    double* row, int64_t t, int64_t nu, double q, int64_t i, const double* m1,
    const double* m2,
) noexcept nogil:
    """Lane ``t`` of a row of moments (``row[t]``: first, ``row[nu + t]``: second) = those
    of a turn's end that scores ``q`` points before state ``i`` (moments ``m1[i]``,
    ``m2[i]``): ``q + R`` and ``(q + R)²``."""
    cdef double a1 = m1[i]
    row[t] = q + a1
    row[nu + t] = q * q + 2.0 * q * a1 + m2[i]
