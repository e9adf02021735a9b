# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# distutils: extra_compile_args = -fno-tree-vectorize
# (no auto-vectorizing: GCC turns the three words of a roll into AVX-512 gathers, a third slower)
"""Batches of games played a step at a time in the compiled core: rolling the dice kept,
scoring the boxes chosen (the port of :mod:`yahtzee_sim._kernels.batch_play`, the same
dice bit for bit). Each call moves every active game of a batch one step, the dice from
the counter-based stream (:mod:`.rng`), the points from the scoring step (:mod:`.rules`).
"""

import numpy as np

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint64_t

from yahtzee_sim._core.bundle cimport RulesView, view_of
from yahtzee_sim._core.rng cimport ROLL_STRIDE, dice_counter, face_from_word, game_key, word
from yahtzee_sim._core.rules cimport (
    Rules,
    flag_after_roll,
    roll_box_points,
    sets_flag,
    upper_bonus_paid,
    yahtzee_bonus_points,
)


cdef object bool_bytes(object flags, str name):
    """A bool array's bytes (0 or 1 per game), to set or read through a byte view."""
    if flags.dtype != np.bool_:
        raise ValueError(f"{name} must be a bool array, got {flags.dtype}")
    return flags.view(np.uint8)


cdef int64_t first_bad_keep(
    const int8_t[:, ::1] counts, const int8_t[:, ::1] keep, const unsigned char[::1] rolls
) noexcept nogil:
    """The first rolling game whose keep is not a sub-multiset of its dice, or -1."""
    cdef int64_t i, f, k
    for i in range(counts.shape[0]):
        if rolls[i]:
            for f in range(counts.shape[1]):
                k = keep[i, f]
                if k < 0 or k > counts[i, f]:
                    return i
    return -1


def roll_dice(
    kr, int8_t[:, ::1] counts, int32_t[::1] roll_idx, const int8_t[:, ::1] keep,
    rolling, const int64_t[::1] games, const int64_t[::1] turn,
    const int64_t[::1] roll, uint64_t key0, uint64_t key1,
):
    """Validate keeps, then reroll the dice not kept, for the games with ``rolling`` set.

    ``keep[i]`` (face counts) must be a sub-multiset of ``counts[i]``; the first game for
    which it is not is returned before anything changes (-1 when all are legal). Then
    ``counts[i]`` becomes ``keep[i]`` plus the faces of slots ``0..m-1`` of roll ``roll[i]``
    in turn ``turn[i]`` (``m`` = dice not kept), ``roll_idx[i]`` its roll index, and
    ``rolling[i]`` is cleared for games that kept every die (their turn has ended). Faces
    of slots ``>= m`` are drawn and discarded (a fixed trip count). ``kr``: the rules'
    :class:`~yahtzee_sim._kernels.scoring.KernelRules`, or a
    :class:`~yahtzee_sim._core.bundle.RulesView` of them (read once).
    """
    cdef RulesView view = view_of(kr)
    cdef Rules r = view.rules
    cdef int64_t n = counts.shape[0]
    cdef int64_t F = counts.shape[1]
    cdef int64_t i, f, k, m, code, p, s, roll_index
    cdef int64_t n_words = (r.n_dice + 1) // 2
    cdef int64_t stride = max(<int64_t>ROLL_STRIDE, r.levels)
    cdef uint64_t gk, w
    cdef int64_t bad
    cdef unsigned char[::1] rolls = bool_bytes(rolling, "rolling")
    if F != r.n_faces or keep.shape[0] != n or keep.shape[1] != F:
        raise ValueError(f"counts and keep must be ({n}, {r.n_faces}) face counts")
    if not (roll_idx.shape[0] == rolls.shape[0] == games.shape[0] == turn.shape[0] == n):
        raise ValueError(f"every per-game array must have {n} entries")
    if roll.shape[0] != n:
        raise ValueError(f"every per-game array must have {n} entries")
    with nogil:
        bad = first_bad_keep(counts, keep, rolls)
        if bad >= 0:
            with gil:
                return bad
        for i in range(n):
            if not rolls[i]:
                continue
            m = r.n_dice
            code = 0
            for f in range(F):
                k = keep[i, f]
                m -= k
                code += k * r.code_weights[f]
            if m == 0:
                rolls[i] = 0
                continue
            gk = game_key(key0, games[i])
            for p in range(n_words):
                w = word(gk, key1, dice_counter(turn[i], roll[i], p, stride))
                s = 2 * p
                code += r.code_weights[face_from_word(w, s, F)] * (s < m)
                code += r.code_weights[face_from_word(w, s + 1, F)] * (s + 1 < m)
            roll_index = r.code_to_roll[code]
            roll_idx[i] = <int32_t>roll_index
            for f in range(F):
                counts[i, f] = r.roll_counts[roll_index * F + f]
    return -1


def apply_boxes(
    kr, const int64_t[::1] cats, active, const int32_t[::1] roll_idx,
    int64_t[::1] used, int64_t[::1] upper_sum, int64_t[::1] flag, int64_t[::1] score,
    int16_t[:, ::1] cat_scores, int8_t[:, ::1] filled_turn, int8_t[::1] ycount,
    int8_t[::1] ybonus, const int64_t[::1] turn,
):
    """Score ``cats[i]`` in turn ``turn[i]`` for the games ``i`` with ``active`` set;
    returns the first illegal index or -1 (then nothing is modified); ``kr`` as in
    :func:`roll_dice`."""
    cdef RulesView view = view_of(kr)
    cdef Rules r = view.rules
    cdef int64_t n = cats.shape[0]
    cdef int64_t[::1] points = np.empty(n, dtype=np.int64)
    cdef int64_t i, c, roll, pts, bonus
    cdef int64_t bad = -1
    cdef const unsigned char[::1] on = bool_bytes(active, "active")
    lengths = (on.shape[0], roll_idx.shape[0], used.shape[0], upper_sum.shape[0], flag.shape[0],
               score.shape[0], ycount.shape[0], ybonus.shape[0], turn.shape[0])
    if any(length != n for length in lengths):
        raise ValueError(f"every per-game array must have {n} entries")
    if cat_scores.shape[0] != n or cat_scores.shape[1] != r.n_boxes:
        raise ValueError(f"cat_scores must be ({n}, {r.n_boxes})")
    if filled_turn.shape[0] != n or filled_turn.shape[1] != r.n_boxes:
        raise ValueError(f"filled_turn must be ({n}, {r.n_boxes})")
    with nogil:
        for i in range(n):
            if not on[i]:
                continue
            c = cats[i]
            if c < 0 or c >= r.n_boxes:
                bad = i
                break
            points[i] = roll_box_points(&r, roll_idx[i], used[i], flag[i], c)
            if points[i] < 0:
                bad = i
                break
        if bad >= 0:
            with gil:
                return bad
        for i in range(n):
            if not on[i]:
                continue
            c = cats[i]
            roll = roll_idx[i]
            pts = points[i]
            bonus = yahtzee_bonus_points(&r, roll, used[i], flag[i])
            if bonus:
                ybonus[i] += 1
                score[i] += bonus
                flag[i] = flag_after_roll(&r, flag[i], bonus)
            if r.yahtzee_face[roll] >= 0:
                ycount[i] += 1
            score[i] += pts + upper_bonus_paid(&r, min(upper_sum[i], r.upper_cap), c, pts)
            cat_scores[i, c] = <int16_t>pts
            filled_turn[i, c] = <int8_t>(turn[i] + 1)
            if r.is_upper[c]:
                upper_sum[i] += pts
            if sets_flag(&r, c, pts):
                flag[i] = 1
            used[i] |= (<int64_t>1) << c
    return -1
