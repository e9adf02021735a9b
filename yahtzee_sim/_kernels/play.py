"""Kernels that apply the rules to batches of games: rolling, legality, scoring."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .rng import dice_counter, face_from_word, game_key, word

JOKER_NONE, JOKER_FREE, JOKER_FORCED = 0, 1, 2
_JOKER_CODES = {"none": JOKER_NONE, "free": JOKER_FREE, "forced": JOKER_FORCED}


class KernelRules(NamedTuple):
    """Flat arrays and scalars of one rule set, in the form the kernels take."""

    score_table: np.ndarray  # (n_rolls, C) int16
    joker_table: np.ndarray  # (n_rolls, C) int16
    yahtzee_face: np.ndarray  # (n_rolls,) int8, -1 if not n-of-a-kind
    upper_cat_of_face: np.ndarray  # (F,) int64, -1 if no upper box for that face
    is_upper: np.ndarray  # (C,) bool
    code_to_roll: np.ndarray  # (code,) int32
    code_weights: np.ndarray  # (F,) int64
    first_roll_prob: np.ndarray  # (n_rolls,) float64, P(roll) when no die is kept
    n_dice: int
    n_faces: int
    n_categories: int
    joker: int
    yahtzee_index: int  # -1 if none
    yahtzee_points: int
    yahtzee_bonus: int
    upper_cap: int
    upper_threshold: int
    upper_bonus: int
    flag_size: int


def _first_roll_prob(t) -> np.ndarray:
    out = np.zeros(t.n_rolls)
    lo, hi = t.keep_roll_ptr[0], t.keep_roll_ptr[1]
    out[t.keep_roll_roll[lo:hi]] = t.keep_roll_prob[lo:hi]
    return out


def kernel_rules(rules) -> KernelRules:
    """Build (once per rule set, cached on it) the :class:`KernelRules` of ``rules``."""
    cached = rules.__dict__.get("_kernel_rules")
    if cached is not None:
        return cached
    t = rules.tables
    ucf = np.full(rules.n_faces, -1, dtype=np.int64)
    for i, c in enumerate(rules.categories):
        if c.is_upper:
            ucf[c.param - 1] = i
    yi = rules.yahtzee_index
    kr = KernelRules(
        score_table=t.score_table,
        joker_table=t.joker_table,
        yahtzee_face=t.yahtzee_face,
        upper_cat_of_face=ucf,
        is_upper=np.array([c.is_upper for c in rules.categories]),
        code_to_roll=t.code_to_roll,
        code_weights=(rules.n_dice + 1) ** np.arange(rules.n_faces, dtype=np.int64),
        first_roll_prob=_first_roll_prob(t),
        n_dice=rules.n_dice,
        n_faces=rules.n_faces,
        n_categories=rules.n_categories,
        joker=_JOKER_CODES[rules.joker],
        yahtzee_index=-1 if yi is None else yi,
        yahtzee_points=0 if yi is None else rules.categories[yi].points,
        yahtzee_bonus=rules.yahtzee_bonus,
        upper_cap=rules.upper_cap,
        upper_threshold=rules.upper_bonus_threshold,
        upper_bonus=rules.upper_bonus,
        flag_size=2 if rules.has_yahtzee_flag else 1,
    )
    rules.__dict__["_kernel_rules"] = kr
    return kr


# --------------------------------------------------------------------- dice
@njit(cache=True, nogil=True)
def roll_dice(kr, roll_counts, counts, roll_idx, keep, rolling, games, turn, roll, key0, key1):
    """Validate keeps, then reroll the dice not kept, for the games with ``rolling`` set.

    ``keep[i]`` (face counts) must be a sub-multiset of ``counts[i]``; the
    first game for which it is not is returned before anything changes (-1
    when all are legal). Then ``counts[i]`` becomes ``keep[i]`` plus the faces
    of slots ``0..m-1`` of roll ``roll`` in turn ``turn`` (``m`` = dice not
    kept), ``roll_idx[i]`` its roll index, and ``rolling[i]`` is cleared for
    games that kept every die (their turn has ended).

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
            w = word(gk, key1, dice_counter(turn, roll, p))
            s = 2 * p
            code += kr.code_weights[face_from_word(w, s, F)] * (s < m)
            code += kr.code_weights[face_from_word(w, s + 1, F)] * (s + 1 < m)
        r = kr.code_to_roll[code]
        roll_idx[i] = r
        for f in range(F):
            counts[i, f] = roll_counts[r, f]
    return -1


# ------------------------------------------------------------- categories
@njit(cache=True, nogil=True)
def joker_case(kr, roll, used, flag):
    """How a roll may be scored.

    0 normal; 1 forced joker: the matching upper box only; 2 free joker: any open
    box, lower boxes at joker values, upper boxes normally (0); 3 forced joker:
    open lower boxes only, at joker values; 4 forced joker with no lower box
    open: any open (non-matching) upper box, for 0.
    """
    yi = kr.yahtzee_index
    if kr.joker == JOKER_NONE or yi < 0 or kr.yahtzee_face[roll] < 0:
        return 0
    if (used >> yi) & 1 == 0:
        return 0
    upper_c = kr.upper_cat_of_face[kr.yahtzee_face[roll]]
    upper_open = upper_c >= 0 and (used >> upper_c) & 1 == 0
    if kr.joker == JOKER_FREE:
        return 0 if upper_open else 2
    if upper_open:
        return 1
    for c in range(kr.n_categories):
        if not kr.is_upper[c] and (used >> c) & 1 == 0:
            return 3
    return 4


@njit(cache=True, nogil=True)
def category_legal_points(kr, case, roll, used, c):
    """Points of category ``c`` for ``roll`` (no bonuses), or -1 if ``c`` is illegal."""
    if (used >> c) & 1:
        return -1
    if case == 0:
        return kr.score_table[roll, c]
    if case == 1:
        if c != kr.upper_cat_of_face[kr.yahtzee_face[roll]]:
            return -1
        return kr.score_table[roll, c]
    if case == 2:
        return kr.joker_table[roll, c]
    if case == 3:
        return -1 if kr.is_upper[c] else kr.joker_table[roll, c]
    # case 4: only upper boxes are open
    return kr.score_table[roll, c]


@njit(cache=True, nogil=True)
def scored_state(kr, used, upper, flag, c, p):
    """``(next state index, upper bonus paid)`` after scoring ``p`` points in box ``c``.

    The upper total moves to ``min(upper + p, cap)`` for an upper box, paying the bonus
    when it reaches the cap now; a Yahtzee scored for its full points sets the flag.
    """
    cap = kr.upper_cap
    nf = flag
    if kr.flag_size == 2 and c == kr.yahtzee_index and p == kr.yahtzee_points and p > 0:
        nf = 1
    u2 = upper
    bonus = 0
    if kr.is_upper[c] and cap > 0:
        u2 = upper + p
        if u2 >= cap:
            u2 = cap
            if upper < cap:
                bonus = kr.upper_bonus
    return ((used | (np.int64(1) << c)) * kr.flag_size + nf) * (cap + 1) + u2, bonus


@njit(cache=True, nogil=True)
def yahtzee_bonus_points(kr, roll, used, flag):
    """Yahtzee bonus earned by scoring ``roll`` (whatever box it goes in)."""
    if kr.yahtzee_bonus == 0 or kr.yahtzee_index < 0 or kr.yahtzee_face[roll] < 0:
        return 0
    if (used >> kr.yahtzee_index) & 1 and flag:
        return kr.yahtzee_bonus
    return 0


@njit(cache=True, nogil=True)
def category_options(kr, roll_idx, used, flag):
    """Points of every category for a batch (-1 where illegal), shape ``(n, C)`` int16."""
    n = roll_idx.shape[0]
    out = np.empty((n, kr.n_categories), dtype=np.int16)
    for i in range(n):
        case = joker_case(kr, roll_idx[i], used[i], flag[i])
        for c in range(kr.n_categories):
            out[i, c] = category_legal_points(kr, case, roll_idx[i], used[i], c)
    return out


@njit(cache=True, nogil=True)
def apply_categories(
    kr,
    cats,
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
    """Score ``cats[i]`` for game ``i``; returns the first illegal index or -1.

    Nothing is modified for games at or after an illegal decision.
    """
    n = cats.shape[0]
    for i in range(n):
        c = cats[i]
        if c < 0 or c >= kr.n_categories:
            return i
        roll = roll_idx[i]
        case = joker_case(kr, roll, used[i], flag[i])
        pts = category_legal_points(kr, case, roll, used[i], c)
        if pts < 0:
            return i
    for i in range(n):
        c = cats[i]
        roll = roll_idx[i]
        case = joker_case(kr, roll, used[i], flag[i])
        pts = category_legal_points(kr, case, roll, used[i], c)
        bonus = yahtzee_bonus_points(kr, roll, used[i], flag[i])
        if bonus:
            ybonus[i] += 1
            score[i] += bonus
        score[i] += pts
        if kr.yahtzee_face[roll] >= 0:
            ycount[i] += 1
        cat_scores[i, c] = pts
        filled_turn[i, c] = turn + 1
        if kr.is_upper[c]:
            if upper_sum[i] < kr.upper_threshold <= upper_sum[i] + pts:
                score[i] += kr.upper_bonus
            upper_sum[i] += pts
        if kr.flag_size == 2 and c == kr.yahtzee_index and pts == kr.yahtzee_points and pts > 0:
            flag[i] = 1
        used[i] |= np.int64(1) << c
    return -1
