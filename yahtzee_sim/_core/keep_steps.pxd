# cython: language_level=3
"""The widget's keep steps in the compiled core: every keep's and roll's value with rerolls
left, and the state's value, recorded as the work buffers' level says.

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
    empty keep's row ``W[0]``: no roll's row is that row). The rolls are added in order,
    four at a time per lane: one load and store of ``out[t]`` per four rolls instead of
    one per roll (the same additions in the same order)."""
    cdef int64_t r = 0
    cdef int64_t t
    cdef double p0, p1, p2, p3
    cdef const double* w0
    cdef const double* w1
    cdef const double* w2
    cdef const double* w3
    cdef const double* p = kr.first_roll_prob
    cdef const int32_t* rki = kr.roll_keep_index
    for t in range(nu):
        out[t] = 0.0
    while r + 4 <= kr.n_rolls:
        p0, p1, p2, p3 = p[r], p[r + 1], p[r + 2], p[r + 3]
        w0, w1 = W + rki[r] * nu, W + rki[r + 1] * nu
        w2, w3 = W + rki[r + 2] * nu, W + rki[r + 3] * nu
        for t in range(nu):
            out[t] = (((out[t] + p0 * w0[t]) + p1 * w1[t]) + p2 * w2[t]) + p3 * w3[t]
        r += 4
    while r < kr.n_rolls:
        p0, w0 = p[r], W + rki[r] * nu
        for t in range(nu):
            out[t] += p0 * w0[t]
        r += 1


cdef inline void best_subkeeps_recorded(
    const Rules* kr, double* W, int32_t* A, int64_t nu
) noexcept nogil:
    """:func:`best_subkeeps` with its record ``A`` (keeps x ``nu``): ``A[k * nu + t]`` = the
    best sub-keep (ties: the larger keep, then removing the lowest face); one
    read-modify-write of keep ``k``'s row and record per removed die."""
    cdef int64_t F = kr.n_faces
    cdef int64_t k, f, t, kk
    cdef double v, w
    cdef int32_t a, b
    cdef bint better
    cdef double* Wk
    cdef int32_t* Ak
    for k in range(kr.n_keeps):
        Wk = W + k * nu
        Ak = A + k * nu
        for t in range(nu):
            Ak[t] = <int32_t>k
        for f in range(F):
            kk = kr.keep_remove[k * F + f]
            if kk < 0:
                continue
            for t in range(nu):
                v, w, a, b = W[kk * nu + t], Wk[t], A[kk * nu + t], Ak[t]
                better = v > w
                Ak[t] = a if better else b
                Wk[t] = v if better else w


cdef inline void record_keeps(
    const Rules* kr, const int32_t* A, int64_t* out, int64_t nu
) noexcept nogil:
    """``out[r * nu + t] = A[rki[r] * nu + t]``: the best keep of every roll (a level's
    record)."""
    cdef int64_t r, t, k
    for r in range(kr.n_rolls):
        k = kr.roll_keep_index[r] * nu
        for t in range(nu):
            out[r * nu + t] = A[k + t]


cdef inline void record_roll_values(
    const Rules* kr, const double* W, double* out, int64_t nu
) noexcept nogil:
    """``out[r * nu + t] = W[rki[r] * nu + t]``: the value of every roll (a level's
    record)."""
    cdef int64_t r, t, k
    for r in range(kr.n_rolls):
        k = kr.roll_keep_index[r] * nu
        for t in range(nu):
            out[r * nu + t] = W[k + t]


cdef inline void copy_values(const double* src, double* dst, int64_t n) noexcept nogil:
    """``dst[i] = src[i]`` for ``i < n``."""
    cdef int64_t i
    for i in range(n):
        dst[i] = src[i]


cdef inline void copy_boxes(const int64_t* src, int64_t* dst, int64_t n) noexcept nogil:
    """``dst[i] = src[i]`` for ``i < n``."""
    cdef int64_t i
    for i in range(n):
        dst[i] = src[i]


cdef inline void subkeep_level(
    const Rules* kr, double* W, int64_t nu, Work* work, int64_t record, int64_t j
) noexcept nogil:
    """One level's best-keep step (rows become the best of their sub-keeps), its best
    keeps recorded as level ``j`` of ``work.keep`` when ``record`` >= 1."""
    if record >= 1:
        best_subkeeps_recorded(kr, W, work.A, nu)
        record_keeps(kr, work.A, work.keep + j * kr.n_rolls * nu, nu)
    else:
        best_subkeeps(kr, W, nu)


cdef inline void reroll_steps(
    const Rules* kr, double* W, int64_t nu, Work* work, int64_t record, bint top
) noexcept nogil:
    """The keep steps of a game without saved rolls, from rows of rolls holding their
    best box's value, recorded as ``record`` says into ``work``; the state's value to
    ``W[0 .. nu - 1]``. ``top`` False stops after the first roll's keep values (``W``: the
    value of each keep with every reroll left; :func:`best_keep_at`)."""
    cdef int64_t j
    cdef int64_t n_keeps = kr.n_keeps
    for j in range(kr.rolls):
        if j > 0:
            keep_values(kr, W, nu)
            if not top and j == kr.rolls - 1:
                return
            if record >= 2:
                copy_values(W, work.keep_vals + j * n_keeps * nu, n_keeps * nu)
            subkeep_level(kr, W, nu, work, record, j)
        if record >= 2:
            record_roll_values(kr, W, work.roll_vals + j * kr.n_rolls * nu, nu)
    first_roll_mean(kr, W, W, nu)


cdef inline void saved_roll_steps(
    const Rules* kr, const LaneTable* lanes, int64_t used, int64_t flag, int64_t lo,
    int64_t nu, double* W, Work* work, int64_t record,
) noexcept nogil:
    """The keep steps of a game with saved rolls: with ``j`` rerolls left a roll may be
    scored at once with ``min(j, cap)`` rolls saved, so before each level's best-keep step
    the rows of rolls take their best box's value at that saved count. The state's value
    with ``s`` saved rolls goes to ``work.tops[s]``, that with none also to ``W[0]``;
    over the compact layout only the saved counts this many filled boxes allow. Records
    (``record`` >= 1): ``work.keep[j]`` and, per level, the box a roll scored at that level
    takes, ``work.cat_levels[j]`` (level 0: ``work.cat``, as the box step left it)."""
    cdef int64_t n_levels = kr.levels
    cdef int64_t rolls_nu = kr.n_rolls * nu
    cdef int64_t j, r, t, s, k
    cdef double* B = work.B
    cdef int64_t* ck
    if record >= 1:
        copy_boxes(work.cat, work.cat_levels, rolls_nu)
    if lanes.n_offset > 0 and lanes.kind != LANES_NEED:
        n_levels = kr.rolls + min((kr.rolls - 1) * filled_boxes(used), kr.saved_roll_cap)
    for j in range(n_levels):
        if j > 0:
            keep_values(kr, W, nu)
            if record >= 2:
                copy_values(W, work.keep_vals + j * kr.n_keeps * nu, kr.n_keeps * nu)
            if j <= kr.saved_roll_cap:
                ck = work.cat_levels + j * rolls_nu if record >= 1 else NULL
                box_step(kr, lanes, used, 0, flag, lo, nu, B, work, j, ck)
            elif record >= 1:  # as many saved as at the level below (the cap)
                copy_boxes(work.cat_levels + (j - 1) * rolls_nu, work.cat_levels + j * rolls_nu, rolls_nu)
            for r in range(kr.n_rolls):
                k = kr.roll_keep_index[r] * nu
                for t in range(nu):
                    W[k + t] = B[k + t]
            subkeep_level(kr, W, nu, work, record, j)
        if record >= 2:
            record_roll_values(kr, W, work.roll_vals + j * rolls_nu, nu)
        s = j - (kr.rolls - 1)
        if s >= 0:
            first_roll_mean(kr, W, work.tops + s * nu, nu)
    for t in range(nu):
        W[t] = work.tops[t]


cdef inline int64_t best_keep_at(
    const Rules* kr, const double* W, int64_t nu, int64_t t, int64_t r, double* best,
    int64_t* arg,
) noexcept nogil:
    """The best keep at roll ``r`` in lane ``t``, from the keep values ``W`` (as
    :func:`reroll_steps` with ``top`` False leaves them), with the ties of
    :func:`best_subkeeps_recorded`: over the roll's sub-keeps in ascending order, a keep's
    best is itself or the strictly better best of a keep of one die fewer, faces in
    ascending order. ``best`` and ``arg`` are scratch indexed by keep."""
    cdef int64_t F = kr.n_faces
    cdef int64_t i, k, f, kk, a
    cdef double w
    for i in range(kr.roll_keep_ptr[r], kr.roll_keep_ptr[r + 1]):
        k = kr.roll_keep_keep[i]
        w = W[k * nu + t]
        a = k
        for f in range(F):
            kk = kr.keep_remove[k * F + f]
            if kk >= 0 and best[kk] > w:
                w = best[kk]
                a = arg[kk]
        best[k] = w
        arg[k] = a
    return arg[kr.roll_keep_index[r]]
