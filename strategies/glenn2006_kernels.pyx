# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The decisions of Glenn's (2006) Yahtzee chasers, compiled: their rule-based keeps and
greedy scoring (:mod:`yahtzee_sim.strategies.glenn2006`) for every game of a batch at
once. The loops release the GIL.
"""

from libc.stdint cimport int8_t, int16_t, int64_t

from yahtzee_sim._core.rules cimport Rules, upper_after, yahtzee_bonus_points

from strategies.yahtzee_boxes cimport (
    LARGE_STRAIGHT,
    N_FACES,
    SMALL_STRAIGHT,
    check_boxes,
    check_rows,
    check_width,
    keep_every_die,
    run_start,
)
from strategies.position_tables cimport (
    Family,
    Position,
    run_family,
)

#: Keep rules of the chasers (the values of ``glenn2006.KEEP_*``).
cdef enum:
    KEEP_MOST_FREQUENT = 0
    KEEP_STRAIGHTS_TOO = 1
    KEEP_RATIONALLY = 2


cdef void gain_rows(
    const int16_t[:, ::1] points,
    const int64_t[:, ::1] bonus,
    const int64_t[::1] order,
    int64_t[::1] out,
) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef int64_t best, choice, c, gain
    for i in range(points.shape[0]):
        best = -1
        choice = order[0]
        for j in range(order.shape[0]):
            c = order[j]
            gain = <int64_t>points[i, c] + bonus[i, c] if points[i, c] >= 0 else -1
            if j == 0 or gain > best:
                best = gain
                choice = c
        out[i] = choice


def best_gain_box(
    const int16_t[:, ::1] points,
    const int64_t[:, ::1] bonus,
    const int64_t[::1] order,
    int64_t[::1] out,
):
    """Each game's box of most points now, bonuses included, into ``out``: the first of
    the best in ``order``.

    Parameters
    ----------
    points : ndarray (m, n_boxes) int16
        Points of each box (< 0: the box is closed).
    bonus : ndarray (m, n_boxes) int64
        Bonuses earned by choosing each box.
    order : ndarray (k,) int64
        Box indices in the order ties are settled (first wins); at least one.
    out : ndarray (m,) int64
        Written: the box chosen.

    Returns
    -------
    None
    """
    cdef Py_ssize_t n = points.shape[0]
    check_rows(bonus.shape[0], n, "bonus")
    check_width(bonus.shape[1], points.shape[1], "bonus")
    check_rows(out.shape[0], n, "out")
    if order.shape[0] == 0:
        raise ValueError("order must name at least one box")
    check_boxes(order, points.shape[1], "order")
    with nogil:
        gain_rows(points, bonus, order, out)


cdef inline int64_t straight_keep(const int8_t* c, int64_t u, int8_t* o) noexcept nogil:
    """Modes 1 and 2's straights: keep a made large straight (LS open) or a made small
    straight (SS open; its four-run when LS is open too); 1 when one was kept."""
    cdef int64_t f, r4
    if run_start(c, 5) >= 0 and ((u >> LARGE_STRAIGHT) & 1) == 0:
        keep_every_die(o, c)
        return 1
    r4 = run_start(c, 4)
    if r4 >= 0 and ((u >> SMALL_STRAIGHT) & 1) == 0:
        if ((u >> LARGE_STRAIGHT) & 1) == 0:
            for f in range(r4, r4 + 4):
                o[f] = 1
        else:
            keep_every_die(o, c)
        return 1
    return 0


cdef void chaser_row(const int8_t* c, int64_t u, int64_t mode, int8_t* o) noexcept nogil:
    """The keep of one game (:func:`chaser_keep`) into ``o``."""
    cdef int64_t f, best
    cdef bint open_f, open_b
    for f in range(N_FACES):
        o[f] = 0
    if mode >= KEEP_STRAIGHTS_TOO and straight_keep(c, u, o):
        return
    best = -1
    for f in range(5, -1, -1):
        if c[f] == 0:
            continue
        if best < 0:
            best = f
            continue
        open_f = ((u >> f) & 1) == 0
        open_b = ((u >> best) & 1) == 0
        if mode == KEEP_RATIONALLY and c[f] >= 2 and c[best] >= 2 and open_f != open_b:
            if open_f:
                best = f
            continue
        if c[f] > c[best] or (c[f] == c[best] and open_f and not open_b):
            best = f
    if best >= 0:  # no die at all: nothing kept
        o[best] = c[best]


def chaser_keep(
    const int8_t[:, ::1] counts, const int64_t[::1] used, int64_t mode, int8_t[:, ::1] out
):
    """Keeps of Glenn 2006's Yahtzee-minded strategies (Glenn 2006 §7), into ``out``.

    Mode 0 "Yahtzees Only": the most frequent face; ties to a face whose upper box is
    open (higher first), then the higher face. Mode 1 "Yahtzees and Straights": first keep
    a made large straight (LS open) or a made small straight (SS open; its four-run when LS
    is open too, to go for the large one). Mode 2 "Rational Yahtzees": as mode 1, but a
    pair or better whose upper box is open is kept before one whose box is filled.

    Parameters
    ----------
    counts : ndarray (m, 6) int8
        Face counts of each game's roll.
    used : ndarray (m,) int64
        Bitmask of each game's filled boxes.
    mode : int
        The keep rule: 0, 1 or 2 (``glenn2006.KEEP_*``).
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
    if not KEEP_MOST_FREQUENT <= mode <= KEEP_RATIONALLY:
        raise ValueError(f"mode must be 0, 1 or 2, got {mode}")
    cdef Py_ssize_t i
    with nogil:
        for i in range(n):
            chaser_row(&counts[i, 0], used[i], mode, &out[i, 0])


cdef struct Chaser:
    int64_t mode  # the keep rule (KEEP_*)
    const int64_t* order  # boxes in the order ties are settled
    int64_t n_order


cdef void chaser_keep_at(
    const void* params, const Position* at, const Rules* kr, int64_t roll, const int8_t* c,
    const int16_t* points, int8_t* o,
) noexcept nogil:
    """The keep of one roll (the family's :c:type:`KeepRule`), as ``_YahtzeeChaser.keep``."""
    chaser_row(c, at.used, (<const Chaser*>params).mode, o)


cdef int64_t chaser_box_at(
    const void* params, const Position* at, const Rules* kr, int64_t roll, const int8_t* c,
    const int16_t* points,
) noexcept nogil:
    """The box of one roll (the family's :c:type:`BoxRule`), as ``_YahtzeeChaser.box``: the
    most points now, bonuses included (those of ``bonus_options``), the first of the best
    in the tie order."""
    cdef const Chaser* p = <const Chaser*>params
    cdef int64_t yb = yahtzee_bonus_points(kr, roll, at.used, at.flag)
    cdef int64_t best = -1
    cdef int64_t choice = p.order[0]
    cdef int64_t j, b, ub, gain
    for j in range(p.n_order):
        b = p.order[j]
        if points[b] >= 0:
            upper_after(kr, at.upper, b, points[b], &ub)
            gain = points[b] + ub + yb
        else:
            gain = -1
        if j == 0 or gain > best:
            best = gain
            choice = b
    return choice


def chaser_tables(
    kr,
    int64_t mode,
    const int64_t[::1] order,
    pos,
    keep,
    cat,
    int n_threads=1,
):
    """The keep index and the box of every roll at positions ``pos`` (the exact evaluator's
    decision tables, ``_YahtzeeChaser.decision_table``), in parallel over runs of one
    used-mask and flag.

    Parameters
    ----------
    kr : KernelRules
        The rules (:func:`~yahtzee_sim._kernels.scoring.kernel_rules`), 6-face ones.
    mode : int
        The keep rule: 0, 1 or 2 (``glenn2006.KEEP_*``).
    order : ndarray (k,) int64
        Box indices in the order ties are settled (first wins); at least one.
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
    cdef Chaser params
    cdef Family fam
    if kr.n_faces != N_FACES:
        raise ValueError(f"chaser_tables plays {N_FACES}-face rules")
    if not KEEP_MOST_FREQUENT <= mode <= KEEP_RATIONALLY:
        raise ValueError(f"mode must be 0, 1 or 2, got {mode}")
    if order.shape[0] == 0:
        raise ValueError("order must name at least one box")
    check_boxes(order, kr.n_boxes, "order")
    params.mode = mode
    params.order = &order[0]
    params.n_order = order.shape[0]
    fam.params = &params
    fam.keep = chaser_keep_at
    fam.box = chaser_box_at
    fam.keep_reads_upper = False
    run_family(kr, &fam, pos, keep, cat, n_threads, "chaser_tables")
