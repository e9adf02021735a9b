# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The decisions of "Simulating Yahtzee"'s rule-based strategies as its program plays them
(v2, :mod:`yahtzee_sim.strategies.rule_based_v2`), compiled: the program's reading of
Glenn's 2007 keep and scoring rules (Tables V and VI), where it writes a bonus Yahtzee,
and the "Prioritize Upper Section" and "Prioritize Yahtzee" keeps, for every game of a
batch at once. The loops release the GIL.
"""

from libc.stdint cimport int8_t, int16_t, int64_t

from yahtzee_sim._core.rules cimport Rules

from strategies.yahtzee_boxes cimport (
    CHANCE,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    LARGE_STRAIGHT,
    N_BOXES,
    N_FACES,
    SMALL_STRAIGHT,
    THREE_OF_A_KIND,
    YAHTZEE,
    FaceScan,
    bool_bytes,
    check_rows,
    check_width,
    face_scan,
    keep_every_die,
    read_open_boxes,
    run_start,
)
from strategies.position_tables cimport (
    Family,
    Position,
    run_family,
)
from strategies.rule_based_v2_boxes cimport program_box_row


cdef int check_keep_args(
    const int8_t[:, ::1] counts, Py_ssize_t n_used, const int8_t[:, ::1] out
) except -1:
    """Raise ``ValueError`` unless the counts, the used masks and ``out`` fit one another."""
    cdef Py_ssize_t n = counts.shape[0]
    check_width(counts.shape[1], N_FACES, "counts")
    check_rows(n_used, n, "used")
    check_rows(out.shape[0], n, "out")
    check_width(out.shape[1], N_FACES, "out")
    return 0


cdef void keep_row(
    const int8_t* c, int64_t u, bint counts_five, bint bonus_open, int8_t* o
) noexcept nogil:
    """Table V as the program reads it, for one game: the kept face counts into ``o``."""
    cdef bint op[N_BOXES]
    cdef FaceScan s
    cdef int64_t f, r4
    cdef bint three_k, four_k, chance, straights
    read_open_boxes(u, op)
    for f in range(N_FACES):
        o[f] = 0
    # f3: the face with three or more dice; pair_hi: the highest face with two or
    # more; pair_open_hi: ... whose upper box is open
    s = face_scan(c, op, False)
    three_k = op[THREE_OF_A_KIND]
    four_k = op[FOUR_OF_A_KIND]
    chance = op[CHANCE]
    straights = op[SMALL_STRAIGHT] or (op[LARGE_STRAIGHT] and chance)
    if s.big == 5 and counts_five:  # 1
        keep_every_die(o, c)
    elif run_start(c, 5) >= 0 and (op[LARGE_STRAIGHT] or op[SMALL_STRAIGHT]):  # 2
        keep_every_die(o, c)
    elif run_start(c, 4) >= 0 and straights:  # 3
        r4 = run_start(c, 4)
        for f in range(r4, r4 + 4):
            o[f] = 1
    elif s.f3 >= 0 and op[s.f3]:  # 4
        o[s.f3] = c[s.f3]
    elif s.f3 >= 0 and (three_k or four_k or op[FULL_HOUSE] or chance):  # 5
        o[s.f3] = c[s.f3]
    elif s.pair_open_hi >= 0:  # 6
        o[s.pair_open_hi] = 2
    elif straights and c[1] > 0 and c[2] > 0 and c[3] > 0:  # 7: [2 3 4] first
        o[1] = 1
        o[2] = 1
        o[3] = 1
    elif straights and c[2] > 0 and c[3] > 0 and c[4] > 0:  # 7: then [3 4 5]
        o[2] = 1
        o[3] = 1
        o[4] = 1
    elif s.pair_hi >= 0 and (three_k or chance):  # 8
        o[s.pair_hi] = 2
    elif s.f3 >= 0 and (op[YAHTZEE] or bonus_open):  # 9: exactly three dice
        o[s.f3] = 3
    else:
        last_rules_keep(c, op, &s, three_k or four_k or chance, o)


cdef inline void last_rules_keep(
    const int8_t* c, const bint* op, const FaceScan* s, bint singles, int8_t* o
) noexcept nogil:
    """Rules 10 to 12: a low singleton of an open upper box (four open at most), any
    doubleton, a singleton 4, 5 or 6 (high preferred) when ``singles``."""
    cdef int64_t f
    cdef int64_t low = -1
    if s.n_open_upper <= 4:  # 10
        for f in range(N_FACES):
            if c[f] >= 1 and op[f]:
                low = f
                break
    if low >= 0:
        o[low] = 1
    elif s.pair_hi >= 0:  # 11
        o[s.pair_hi] = 2
    elif singles:  # 12: a singleton 4, 5 or 6, high preferred
        for f in range(5, 2, -1):
            if c[f] >= 1:
                o[f] = 1
                break


def program_keep(
    const int8_t[:, ::1] counts,
    const int64_t[::1] used,
    counts_five,
    bonus_open,
    int8_t[:, ::1] out,
):
    """Table V as the program reads it, for every game: the kept face counts into ``out``.

    Parameters
    ----------
    counts : ndarray (m, 6) int8
        Face counts of each game's roll.
    used : ndarray (m,) int64
        Bitmask of each game's filled boxes.
    counts_five : ndarray (m,) bool
        A Yahtzee still counts (rule 1).
    bonus_open : ndarray (m,) bool
        The box holds 50 and the bonus is still to earn (rule 9).
    out : ndarray (m, 6) int8
        Written: the face counts kept.

    Returns
    -------
    None
    """
    cdef Py_ssize_t i
    check_keep_args(counts, used.shape[0], out)
    cdef const unsigned char[::1] five = bool_bytes(counts_five, counts.shape[0], "counts_five")
    cdef const unsigned char[::1] bonus = bool_bytes(bonus_open, counts.shape[0], "bonus_open")
    with nogil:
        for i in range(counts.shape[0]):
            keep_row(&counts[i, 0], used[i], five[i], bonus[i], &out[i, 0])


def program_box(
    const int8_t[:, ::1] counts,
    const int16_t[:, ::1] pts,
    const int64_t[::1] upper_total,
    bonus_open,
    bint first_round,
    const int64_t[::1] rank,
    bint upper_first,
    int64_t[::1] out,
):
    """Table VI as the program reads it, for every game: the box chosen into ``out``.

    Parameters
    ----------
    counts : ndarray (m, 6) int8
        Face counts of each game's roll.
    pts : ndarray (m, 13) int16
        Legal points of each box (-1: illegal).
    upper_total : ndarray (m,) int64
        Uncapped upper total of each game.
    bonus_open : ndarray (m,) bool
        The Yahtzee box holds 50 and the bonus is still to earn.
    first_round : bool
        No Four of a kind (Kelly and Liese's rule, in the first round).
    rank : ndarray (13,) int64
        Each box's position in the tie order.
    upper_first : bool
        Prioritize Upper Section's scoring.
    out : ndarray (m,) int64
        Written: the box chosen.

    Returns
    -------
    None
    """
    cdef Py_ssize_t i
    cdef Py_ssize_t n = counts.shape[0]
    check_width(counts.shape[1], N_FACES, "counts")
    check_rows(pts.shape[0], n, "pts")
    check_width(pts.shape[1], N_BOXES, "pts")
    check_rows(upper_total.shape[0], n, "upper_total")
    check_rows(out.shape[0], n, "out")
    if rank.shape[0] != N_BOXES:
        raise ValueError(
            f"rank must give each of the {N_BOXES} boxes a position, got {rank.shape[0]}"
        )
    cdef const unsigned char[::1] bonus = bool_bytes(bonus_open, n, "bonus_open")
    with nogil:
        for i in range(n):
            out[i] = program_box_row(
                &counts[i, 0], &pts[i, 0], upper_total[i], bonus[i], first_round, &rank[0],
                upper_first,
            )


cdef void upper_first_row(
    const int8_t* c, int64_t used, int64_t upper_total, bint counts_five, int8_t* o
) noexcept nogil:
    """Prioritize Upper Section's keep of one game over the rules' keep in ``o``."""
    cdef int64_t f, reach, big, best_f
    cdef double best, v
    if upper_total >= 63:
        return
    reach = 0
    big = 0
    for f in range(N_FACES):
        big = max(big, <int64_t>c[f])
        if ((used >> f) & 1) == 0:
            reach += 4 * (f + 1)
    if upper_total + reach < 63 or (big == 5 and counts_five):
        return
    best = -1.0
    best_f = -1
    for f in range(N_FACES):
        if c[f] == 0 or (used >> f) & 1:
            continue
        v = (f + 1) * (c[f] + (5 - c[f]) / 6.0)
        if v > best:
            best = v
            best_f = f
    for f in range(N_FACES):
        o[f] = c[f] if f == best_f else 0


def upper_first_keep(
    const int8_t[:, ::1] counts,
    const int64_t[::1] used,
    const int64_t[::1] upper_total,
    counts_five,
    int8_t[:, ::1] out,
):
    """Prioritize Upper Section keeps, over the rules' keeps in ``out``.

    While the bonus is reachable (upper total + 4 × face over the open upper boxes ≥ 63),
    keep the showing face with an open upper box and the most expected upper points after
    the next roll, ``f × (c + (5 − c) / 6)`` (the lower face on ties); keep nothing if no
    such face shows. A Yahtzee that still counts is kept (rule 1). Other games keep ``out``.

    Parameters
    ----------
    counts : ndarray (m, 6) int8
        Face counts of each game's roll.
    used : ndarray (m,) int64
        Bitmask of each game's filled boxes.
    upper_total : ndarray (m,) int64
        Uncapped upper total of each game.
    counts_five : ndarray (m,) bool
        A Yahtzee still counts.
    out : ndarray (m, 6) int8
        Read and written: the face counts kept.

    Returns
    -------
    None
    """
    check_keep_args(counts, used.shape[0], out)
    check_rows(upper_total.shape[0], counts.shape[0], "upper_total")
    cdef const unsigned char[::1] five = bool_bytes(counts_five, counts.shape[0], "counts_five")
    cdef Py_ssize_t i
    with nogil:
        for i in range(counts.shape[0]):
            upper_first_row(&counts[i, 0], used[i], upper_total[i], five[i], &out[i, 0])


cdef void chase_row(const int8_t* c, int64_t used, bint counts_five, int8_t* o) noexcept nogil:
    """Prioritize Yahtzee's keep of one game over the rules' keep in ``o``."""
    cdef int64_t f, best_f
    if not counts_five:
        return
    best_f = -1
    for f in range(N_FACES):
        if best_f < 0 or c[f] > c[best_f]:
            best_f = f
        elif c[f] == c[best_f] and ((used >> f) & 1) == 0 and (used >> best_f) & 1:
            best_f = f
    for f in range(N_FACES):
        o[f] = c[f] if f == best_f else 0


def chase_keep(
    const int8_t[:, ::1] counts, const int64_t[::1] used, counts_five, int8_t[:, ::1] out
):
    """Prioritize Yahtzee keeps, over the rules' keeps in ``out``.

    While a Yahtzee still counts (``counts_five``), keep every die of the most frequent
    face; ties: a face whose upper box is open, then the lower face. Other games keep
    ``out``.

    Parameters
    ----------
    counts : ndarray (m, 6) int8
        Face counts of each game's roll.
    used : ndarray (m,) int64
        Bitmask of each game's filled boxes.
    counts_five : ndarray (m,) bool
        A Yahtzee still counts.
    out : ndarray (m, 6) int8
        Read and written: the face counts kept.

    Returns
    -------
    None
    """
    check_keep_args(counts, used.shape[0], out)
    cdef const unsigned char[::1] five = bool_bytes(counts_five, counts.shape[0], "counts_five")
    cdef Py_ssize_t i
    with nogil:
        for i in range(counts.shape[0]):
            chase_row(&counts[i, 0], used[i], five[i], &out[i, 0])


cdef struct Program:
    const int64_t* rank  # each box's position in the tie order
    bint no_four_of_a_kind_first_round
    bint upper_first  # Prioritize Upper Section
    bint chase  # Prioritize Yahtzee


cdef void program_keep_at(
    const void* params, const Position* at, const Rules* kr, int64_t roll, const int8_t* c,
    const int16_t* points, int8_t* o,
) noexcept nogil:
    """The keep of one roll (the family's :c:type:`KeepRule`), as :meth:`Glenn2007Program.keep`."""
    cdef const Program* p = <const Program*>params
    cdef bint counts_five = at.flag == 0 or at.bonus_open
    keep_row(c, at.used, counts_five, at.bonus_open, o)
    if p.upper_first:
        upper_first_row(c, at.used, at.upper, counts_five, o)
    if p.chase:
        chase_row(c, at.used, counts_five, o)


cdef int64_t program_box_at(
    const void* params, const Position* at, const Rules* kr, int64_t roll, const int8_t* c,
    const int16_t* points,
) noexcept nogil:
    """The box of one roll (the family's :c:type:`BoxRule`), as :meth:`Glenn2007Program.box`."""
    cdef const Program* p = <const Program*>params
    return program_box_row(
        c, points, at.upper, at.bonus_open, at.turn == 0 and p.no_four_of_a_kind_first_round,
        p.rank, p.upper_first,
    )


def program_tables(
    kr,
    const int64_t[::1] rank,
    bint no_four_of_a_kind_first_round,
    bint upper_first,
    bint chase,
    pos,
    keep,
    cat,
    int n_threads=1,
):
    """The keep index and the box of every roll at positions ``pos`` (the exact evaluator's
    decision tables, :meth:`Glenn2007Program.decision_table`), in parallel over runs of one
    used-mask and flag.

    Parameters
    ----------
    kr : KernelRules
        The rules (:func:`~yahtzee_sim._kernels.scoring.kernel_rules`), 13-box Yahtzee ones.
    rank : ndarray (13,) int64
        Each box's position in the tie order.
    no_four_of_a_kind_first_round : bool
        Kelly and Liese's rule.
    upper_first, chase : bool
        Prioritize Upper Section's keeps and scoring; Prioritize Yahtzee's keeps.
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
    cdef Program params
    cdef Family fam
    if kr.n_boxes != N_BOXES or kr.n_faces != N_FACES:
        raise ValueError(f"program_tables plays {N_BOXES}-box, {N_FACES}-face Yahtzee rules")
    if rank.shape[0] != N_BOXES:
        raise ValueError(f"rank must give each of the {N_BOXES} boxes a position")
    params.rank = &rank[0]
    params.no_four_of_a_kind_first_round = no_four_of_a_kind_first_round
    params.upper_first = upper_first
    params.chase = chase
    fam.params = &params
    fam.keep = program_keep_at
    fam.box = program_box_at
    fam.keep_reads_upper = upper_first
    run_family(kr, &fam, pos, keep, cat, n_threads, "program_tables")
