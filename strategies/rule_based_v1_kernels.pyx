# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The decisions of "Simulating Yahtzee"'s rule-based strategies as its text reads them
(v1, :mod:`yahtzee_sim.strategies.rule_based_v1`), compiled: Glenn's 2007 keep and
scoring rules (Tables V and VI) and the "Prioritize Upper Section" and "Prioritize
Yahtzee" variants, for every game of a batch at once. The loops release the GIL.
"""

from libc.math cimport fabs
from libc.stdint cimport int8_t, int16_t, int64_t

from strategies.yahtzee_boxes cimport (
    CHANCE,
    FIVES,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    LARGE_STRAIGHT,
    N_BOXES,
    N_FACES,
    SIXES,
    SMALL_STRAIGHT,
    THREE_OF_A_KIND,
    YAHTZEE,
    FaceScan,
    bool_bytes,
    check_boxes,
    check_rows,
    check_width,
    face_scan,
    keep_every_die,
    read_open_boxes,
    run_start,
)


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


cdef int check_box_args(
    const int8_t[:, ::1] counts, const int16_t[:, ::1] pts, Py_ssize_t n_upper, Py_ssize_t n_out
) except -1:
    """Raise ``ValueError`` unless the counts, the points, the upper totals and ``out`` fit."""
    cdef Py_ssize_t n = counts.shape[0]
    check_width(counts.shape[1], N_FACES, "counts")
    check_rows(pts.shape[0], n, "pts")
    check_width(pts.shape[1], N_BOXES, "pts")
    check_rows(n_upper, n, "upper_total")
    check_rows(n_out, n, "out")
    return 0


cdef void keep_row(
    const int8_t* c, int64_t u, int64_t flag, bint joker, int8_t* o
) noexcept nogil:
    """Table V for one game: the kept face counts into ``o``."""
    cdef bint op[N_BOXES]
    cdef FaceScan s
    cdef int64_t f, r4, lo
    cdef bint s345, s234
    read_open_boxes(u, op)
    for f in range(N_FACES):
        o[f] = 0
    s = face_scan(c, op, True)
    if s.big == 5 and (op[YAHTZEE] or joker):
        keep_every_die(o, c)
        return
    if run_start(c, 5) >= 0 and (op[LARGE_STRAIGHT] or op[SMALL_STRAIGHT]):
        keep_every_die(o, c)
        return
    r4 = run_start(c, 4)
    if r4 >= 0 and (op[SMALL_STRAIGHT] or (op[LARGE_STRAIGHT] and op[CHANCE])):
        for f in range(r4, r4 + 4):
            o[f] = 1
        return
    if s.f3 >= 0 and op[s.f3]:
        o[s.f3] = c[s.f3]
        return
    if s.f3 >= 0 and (op[THREE_OF_A_KIND] or op[FOUR_OF_A_KIND] or op[FULL_HOUSE] or op[CHANCE]):
        o[s.f3] = c[s.f3]
        return
    if s.pair_open_hi >= 0:
        o[s.pair_open_hi] = 2
        return
    s345 = c[2] > 0 and c[3] > 0 and c[4] > 0
    s234 = c[1] > 0 and c[2] > 0 and c[3] > 0
    if (s345 or s234) and (op[SMALL_STRAIGHT] or (op[LARGE_STRAIGHT] and op[CHANCE])):
        lo = 2 if s345 else 1
        for f in range(lo, lo + 3):
            o[f] = 1
        return
    if s.pair_hi >= 0 and (op[THREE_OF_A_KIND] or op[CHANCE]):
        o[s.pair_hi] = 2
        return
    if s.f3 >= 0 and (op[YAHTZEE] or flag >= 1):
        o[s.f3] = c[s.f3]
        return
    last_rules_keep(c, op, &s, o)


cdef inline void last_rules_keep(
    const int8_t* c, const bint* op, const FaceScan* s, int8_t* o
) noexcept nogil:
    """Table V's last rules: a low singleton of an open upper box (four open at most), any
    doubleton, a singleton 4, 5 or 6 (high preferred) if 3K, 4K or Chance is open."""
    cdef int64_t f
    cdef int64_t low
    if s.n_open_upper <= 4:
        low = -1
        for f in range(N_FACES):
            if c[f] >= 1 and op[f]:
                low = f
                break
        if low >= 0:
            o[low] = 1
            return
    if s.pair_hi >= 0:
        o[s.pair_hi] = 2
        return
    if op[THREE_OF_A_KIND] or op[FOUR_OF_A_KIND] or op[CHANCE]:
        for f in range(5, 2, -1):
            if c[f] >= 1:
                o[f] = 1
                break


def glenn_keep(
    const int8_t[:, ::1] counts,
    const int64_t[::1] used,
    const int64_t[::1] flag,
    bint joker,
    int8_t[:, ::1] out,
):
    """Table V for every game: the kept face counts into ``out``.

    Parameters
    ----------
    counts : ndarray (m, 6) int8
        Face counts of each game's roll.
    used : ndarray (m,) int64
        Bitmask of each game's filled boxes.
    flag : ndarray (m,) int64
        Each game's Yahtzee flag (``TurnView.flag``).
    joker : bool
        Whether the rules have a joker.
    out : ndarray (m, 6) int8
        Written: the face counts kept.

    Returns
    -------
    None
    """
    cdef Py_ssize_t i
    check_keep_args(counts, used.shape[0], out)
    check_rows(flag.shape[0], counts.shape[0], "flag")
    with nogil:
        for i in range(counts.shape[0]):
            keep_row(&counts[i, 0], used[i], flag[i], joker, &out[i, 0])


cdef int64_t throw_away_box(
    const int16_t* p, const int64_t[::1] throw_away, bint skip4k
) noexcept nogil:
    """The first legal box of ``throw_away`` (Four of a kind skipped when ``skip4k``)."""
    cdef Py_ssize_t j
    cdef int64_t b
    for j in range(throw_away.shape[0]):
        b = throw_away[j]
        if b == FOUR_OF_A_KIND and skip4k:
            continue
        if p[b] >= 0:
            return b
    return FOUR_OF_A_KIND  # only Four of a kind left in round 1: no choice


cdef int64_t box_row(
    const int8_t* c, const int16_t* p, int64_t up, bint skip4k, const int64_t[::1] throw_away
) noexcept nogil:
    """Table VI for one game (``p``: legal points, -1 illegal): the box chosen."""
    cdef int64_t total = 0
    cdef int64_t f3 = -1
    cdef int64_t big = 0
    cdef int64_t f
    cdef int64_t choice = -1
    for f in range(N_FACES):
        total += (f + 1) * c[f]
        big = max(big, <int64_t>c[f])
        if c[f] >= 3:
            f3 = f
    if big == 5 and p[YAHTZEE] > 0:
        choice = YAHTZEE
    elif p[LARGE_STRAIGHT] > 0:
        choice = LARGE_STRAIGHT
    elif p[SMALL_STRAIGHT] > 0:
        choice = SMALL_STRAIGHT
    elif f3 >= 0 and p[f3] >= 0 and up < 63 and up + c[f3] * (f3 + 1) >= 63:
        choice = f3
    elif c[5] >= 4 and p[SIXES] >= 0:
        choice = SIXES
    elif c[4] >= 4 and p[FIVES] >= 0:
        choice = FIVES
    elif p[FOUR_OF_A_KIND] > 0 and not skip4k:
        choice = FOUR_OF_A_KIND
    elif c[5] >= 3 and p[SIXES] >= 0:
        choice = SIXES
    elif c[4] >= 3 and p[FIVES] >= 0:
        choice = FIVES
    elif p[FULL_HOUSE] > 0:
        choice = FULL_HOUSE
    elif p[THREE_OF_A_KIND] >= 22:
        choice = THREE_OF_A_KIND
    elif f3 >= 0 and p[f3] >= 0:
        choice = f3
    elif p[THREE_OF_A_KIND] > 0:
        choice = THREE_OF_A_KIND
    elif total >= 22 and p[CHANCE] >= 0:
        choice = CHANCE
    else:
        for f in range(N_FACES):
            if c[f] == 2 and p[f] >= 0:
                choice = f
                break
    if choice < 0:
        choice = throw_away_box(p, throw_away, skip4k)
    return choice


def glenn_box(
    const int8_t[:, ::1] counts,
    const int16_t[:, ::1] pts,
    const int64_t[::1] upper_total,
    bint first_round,
    bint no_4k_first,
    const int64_t[::1] throw_away,
    int64_t[::1] out,
):
    """Table VI for every game: the box chosen into ``out``.

    Parameters
    ----------
    counts : ndarray (m, 6) int8
        Face counts of each game's roll.
    pts : ndarray (m, 13) int16
        Legal points of each box (-1: illegal).
    upper_total : ndarray (m,) int64
        Uncapped upper total of each game.
    first_round : bool
        Whether this is the first turn.
    no_4k_first : bool
        Kelly and Liese's rule: no Four of a kind in the first round.
    throw_away : ndarray (k,) int64
        The boxes that take rolls no rule places, first legal one first.
    out : ndarray (m,) int64
        Written: the box chosen.

    Returns
    -------
    None
    """
    cdef Py_ssize_t i
    cdef bint skip4k = first_round and no_4k_first
    check_box_args(counts, pts, upper_total.shape[0], out.shape[0])
    check_boxes(throw_away, N_BOXES, "throw_away")
    with nogil:
        for i in range(counts.shape[0]):
            out[i] = box_row(&counts[i, 0], &pts[i, 0], upper_total[i], skip4k, throw_away)


cdef void upper_keep_rows(
    const int8_t[:, ::1] counts,
    const int64_t[::1] used,
    const int64_t[::1] upper_total,
    int8_t[:, ::1] out,
) noexcept nogil:
    cdef int64_t n_dice = 5
    cdef Py_ssize_t i
    cdef int64_t f, best_f, c
    cdef double best, v
    for i in range(counts.shape[0]):
        if upper_total[i] >= 63:
            continue
        best = -1.0
        best_f = -1
        for f in range(N_FACES):
            if (used[i] >> f) & 1:
                continue
            c = counts[i, f]
            v = (f + 1) * (c + (n_dice - c) / 6.0)
            # best_f >= 0 whenever the tie is read (best starts below every value)
            if v > best + 1e-12 or (fabs(v - best) <= 1e-12 and c > counts[i, best_f]):
                best = v
                best_f = f
        if best_f >= 0:
            for f in range(N_FACES):
                out[i, f] = counts[i, f] if f == best_f else 0


def upper_keep(
    const int8_t[:, ::1] counts,
    const int64_t[::1] used,
    const int64_t[::1] upper_total,
    int8_t[:, ::1] out,
):
    """Prioritize Upper Section keeps, over the rules' keeps in ``out``.

    While the bonus is not earned, keep the dice of the open upper box with the largest
    expected upper points after the next roll, ``f * (c_f + (n - c_f) / 6)``; ties: more
    dice kept, then the lower face. Other games keep ``out`` unchanged.

    Parameters
    ----------
    counts : ndarray (m, 6) int8
        Face counts of each game's roll.
    used : ndarray (m,) int64
        Bitmask of each game's filled boxes.
    upper_total : ndarray (m,) int64
        Uncapped upper total of each game.
    out : ndarray (m, 6) int8
        Read and written: the face counts kept.

    Returns
    -------
    None
    """
    check_keep_args(counts, used.shape[0], out)
    check_rows(upper_total.shape[0], counts.shape[0], "upper_total")
    with nogil:
        upper_keep_rows(counts, used, upper_total, out)


cdef void upper_box_rows(
    const int8_t[:, ::1] counts,
    const int16_t[:, ::1] pts,
    const int64_t[::1] upper_total,
    int64_t[::1] out,
) noexcept nogil:
    cdef Py_ssize_t i
    cdef int64_t f, best, best_f
    cdef bint five
    cdef const int16_t* p
    for i in range(counts.shape[0]):
        p = &pts[i, 0]
        five = False
        for f in range(N_FACES):
            if counts[i, f] == 5:
                five = True
        if five and p[YAHTZEE] > 0:
            out[i] = 11
            continue
        if upper_total[i] >= 63:
            continue
        best = 0
        best_f = -1
        for f in range(N_FACES):
            if p[f] > best:
                best = p[f]
                best_f = f
        if best_f >= 0:
            out[i] = best_f


def upper_box(
    const int8_t[:, ::1] counts,
    const int16_t[:, ::1] pts,
    const int64_t[::1] upper_total,
    int64_t[::1] out,
):
    """Prioritize Upper Section scoring, over the rules' choices in ``out``.

    A Yahtzee in the Yahtzee box first; while the bonus is not earned, the open upper box
    with the most points if any scores; other games keep ``out``.

    Parameters
    ----------
    counts : ndarray (m, 6) int8
        Face counts of each game's roll.
    pts : ndarray (m, 13) int16
        Legal points of each box (-1: illegal).
    upper_total : ndarray (m,) int64
        Uncapped upper total of each game.
    out : ndarray (m,) int64
        Read and written: the box chosen.

    Returns
    -------
    None
    """
    check_box_args(counts, pts, upper_total.shape[0], out.shape[0])
    with nogil:
        upper_box_rows(counts, pts, upper_total, out)


cdef void yahtzee_keep_rows(
    const int8_t[:, ::1] counts,
    const int64_t[::1] used,
    const unsigned char[::1] earned,
    int8_t[:, ::1] out,
) noexcept nogil:
    cdef Py_ssize_t i
    cdef int64_t f, best_f, c, cb
    cdef bint open_f, open_b
    for i in range(counts.shape[0]):
        if earned[i]:
            continue
        best_f = -1
        for f in range(5, -1, -1):
            if best_f < 0:
                best_f = f
                continue
            c = counts[i, f]
            cb = counts[i, best_f]
            open_f = ((used[i] >> f) & 1) == 0
            open_b = ((used[i] >> best_f) & 1) == 0
            if c > cb or (c == cb and open_f and not open_b):
                best_f = f
        for f in range(N_FACES):
            out[i, f] = counts[i, f] if f == best_f else 0


def yahtzee_keep(
    const int8_t[:, ::1] counts, const int64_t[::1] used, earned, int8_t[:, ::1] out
):
    """Prioritize Yahtzee keeps, over the rules' keeps in ``out``.

    Until a Yahtzee has been earned (``earned``), keep the most frequent face; ties prefer
    a face whose upper box is open, then the higher face. Other games keep ``out``.

    Parameters
    ----------
    counts : ndarray (m, 6) int8
        Face counts of each game's roll.
    used : ndarray (m,) int64
        Bitmask of each game's filled boxes.
    earned : ndarray (m,) bool
        Whether the Yahtzee box holds 50.
    out : ndarray (m, 6) int8
        Read and written: the face counts kept.

    Returns
    -------
    None
    """
    check_keep_args(counts, used.shape[0], out)
    cdef const unsigned char[::1] e = bool_bytes(earned, counts.shape[0], "earned")
    with nogil:
        yahtzee_keep_rows(counts, used, e, out)
