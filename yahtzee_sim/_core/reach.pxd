# cython: language_level=3
"""The law of a turn's rolls under fixed keeps, in the compiled core: how the probability of
each roll flows through one decision layer (:func:`reach_layer`) and which roll the turn
ends with (:func:`final_roll_law`). Shared by the exact evaluator and the regret passes;
the same sums in the same order as the numba kernels they replace.

Arrays are C pointers: ``p``, ``fin`` have ``kr.n_rolls`` entries, ``w`` ``kr.n_keeps``;
a keep row has ``kr.n_rolls`` keep indices (each in ``0 .. kr.n_keeps - 1``, unchecked:
the ``def`` entry points check them).
"""

from libc.stdint cimport int16_t, int32_t, int64_t

from yahtzee_sim._core.rules cimport Rules


cdef inline void reach_layer(
    const Rules* kr, const int16_t* keep_row, double* p, double* w, double* fin
) noexcept nogil:
    """Push the law ``p`` of the rolls at one decision layer through the strategy's keeps
    ``keep_row[r]``: turns that keep every die end here (their mass is added to ``fin``);
    the others reroll, the dice added one at a time through ``keep_add`` (keeps are
    sorted by size, so larger keeps come later). ``p`` becomes the law of the next roll;
    ``w`` (keeps) is scratch."""
    cdef int64_t n_rolls = kr.n_rolls
    cdef int64_t n_partial = kr.n_keeps - n_rolls  # full keeps (= rolls) come last
    cdef int64_t F = kr.n_faces
    cdef double inv = 1.0 / <double>F
    cdef int64_t k, r, f
    cdef double wk
    cdef const int32_t* add
    for k in range(kr.n_keeps):
        w[k] = 0.0
    for r in range(n_rolls):
        if p[r] == 0.0:
            continue
        k = keep_row[r]
        if kr.keep_size[k] == kr.n_dice:
            fin[r] += p[r]
        else:
            w[k] += p[r]
    for k in range(n_partial):
        wk = w[k]
        if wk == 0.0:
            continue
        wk *= inv
        add = kr.keep_add + k * F
        for f in range(F):
            w[add[f]] += wk
    for r in range(n_rolls):
        p[r] = w[kr.roll_keep_index[r]]


cdef inline void final_roll_law(
    const Rules* kr, const int16_t* keep_dec, double* p, double* w, double* fin
) noexcept nogil:
    """Probability of each roll the turn ends with, into ``fin``.

    ``keep_dec + (j - 1) * kr.n_rolls`` is the keep row chosen with ``j`` rerolls left
    (``j = 1 .. kr.rolls - 1``: ``kr.rolls - 1`` rows, row-major). ``p`` (rolls) and
    ``w`` (keeps) are scratch."""
    cdef int64_t r, j
    for r in range(kr.n_rolls):
        p[r] = kr.first_roll_prob[r]
        fin[r] = 0.0
    for j in range(kr.rolls - 1, 0, -1):
        reach_layer(kr, keep_dec + (j - 1) * kr.n_rolls, p, w, fin)
    for r in range(kr.n_rolls):
        fin[r] += p[r]
