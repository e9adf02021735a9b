# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Defensive Yahtzee's decisions (Hellström & Jaccopucci 2015, §3.5), compiled: the keep
and scoring rules of :class:`yahtzee_sim.strategies.defensive.DefensiveYahtzee` for every
game of a batch at once. The loops release the GIL.
"""

from libc.stdint cimport int8_t, int16_t, int64_t

from yahtzee_sim._core.rules cimport Rules
from strategies.position_tables cimport (
    Family,
    Position,
    run_family,
)

from strategies.yahtzee_boxes cimport (
    CHANCE,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    LARGE_STRAIGHT,
    N_BOXES,
    N_FACES,
    SIXES,
    SMALL_STRAIGHT,
    THREE_OF_A_KIND,
    YAHTZEE,
    check_boxes,
    check_rows,
    check_width,
    keep_every_die,
    run_start,
)


cdef inline int64_t best_upper_face(const int8_t* c, int64_t used) noexcept nogil:
    """Open upper face with the most dice (ties: the higher face), or -1."""
    cdef int64_t best = -1
    cdef int64_t f
    for f in range(N_FACES):
        if (used >> f) & 1 or c[f] == 0:
            continue
        if best < 0 or c[f] >= c[best]:
            best = f
    return best


cdef void keep_row(const int8_t* c, int64_t u, int8_t* o) noexcept nogil:
    """The keep of one game (:func:`defensive_keep`) into ``o``."""
    cdef int64_t f, g, r4
    for f in range(N_FACES):
        o[f] = 0
    if run_start(c, 5) >= 0 and ((u >> LARGE_STRAIGHT) & 1) == 0:
        keep_every_die(o, c)
        return
    r4 = run_start(c, 4)
    if r4 >= 0 and (((u >> SMALL_STRAIGHT) & 1) == 0 or ((u >> LARGE_STRAIGHT) & 1) == 0):
        for f in range(r4, r4 + 4):
            o[f] = 1
        return
    f = best_upper_face(c, u)
    if f < 0:
        f = 0
        for g in range(N_FACES):
            if c[g] >= c[f]:
                f = g
    o[f] = c[f]


def defensive_keep(const int8_t[:, ::1] counts, const int64_t[::1] used, int8_t[:, ::1] out):
    """Hellström & Jaccopucci 2015, §3.5 keeps, into ``out``.

    Keep a made large straight (LS open); with a small straight and SS or LS open, keep
    the four-run and reroll the last die; otherwise keep the dice of the open upper box
    with the most dice (high preferred), else the most common face.

    Parameters
    ----------
    counts : ndarray (m, 6) int8
        Face counts of each game's roll.
    used : ndarray (m,) int64
        Bitmask of each game's filled boxes.
    out : ndarray (m, 6) int8
        Written: the face counts kept.

    Returns
    -------
    None
    """
    cdef Py_ssize_t n = counts.shape[0]
    check_width(counts.shape[1], N_FACES, "counts")
    check_rows(used.shape[0], n, "used")
    check_rows(out.shape[0], n, "out")
    check_width(out.shape[1], N_FACES, "out")
    cdef Py_ssize_t i
    with nogil:
        for i in range(n):
            keep_row(&counts[i, 0], used[i], &out[i, 0])


cdef int64_t box_choice(
    const int8_t* c, const int16_t* p, int64_t up, const int64_t* zero_order, int64_t n_zero
) noexcept nogil:
    """One roll's box under the §3.5 scoring rules."""
    cdef int64_t total = 0
    cdef int64_t big_f = 0
    cdef int64_t f, j, b, n_big, best
    cdef int64_t choice = -1
    for f in range(N_FACES):
        total += (f + 1) * c[f]
        if c[f] > c[big_f] or (c[f] == c[big_f] and f > big_f):
            big_f = f
    n_big = c[big_f]
    if n_big == 5:
        if big_f == 5 and up < 38 and p[SIXES] >= 0:
            choice = SIXES
        elif p[YAHTZEE] > 0:
            choice = YAHTZEE
    if choice < 0 and p[LARGE_STRAIGHT] > 0:
        choice = LARGE_STRAIGHT
    if choice < 0 and p[SMALL_STRAIGHT] > 0:
        choice = SMALL_STRAIGHT
    if choice < 0 and p[FULL_HOUSE] > 0:
        choice = FULL_HOUSE
    if choice < 0 and n_big >= 4:
        if big_f == 5 and up < 43 and p[SIXES] >= 0:
            choice = SIXES
        elif p[FOUR_OF_A_KIND] > 0:
            choice = FOUR_OF_A_KIND
    if choice < 0 and n_big >= 3:
        if big_f == 5 and up < 48 and p[SIXES] >= 0:
            choice = SIXES
        elif p[THREE_OF_A_KIND] > 0:
            choice = THREE_OF_A_KIND
    if choice < 0:
        # the open upper box with the most dice; fours to sixes only with three or more
        best = -1
        for f in range(N_FACES):
            if p[f] > 0 and (f < 3 or c[f] >= 3):
                if best < 0 or c[f] >= c[best]:
                    best = f
        choice = best
    if choice < 0 and total >= 10 and p[CHANCE] >= 0:
        choice = CHANCE
    if choice < 0:
        for j in range(n_zero):
            b = zero_order[j]
            if p[b] >= 0:
                choice = b
                break
    return choice


def defensive_box(
    const int8_t[:, ::1] counts,
    const int16_t[:, ::1] pts,
    const int64_t[::1] upper_total,
    const int64_t[::1] zero_order,
    int64_t[::1] out,
):
    """Hellström & Jaccopucci 2015, §3.5 scoring: each game's box into ``out``.

    Parameters
    ----------
    counts : ndarray (m, 6) int8
        Face counts of each game's roll.
    pts : ndarray (m, 13) int16
        Legal points of each box (-1: illegal).
    upper_total : ndarray (m,) int64
        Upper points so far (our reading of the paper's "bonus score").
    zero_order : ndarray (k,) int64
        The boxes that take a zero, first legal one first.
    out : ndarray (m,) int64
        Written: the box chosen.

    Returns
    -------
    None
    """
    cdef Py_ssize_t n = counts.shape[0]
    cdef Py_ssize_t i
    check_width(counts.shape[1], N_FACES, "counts")
    check_rows(pts.shape[0], n, "pts")
    check_width(pts.shape[1], N_BOXES, "pts")
    check_rows(upper_total.shape[0], n, "upper_total")
    check_rows(out.shape[0], n, "out")
    check_boxes(zero_order, N_BOXES, "zero_order")
    with nogil:
        for i in range(n):
            out[i] = box_choice(
                &counts[i, 0], &pts[i, 0], upper_total[i], &zero_order[0], zero_order.shape[0]
            )


cdef struct Defensive:
    const int64_t* zero_order  # the boxes that take a zero, first legal one first
    int64_t n_zero


cdef void defensive_keep_at(
    const void* params, const Position* at, const Rules* kr, int64_t roll, const int8_t* c,
    const int16_t* points, int8_t* o,
) noexcept nogil:
    """The keep of one roll (the family's :c:type:`KeepRule`), as ``DefensiveYahtzee.keep``."""
    keep_row(c, at.used, o)


cdef int64_t defensive_box_at(
    const void* params, const Position* at, const Rules* kr, int64_t roll, const int8_t* c,
    const int16_t* points,
) noexcept nogil:
    """The box of one roll (the family's :c:type:`BoxRule`), as ``DefensiveYahtzee.box``."""
    cdef const Defensive* p = <const Defensive*>params
    return box_choice(c, points, at.upper, p.zero_order, p.n_zero)


def defensive_tables(
    kr,
    const int64_t[::1] zero_order,
    pos,
    keep,
    cat,
    int n_threads=1,
):
    """The keep index and the box of every roll at positions ``pos`` (the exact evaluator's
    decision tables, ``DefensiveYahtzee.decision_table``), in parallel over runs of one
    used-mask and flag.

    Parameters
    ----------
    kr : KernelRules
        The rules (:func:`~yahtzee_sim._kernels.scoring.kernel_rules`), 13-box Yahtzee ones.
    zero_order : ndarray (k,) int64
        The boxes that take a zero, first legal one first.
    pos : ndarray (n, 3) int64
        Positions ``(used, upper, flag)``, those of one used-mask and flag next to each other.
    keep, cat : ndarray (n, 1, n_rolls) int16, int8
        Written: each roll's keep index and box.
    n_threads : int
        Threads to run on (the tables do not depend on it).

    Returns
    -------
    None
    """
    cdef Defensive params
    cdef Family fam
    if kr.n_boxes != N_BOXES or kr.n_faces != N_FACES:
        raise ValueError(f"defensive_tables plays {N_BOXES}-box, {N_FACES}-face Yahtzee rules")
    if zero_order.shape[0] == 0:
        raise ValueError("zero_order must name at least one box")
    check_boxes(zero_order, N_BOXES, "zero_order")
    params.zero_order = &zero_order[0]
    params.n_zero = zero_order.shape[0]
    fam.params = &params
    fam.keep = defensive_keep_at
    fam.box = defensive_box_at
    fam.keep_reads_upper = False
    run_family(kr, &fam, pos, keep, cat, n_threads, "defensive_tables")
