# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The scoring step for Python callers, in the compiled core: the points of every box for a
batch of rolls, the bonuses they earn, the next state of one scored box (the
advisor's), and every box's move for a batch of decisions with saved rolls. The arithmetic is :mod:`.rules`' (one copy); these are its batch entry points.
"""

import numpy as np

from libc.stdint cimport int16_t, int32_t, int64_t

from yahtzee_sim._core.bundle cimport RulesView, view_of
from yahtzee_sim._core.rules cimport (
    Rules,
    box_legal_points,
    flag_after_roll as rules_flag_after_roll,
    joker_case,
    roll_options,
    saved_state_index,
    sets_flag,
    upper_after,
    yahtzee_bonus_points,
)


ctypedef fused roll_t:
    int32_t
    int64_t

ctypedef fused points_t:
    int16_t
    int64_t

#: Each fused argument's dtypes taken as they are; any other is converted to int64.
_ROLL_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))
_POINTS_DTYPES = (np.dtype(np.int16), np.dtype(np.int64))


cdef check_positions(const Rules* r, const int64_t[::1] roll_idx, const int64_t[::1] used):
    """Refuse roll indices and used-masks outside the rules' (the loops index by them)."""
    if roll_idx.shape[0] == 0:
        return
    rolls, masks = np.asarray(roll_idx), np.asarray(used)
    if rolls.min() < 0 or rolls.max() >= r.n_rolls:
        raise ValueError(f"roll indices must lie in 0..{r.n_rolls - 1}")
    if masks.min() < 0 or masks.max() >= (1 << r.n_boxes):
        raise ValueError(f"used-masks must lie in 0..{(1 << r.n_boxes) - 1}")


cdef tuple batch_of(const Rules* r, roll_idx, used, flag):
    """The batch's roll indices, used-masks and flags as int64, checked."""
    rolls = np.ascontiguousarray(roll_idx, dtype=np.int64)
    u = np.ascontiguousarray(used, dtype=np.int64)
    f = np.ascontiguousarray(flag, dtype=np.int64)
    if u.shape[0] != rolls.shape[0] or f.shape[0] != rolls.shape[0]:
        raise ValueError(f"roll_idx, used and flag must have {rolls.shape[0]} entries each")
    check_positions(r, rolls, u)
    return rolls, u, f


cdef object contiguous(values, tuple dtypes):
    """``values`` as a C-contiguous array of one of ``dtypes`` (else int64), not copied
    when it already is one."""
    out = np.ascontiguousarray(values)
    return out if out.dtype in dtypes else out.astype(np.int64)


cdef tuple rows_of(const Rules* r, roll_idx, used, flag):
    """The batch's roll indices (int32 or int64), used-masks and flags (int64), of one
    length each (the kernels check their values as they read them)."""
    rolls = contiguous(roll_idx, _ROLL_DTYPES)
    u = np.ascontiguousarray(used, dtype=np.int64)
    f = np.ascontiguousarray(flag, dtype=np.int64)
    if rolls.ndim != 1 or u.shape != rolls.shape or f.shape != rolls.shape:
        raise ValueError(f"roll_idx, used and flag must have {rolls.shape[0]} entries each")
    return rolls, u, f


cdef inline int position_error(const Rules* r, int64_t roll, int64_t used) noexcept nogil:
    """1 for a roll index outside the rules', 2 for a used-mask outside them, else 0."""
    if roll < 0 or roll >= r.n_rolls:
        return 1
    if used < 0 or used >= ((<int64_t>1) << r.n_boxes):
        return 2
    return 0


cdef raise_position_error(const Rules* r, int error):
    if error == 1:
        raise ValueError(f"roll indices must lie in 0..{r.n_rolls - 1}")
    raise ValueError(f"used-masks must lie in 0..{(1 << r.n_boxes) - 1}")


cdef int fill_box_options(
    const Rules* r, const roll_t[::1] rv, const int64_t[::1] uv, const int64_t[::1] fv,
    int16_t[:, ::1] o,
) noexcept nogil:
    cdef int64_t i, c, case, roll
    cdef int error
    for i in range(rv.shape[0]):
        roll = rv[i]
        error = position_error(r, roll, uv[i])
        if error:
            return error
        case = joker_case(r, roll, uv[i], fv[i])
        for c in range(r.n_boxes):
            o[i, c] = <int16_t>box_legal_points(r, case, roll, uv[i], c)
    return 0


def box_options(kr, roll_idx, used, flag):
    """The points of every box for a batch of rolls (-1 where the box is illegal; joker
    rules applied, no bonuses).

    Parameters
    ----------
    kr : KernelRules or RulesView
        The rules (:func:`~yahtzee_sim._kernels.scoring.kernel_rules`).
    roll_idx, used, flag : int arrays (n,)
        Each roll and the used-mask and flag it is scored at.

    Returns
    -------
    int16 array (n, n_boxes)
    """
    cdef RulesView view = view_of(kr)
    cdef const Rules* r = &view.rules
    rolls, u, f = rows_of(r, roll_idx, used, flag)
    out = np.empty((rolls.shape[0], r.n_boxes), dtype=np.int16)
    cdef int error
    if rolls.dtype == np.int32:
        error = fill_box_options[int32_t](r, rolls, u, f, out)
    else:
        error = fill_box_options[int64_t](r, rolls, u, f, out)
    if error:
        raise_position_error(r, error)
    return out


cdef int fill_yahtzee_bonuses(
    const Rules* r, const roll_t[::1] rv, const int64_t[::1] uv, const int64_t[::1] fv,
    int64_t[::1] o,
) noexcept nogil:
    cdef int64_t i
    cdef int error
    for i in range(rv.shape[0]):
        error = position_error(r, rv[i], uv[i])
        if error:
            return error
        o[i] = yahtzee_bonus_points(r, rv[i], uv[i], fv[i])
    return 0


def yahtzee_bonuses(kr, roll_idx, used, flag):
    """The Yahtzee bonus each roll of a batch earns, whatever box it goes in.

    Parameters
    ----------
    kr : KernelRules or RulesView
        The rules.
    roll_idx, used, flag : int arrays (n,)
        Each roll and the used-mask and flag it is scored at.

    Returns
    -------
    int64 array (n,)
    """
    cdef RulesView view = view_of(kr)
    cdef const Rules* r = &view.rules
    rolls, u, f = rows_of(r, roll_idx, used, flag)
    out = np.empty(rolls.shape[0], dtype=np.int64)
    cdef int error
    if rolls.dtype == np.int32:
        error = fill_yahtzee_bonuses[int32_t](r, rolls, u, f, out)
    else:
        error = fill_yahtzee_bonuses[int64_t](r, rolls, u, f, out)
    if error:
        raise_position_error(r, error)
    return out


cdef int fill_bonus_options(
    const Rules* r, const roll_t[::1] rv, const int64_t[::1] uv, const int64_t[::1] upv,
    const int64_t[::1] fv, const points_t[:, ::1] pv, int64_t[:, ::1] o,
) noexcept nogil:
    cdef int64_t i, c, yb, ub
    cdef int error
    for i in range(rv.shape[0]):
        error = position_error(r, rv[i], uv[i])
        if error:
            return error
        yb = yahtzee_bonus_points(r, rv[i], uv[i], fv[i])
        for c in range(r.n_boxes):
            upper_after(r, upv[i], c, max(<int64_t>pv[i, c], 0), &ub)
            o[i, c] = ub + yb
    return 0


def bonus_options(kr, roll_idx, used, upper, flag, points):
    """The bonuses earned by writing each roll of a batch in each box: the upper bonus where
    the box makes the (capped) upper total reach the cap, plus the roll's Yahtzee bonus.

    Parameters
    ----------
    kr : KernelRules or RulesView
        The rules.
    roll_idx, used, upper, flag : int arrays (n,)
        Each roll and the used-mask, capped upper total and flag it is scored at.
    points : int array (n, n_boxes)
        :func:`box_options` of the batch (illegal boxes count as 0 points).

    Returns
    -------
    int64 array (n, n_boxes)
    """
    cdef RulesView view = view_of(kr)
    cdef const Rules* r = &view.rules
    rolls, u, f = rows_of(r, roll_idx, used, flag)
    up = np.ascontiguousarray(upper, dtype=np.int64)
    pts = contiguous(points, _POINTS_DTYPES)
    n = rolls.shape[0]
    if up.shape != rolls.shape or pts.ndim != 2 or pts.shape[0] != n or pts.shape[1] != r.n_boxes:
        raise ValueError(f"upper must have {n} entries and points {n} rows of {r.n_boxes}")
    out = np.empty((n, r.n_boxes), dtype=np.int64)
    cdef int error
    if rolls.dtype == np.int32 and pts.dtype == np.int16:
        error = fill_bonus_options[int32_t, int16_t](r, rolls, u, up, f, pts, out)
    elif rolls.dtype == np.int32:
        error = fill_bonus_options[int32_t, int64_t](r, rolls, u, up, f, pts, out)
    elif pts.dtype == np.int16:
        error = fill_bonus_options[int64_t, int16_t](r, rolls, u, up, f, pts, out)
    else:
        error = fill_bonus_options[int64_t, int64_t](r, rolls, u, up, f, pts, out)
    if error:
        raise_position_error(r, error)
    return out


def flag_after_roll(kr, int64_t flag, int64_t yb):
    """The flag once a roll's Yahtzee bonus ``yb`` is paid (a bonus limit moves it up).

    Parameters
    ----------
    kr : KernelRules or RulesView
        The rules.
    flag, yb : int
        The flag before the roll is scored, and the roll's Yahtzee bonus.

    Returns
    -------
    int
    """
    cdef RulesView view = view_of(kr)
    return rules_flag_after_roll(&view.rules, flag, yb)


def saved_scored_state(
    kr, int64_t used, int64_t upper, int64_t flag, int64_t c, int64_t p, int64_t saved
):
    """The scoring step: the next state after ``p`` points in box ``c`` (the next turn
    starting with ``saved`` saved rolls), and the upper bonus paid.

    Parameters
    ----------
    kr : KernelRules or RulesView
        The rules.
    used, upper, flag : int
        The turn-start state (``flag`` after the roll's Yahtzee bonus,
        :func:`flag_after_roll`).
    c, p : int
        The box written and its points.
    saved : int
        The saved rolls the next turn starts with (0 in games without).

    Returns
    -------
    (int, int)
        The next state's index and the upper bonus paid.
    """
    cdef RulesView view = view_of(kr)
    cdef const Rules* r = &view.rules
    cdef int64_t bonus, u2, nf
    if c < 0 or c >= r.n_boxes:
        raise ValueError(f"box {c} is not a box of these rules (0..{r.n_boxes - 1})")
    u2 = upper_after(r, upper, c, p, &bonus)
    nf = 1 if sets_flag(r, c, p) else flag
    return saved_state_index(r, used | ((<int64_t>1) << c), u2, nf, saved), bonus


def scored_state(kr, int64_t used, int64_t upper, int64_t flag, int64_t c, int64_t p):
    """:func:`saved_scored_state` with no saved roll.

    Parameters
    ----------
    kr : KernelRules or RulesView
        The rules.
    used, upper, flag, c, p : int
        As :func:`saved_scored_state`.

    Returns
    -------
    (int, int)
        The next state's index and the upper bonus paid.
    """
    return saved_scored_state(kr, used, upper, flag, c, p, 0)


def saved_box_moves(kr, roll, used, upper, flag, saved):
    """Every box's move for a batch of box decisions in a game with saved rolls: its legal
    points, the next state (the next turn starting with the rolls saved) and the points
    the move scores now.

    Parameters
    ----------
    kr : KernelRules or RulesView
        The rules.
    roll, used, upper, flag : int arrays (n,)
        Each decision's roll and turn-start state (``upper`` capped at the bonus
        threshold).
    saved : int array (n,)
        The rolls each decision saves for the next turn.

    Returns
    -------
    points : int64 array (n, n_boxes)
        The legal points of each box (-1: illegal).
    nxt : int64 array (n, n_boxes)
        The next state's index in the product layout (-1 where illegal).
    gain : float64 array (n, n_boxes)
        The box's points plus the upper and Yahtzee bonuses it earns (0 where illegal).
    """
    cdef RulesView view = view_of(kr)
    cdef const Rules* r = &view.rules
    rolls, u, f = batch_of(r, roll, used, flag)
    up = np.ascontiguousarray(upper, dtype=np.int64)
    sv_arr = np.ascontiguousarray(saved, dtype=np.int64)
    n = rolls.shape[0]
    if up.shape[0] != n or sv_arr.shape[0] != n:
        raise ValueError(f"upper and saved must have {n} entries each")
    if n and (up.min() < 0 or up.max() > r.upper_cap):
        raise ValueError(f"upper totals must lie in 0..{r.upper_cap}")
    if n and (f.min() < 0 or f.max() >= r.flag_size):
        raise ValueError(f"flags must lie in 0..{r.flag_size - 1}")
    if n and (sv_arr.min() < 0 or sv_arr.max() >= r.saved_size):
        raise ValueError(f"saved rolls must lie in 0..{r.saved_size - 1}")
    cdef const int64_t[::1] rv = rolls
    cdef const int64_t[::1] uv = u
    cdef const int64_t[::1] fv = f
    cdef const int64_t[::1] upv = up
    cdef const int64_t[::1] sv = sv_arr
    points = np.empty((n, r.n_boxes), dtype=np.int64)
    nxt = np.empty((n, r.n_boxes), dtype=np.int64)
    gain = np.empty((n, r.n_boxes))
    cdef int64_t[:, ::1] pv = points
    cdef int64_t[:, ::1] nv = nxt
    cdef double[:, ::1] gv = gain
    cdef int64_t i, c, yb, f2, p, u2, bonus, nf
    with nogil:
        for i in range(rv.shape[0]):
            yb = roll_options(r, rv[i], uv[i], fv[i], &pv[i, 0])
            f2 = rules_flag_after_roll(r, fv[i], yb)
            for c in range(r.n_boxes):
                p = pv[i, c]
                if p < 0:
                    nv[i, c] = -1
                    gv[i, c] = 0.0
                    continue
                u2 = upper_after(r, upv[i], c, p, &bonus)
                nf = 1 if sets_flag(r, c, p) else f2
                nv[i, c] = saved_state_index(r, uv[i] | ((<int64_t>1) << c), u2, nf, sv[i])
                gv[i, c] = <double>(p + bonus + yb)
    return points, nxt, gain
