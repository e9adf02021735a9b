# cython: language_level=3
"""The widget's keep steps in the compiled core: every keep's and roll's value with rerolls
left, and the state's value (the port of :mod:`yahtzee_sim._kernels.keep_steps` with no
recording; the same sums in the same order).

A keep's value is the mean of the keeps with one more die (:func:`keep_values`); a roll's
value is the best of its sub-keeps (:func:`best_subkeeps`); the state's value is the mean
of the first roll's values (:func:`first_roll_mean`). ``W`` is keeps x lanes, row stride
``nu``.
"""

from libc.stdint cimport int32_t, int64_t

from yahtzee_sim._core.box_step cimport box_step
from yahtzee_sim._core.lanes cimport LANES_NEED, LaneTable
from yahtzee_sim._core.rules cimport Rules, filled_boxes
from yahtzee_sim._core.work cimport Work


cdef inline void keep_values(const Rules* kr, double* W, int64_t nu) noexcept nogil:
    """In place: rows of partial keeps become their expected values, from the rows of
    larger keeps (larger keeps first), the faces summed in order."""
    cdef int64_t F = kr.n_faces
    cdef double inv = 1.0 / <double>F
    cdef int64_t k, f, t
    cdef const int32_t* add
    cdef double w
    cdef const double* w0
    cdef const double* w1
    cdef const double* w2
    cdef const double* w3
    cdef const double* w4
    cdef const double* w5
    cdef double* Wk
    for k in range(kr.n_keeps - 1, -1, -1):
        if kr.keep_size[k] == kr.n_dice:
            continue
        add = kr.keep_add + k * F
        Wk = W + k * nu
        if nu == 1:
            w = W[add[0]]
            for f in range(1, F):
                w += W[add[f]]
            Wk[0] = w * inv
            continue
        if F == 6:
            w0, w1, w2 = W + add[0] * nu, W + add[1] * nu, W + add[2] * nu
            w3, w4, w5 = W + add[3] * nu, W + add[4] * nu, W + add[5] * nu
            for t in range(nu):
                w = (((w0[t] + w1[t]) + w2[t]) + w3[t]) + w4[t]
                Wk[t] = (w + w5[t]) * inv
            continue
        for t in range(nu):
            Wk[t] = 0.0
        for f in range(F):
            w0 = W + add[f] * nu
            for t in range(nu):
                Wk[t] += w0[t]
        for t in range(nu):
            Wk[t] *= inv


cdef inline void best_subkeeps(const Rules* kr, double* W, int64_t nu) noexcept nogil:
    """In place: each row becomes the best value over the sub-keeps of its keep (smaller
    keeps first), so rows of rolls hold the value of the roll with this many rerolls."""
    cdef const int64_t* sub
    cdef int64_t k, n, i, t
    cdef double w
    cdef double* Wk
    cdef const double* a0
    cdef const double* a1
    cdef const double* a2
    cdef const double* a3
    cdef const double* a4
    for k in range(kr.n_keeps):
        sub = kr.keep_sub + k * kr.sub_width
        n = kr.keep_sub_count[k]
        Wk = W + k * nu
        if nu == 1:
            w = Wk[0]
            for i in range(n):
                w = max(w, W[sub[i]])
            Wk[0] = w
            continue
        if n == 0:
            continue
        a0, a1, a2 = W + sub[0] * nu, W + sub[1] * nu, W + sub[2] * nu
        if n <= 2:
            for t in range(nu):
                Wk[t] = max(max(Wk[t], a0[t]), a1[t])
        elif n == 3:
            for t in range(nu):
                Wk[t] = max(max(max(Wk[t], a0[t]), a1[t]), a2[t])
        else:
            a3, a4 = W + sub[3] * nu, W + sub[4] * nu
            for t in range(nu):
                w = max(max(max(Wk[t], a0[t]), a1[t]), a2[t])
                Wk[t] = max(max(w, a3[t]), a4[t])
            for i in range(5, n):
                a0 = W + sub[i] * nu
                for t in range(nu):
                    Wk[t] = max(Wk[t], a0[t])


cdef inline void first_roll_mean(
    const Rules* kr, const double* W, double* out, int64_t nu
) noexcept nogil:
    """``out[t]`` = the mean over first rolls of their rows of ``W`` (``out`` may be the
    empty keep's row ``W[0]``: no roll's row is that row)."""
    cdef int64_t r, t
    cdef double p
    cdef const double* Wk
    for t in range(nu):
        out[t] = 0.0
    for r in range(kr.n_rolls):
        p = kr.first_roll_prob[r]
        Wk = W + kr.roll_keep_index[r] * nu
        for t in range(nu):
            out[t] += p * Wk[t]


cdef inline void reroll_steps(const Rules* kr, double* W, int64_t nu) noexcept nogil:
    """The keep steps of a game without saved rolls, from rows of rolls holding their
    best box's value; the state's value to ``W[0 .. nu - 1]``."""
    cdef int64_t j
    for j in range(1, kr.rolls):
        keep_values(kr, W, nu)
        best_subkeeps(kr, W, nu)
    first_roll_mean(kr, W, W, nu)


cdef inline void saved_roll_steps(
    const Rules* kr, const LaneTable* lanes, int64_t used, int64_t flag, int64_t lo,
    int64_t nu, double* W, Work* work,
) noexcept nogil:
    """The keep steps of a game with saved rolls: with ``j`` rerolls left a roll may be
    scored at once with ``min(j, cap)`` rolls saved, so before each level's best-keep step
    the rows of rolls take their best box's value at that saved count. The state's value
    with ``s`` saved rolls goes to ``work.tops[s]``, that with none also to ``W[0]``;
    over the compact layout only the saved counts this many filled boxes allow."""
    cdef int64_t n_levels = kr.levels
    cdef int64_t j, r, t, s, k
    cdef double* B = work.B
    if lanes.n_offset > 0 and lanes.kind != LANES_NEED:
        n_levels = kr.rolls + min((kr.rolls - 1) * filled_boxes(used), kr.saved_roll_cap)
    for j in range(n_levels):
        if j > 0:
            keep_values(kr, W, nu)
            if j <= kr.saved_roll_cap:
                box_step(kr, lanes, used, 0, flag, lo, nu, B, work, j)
            for r in range(kr.n_rolls):
                k = kr.roll_keep_index[r] * nu
                for t in range(nu):
                    W[k + t] = B[k + t]
            best_subkeeps(kr, W, nu)
        s = j - (kr.rolls - 1)
        if s >= 0:
            first_roll_mean(kr, W, work.tops + s * nu, nu)
    for t in range(nu):
        W[t] = work.tops[t]
