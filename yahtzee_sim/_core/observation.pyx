# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The learning encoding's kernels in the compiled core
(:mod:`yahtzee_sim.engine.observation`): the legal actions of positions, a random legal
action per row (the points of every box for a batch of rolls are :mod:`.scoring`'s).
"""

import numpy as np

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t

from yahtzee_sim._core.bundle cimport rules_of
from yahtzee_sim._core.rules cimport Rules, box_legal_points, joker_case


cdef check_positions(const Rules* r, const int64_t[::1] roll_idx, const int64_t[::1] used):
    """Refuse roll indices and used-masks outside the rules' (the loops index by them)."""
    if roll_idx.shape[0] == 0:
        return
    rolls, masks = np.asarray(roll_idx), np.asarray(used)
    if rolls.min() < 0 or rolls.max() >= r.n_rolls:
        raise ValueError(f"roll indices must lie in 0..{r.n_rolls - 1}")
    if masks.min() < 0 or masks.max() >= (1 << r.n_boxes):
        raise ValueError(f"used-masks must lie in 0..{(1 << r.n_boxes) - 1}")


def fill_masks(
    kr, const int64_t[::1] roll_idx, const int64_t[::1] rolls_left, const int64_t[::1] used,
    const int64_t[::1] flag, int8_t[:, ::1] out,
):
    """Set ``out[i, a] = 1`` for the legal actions ``a`` of position ``i``: the keeps of its
    roll while rerolls are left, else the boxes the rules allow (joker rules applied).

    Parameters
    ----------
    kr : KernelRules
        The rules (:func:`~yahtzee_sim._kernels.scoring.kernel_rules`).
    roll_idx, rolls_left, used, flag : int64 arrays (m,)
        The positions.
    out : int8 array (m, n_keeps + n_boxes)
        Zeros on entry (entries of illegal actions are left as they are).

    Returns
    -------
    None
    """
    cdef Rules r = rules_of(kr)
    cdef const int32_t[::1] ptr = kr.roll_keep_ptr
    cdef const int32_t[::1] keeps = kr.roll_keep_keep
    cdef int64_t m = roll_idx.shape[0]
    cdef int64_t i, e, c, case, roll
    if rolls_left.shape[0] != m or used.shape[0] != m or flag.shape[0] != m:
        raise ValueError(f"roll_idx, rolls_left, used and flag must have {m} entries each")
    if out.shape[0] != m or out.shape[1] != r.n_keeps + r.n_boxes:
        raise ValueError(f"out must be ({m}, {r.n_keeps + r.n_boxes})")
    if ptr.shape[0] != r.n_rolls + 1:
        raise ValueError("the bundle's roll tables do not match its rules")
    check_positions(&r, roll_idx, used)
    with nogil:
        for i in range(m):
            roll = roll_idx[i]
            if rolls_left[i] > 0:
                for e in range(ptr[roll], ptr[roll + 1]):
                    out[i, keeps[e]] = 1
            else:
                case = joker_case(&r, roll, used[i], flag[i])
                for c in range(r.n_boxes):
                    if box_legal_points(&r, case, roll, used[i], c) >= 0:
                        out[i, r.n_keeps + c] = 1


def pick_legal(const int8_t[:, ::1] mask, const double[::1] u, int64_t[::1] out):
    """A legal action per row of ``mask``: the ``floor(u[i] * count)``-th of its legal
    actions (-1 where none is legal).

    Parameters
    ----------
    mask : int8 array (m, n_actions)
        1 for the legal actions.
    u : float64 array (m,)
        One uniform in [0, 1) per row.
    out : int64 array (m,)
        Filled with the action of each row.

    Returns
    -------
    None
    """
    cdef int64_t m = mask.shape[0]
    cdef int64_t A = mask.shape[1]
    cdef int64_t i, a, c, k
    if u.shape[0] != m or out.shape[0] != m:
        raise ValueError(f"u and out must have one entry per row of mask ({m})")
    with nogil:
        for i in range(m):
            c = 0
            for a in range(A):
                c += mask[i, a]
            out[i] = -1
            k = min(<int64_t>(u[i] * <double>c), c - 1)
            for a in range(A):
                if mask[i, a]:
                    if k == 0:
                        out[i] = a
                        break
                    k -= 1

