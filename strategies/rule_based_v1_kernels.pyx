# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The decisions of "Simulating Yahtzee"'s rule-based strategies as its text reads them
(v1, :mod:`yahtzee_sim.strategies.rule_based_v1`), compiled: Glenn's 2007 keep and
scoring rules (Tables V and VI) and the "Prioritize Upper Section" and "Prioritize
Yahtzee" variants, for every game of a batch at once. The loops release the GIL.
"""

from libc.stdint cimport int8_t, int16_t, int64_t

from yahtzee_sim._core.rules cimport Rules
from strategies.position_tables cimport (
    Family,
    Position,
    run_family,
)
from strategies.rule_based_v1_rules cimport (
    box_row,
    keep_row,
    upper_box_row,
    upper_keep_row,
    yahtzee_keep_row,
)
from strategies.yahtzee_boxes cimport (
    N_BOXES,
    N_FACES,
    bool_bytes,
    check_boxes,
    check_rows,
    check_width,
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
            out[i] = box_row(
                &counts[i, 0], &pts[i, 0], upper_total[i], skip4k, &throw_away[0],
                throw_away.shape[0],
            )


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
    cdef Py_ssize_t i
    with nogil:
        for i in range(counts.shape[0]):
            upper_keep_row(&counts[i, 0], used[i], upper_total[i], &out[i, 0])


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
    cdef Py_ssize_t i
    with nogil:
        for i in range(counts.shape[0]):
            out[i] = upper_box_row(&counts[i, 0], &pts[i, 0], upper_total[i], out[i])


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
    cdef Py_ssize_t i
    with nogil:
        for i in range(counts.shape[0]):
            yahtzee_keep_row(&counts[i, 0], used[i], e[i], &out[i, 0])


cdef struct Rules2007:
    bint joker  # the rules have a joker
    bint no_four_of_a_kind_first_round
    const int64_t* throw_away  # the boxes that take rolls no rule places, first legal first
    int64_t n_throw_away
    bint upper_first  # Prioritize Upper Section
    bint chase  # Prioritize Yahtzee


cdef void rules_keep_at(
    const void* params, const Position* at, const Rules* kr, int64_t roll, const int8_t* c,
    const int16_t* points, int8_t* o,
) noexcept nogil:
    """The keep of one roll (the family's :c:type:`KeepRule`), as ``Glenn2007Rules.keep``
    and its variants'."""
    cdef const Rules2007* p = <const Rules2007*>params
    keep_row(c, at.used, at.flag, p.joker, o)
    if p.upper_first:
        upper_keep_row(c, at.used, at.upper, o)
    if p.chase:
        yahtzee_keep_row(c, at.used, at.yahtzee_full, o)


cdef int64_t rules_box_at(
    const void* params, const Position* at, const Rules* kr, int64_t roll, const int8_t* c,
    const int16_t* points,
) noexcept nogil:
    """The box of one roll (the family's :c:type:`BoxRule`), as ``Glenn2007Rules.box`` and
    its variants'."""
    cdef const Rules2007* p = <const Rules2007*>params
    cdef int64_t choice = box_row(
        c, points, at.upper, at.turn == 0 and p.no_four_of_a_kind_first_round, p.throw_away,
        p.n_throw_away,
    )
    if p.upper_first:
        choice = upper_box_row(c, points, at.upper, choice)
    return choice


def rules_tables(
    kr,
    bint no_four_of_a_kind_first_round,
    const int64_t[::1] throw_away,
    bint upper_first,
    bint chase,
    pos,
    keep,
    cat,
    int n_threads=1,
):
    """The keep index and the box of every roll at positions ``pos`` (the exact evaluator's
    decision tables, ``Glenn2007Rules.decision_table``), in parallel over runs of one
    used-mask and flag.

    Parameters
    ----------
    kr : KernelRules
        The rules (:func:`~yahtzee_sim._kernels.scoring.kernel_rules`), 13-box Yahtzee ones.
    no_four_of_a_kind_first_round : bool
        Kelly and Liese's rule.
    throw_away : ndarray (k,) int64
        The boxes that take rolls no rule places, first legal one first.
    upper_first, chase : bool
        Prioritize Upper Section's keeps and scoring; Prioritize Yahtzee's keeps (while the
        Yahtzee box does not hold its full points).
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
    cdef Rules2007 params
    cdef Family fam
    if kr.n_boxes != N_BOXES or kr.n_faces != N_FACES:
        raise ValueError(f"rules_tables plays {N_BOXES}-box, {N_FACES}-face Yahtzee rules")
    if throw_away.shape[0] == 0:
        raise ValueError("throw_away must name at least one box")
    check_boxes(throw_away, N_BOXES, "throw_away")
    params.joker = kr.joker != 0
    params.no_four_of_a_kind_first_round = no_four_of_a_kind_first_round
    params.throw_away = &throw_away[0]
    params.n_throw_away = throw_away.shape[0]
    params.upper_first = upper_first
    params.chase = chase
    fam.params = &params
    fam.keep = rules_keep_at
    fam.box = rules_box_at
    fam.keep_reads_upper = upper_first
    run_family(kr, &fam, pos, keep, cat, n_threads, "rules_tables")
