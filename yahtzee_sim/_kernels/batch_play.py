"""Batches of games played a step at a time: rolling the dice kept, scoring the boxes chosen.

The simulation engine's kernels (:mod:`yahtzee_sim.engine.batch`): each call moves every
active game of a batch one step, the dice from the counter-based stream of :mod:`.rng`,
the points from the scoring step of :mod:`.scoring`.
Flat in ``_kernels/``: the kernel cache keys each kernel on this folder's files (see ``__init__``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from yahtzee_sim._kernels.rng import dice_counter, face_from_word, game_key, word
from yahtzee_sim._kernels.scoring import (
    flag_after_roll,
    roll_box_points,
    sets_flag,
    upper_after,
    yahtzee_bonus_points,
)


@njit(cache=True, nogil=True)
def roll_dice(kr, counts, roll_idx, keep, rolling, games, turn, roll, key0, key1):
    """Validate keeps, then reroll the dice not kept, for the games with ``rolling`` set.

    ``keep[i]`` (face counts) must be a sub-multiset of ``counts[i]``; the
    first game for which it is not is returned before anything changes (-1
    when all are legal). Then ``counts[i]`` becomes ``keep[i]`` plus the faces
    of slots ``0..m-1`` of roll ``roll[i]`` in turn ``turn[i]`` (``m`` = dice not
    kept; per game, so games at different points of play, as in the Gymnasium
    environments, roll in one call), ``roll_idx[i]`` its roll index, and
    ``rolling[i]`` is cleared for games that kept every die (their turn has ended).

    The loop over slots has a fixed trip count (no data-dependent branches):
    faces of slots ``>= m`` are drawn and discarded.
    """
    n, F = counts.shape
    for i in range(n):
        if rolling[i]:
            for f in range(F):
                k = keep[i, f]
                if k < 0 or k > counts[i, f]:
                    return i
    n_words = (kr.n_dice + 1) // 2
    stride = max(16, kr.levels)  # rolls a turn can have: 16 unless many are saved
    for i in range(n):
        if not rolling[i]:
            continue
        m = kr.n_dice
        code = 0
        for f in range(F):
            k = np.int64(keep[i, f])
            m -= k
            code += k * kr.code_weights[f]
        if m == 0:
            rolling[i] = False
            continue
        gk = game_key(key0, games[i])
        for p in range(n_words):
            w = word(gk, key1, dice_counter(turn[i], roll[i], p, stride))
            s = 2 * p
            code += kr.code_weights[face_from_word(w, s, F)] * (s < m)
            code += kr.code_weights[face_from_word(w, s + 1, F)] * (s + 1 < m)
        r = kr.code_to_roll[code]
        roll_idx[i] = r
        for f in range(F):
            counts[i, f] = kr.roll_counts[r, f]
    return -1


@njit(cache=True, nogil=True)
def apply_boxes(
    kr,
    cats,
    active,
    roll_idx,
    used,
    upper_sum,
    flag,
    score,
    cat_scores,
    filled_turn,
    ycount,
    ybonus,
    turn,
):
    """Score ``cats[i]`` in turn ``turn[i]`` for the games ``i`` with ``active`` set;
    returns the first illegal index or -1 (then nothing is modified).
    """
    n = cats.shape[0]
    points = np.empty(n, dtype=np.int64)
    for i in range(n):
        if not active[i]:
            continue
        c = cats[i]
        if c < 0 or c >= kr.n_boxes:
            return i
        roll = roll_idx[i]
        points[i] = roll_box_points(kr, roll, used[i], flag[i], c)
        if points[i] < 0:
            return i
    for i in range(n):
        if not active[i]:
            continue
        c = cats[i]
        roll = roll_idx[i]
        pts = points[i]
        bonus = yahtzee_bonus_points(kr, roll, used[i], flag[i])
        if bonus:
            ybonus[i] += 1
            score[i] += bonus
            flag[i] = flag_after_roll(kr, flag[i], bonus)
        if kr.yahtzee_face[roll] >= 0:
            ycount[i] += 1
        _, ub = upper_after(kr, min(upper_sum[i], kr.upper_cap), c, pts)
        score[i] += pts + ub
        cat_scores[i, c] = pts
        filled_turn[i, c] = turn[i] + 1
        if kr.is_upper[c]:
            upper_sum[i] += pts
        if sets_flag(kr, c, pts):
            flag[i] = 1
        used[i] |= np.int64(1) << c
    return -1
