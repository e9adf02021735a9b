"""Kernels of the seed-002 rule-based strategy (Glenn 2007 rules, Tables V-VI).

Category indices follow the Yahtzee score card: 0-5 upper, 6 3K, 7 4K, 8 FH,
9 SS, 10 LS, 11 Yahtzee, 12 Chance. See ``strategies/rule_based.py`` for the rules.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _run_start(c, length):
    """Start face index of the highest run of ``length`` present, or -1."""
    for start in range(6 - length, -1, -1):
        ok = True
        for f in range(start, start + length):
            if c[f] == 0:
                ok = False
                break
        if ok:
            return start
    return -1


@njit(cache=True, nogil=True)
def glenn_keep(counts, used, flag, joker, out):
    """Table V for every game: kept face counts into ``out``."""
    for i in range(counts.shape[0]):
        c = counts[i]
        u = used[i]
        op = np.empty(13, dtype=np.bool_)
        for b in range(13):
            op[b] = (u >> b) & 1 == 0
        for f in range(6):
            out[i, f] = 0
        big = 0
        f3 = -1
        pair_hi = -1
        pair_open_hi = -1
        n_open_upper = 0
        for f in range(6):
            big = max(big, c[f])
            if c[f] >= 3:
                f3 = f
            if c[f] == 2:
                pair_hi = f
                if op[f]:
                    pair_open_hi = f
            if op[f]:
                n_open_upper += 1
        if big == 5 and (op[11] or joker):
            out[i, :] = c
            continue
        if _run_start(c, 5) >= 0 and (op[10] or op[9]):
            out[i, :] = c
            continue
        r4 = _run_start(c, 4)
        if r4 >= 0 and (op[9] or (op[10] and op[12])):
            for f in range(r4, r4 + 4):
                out[i, f] = 1
            continue
        if f3 >= 0 and op[f3]:
            out[i, f3] = c[f3]
            continue
        if f3 >= 0 and (op[6] or op[7] or op[8] or op[12]):
            out[i, f3] = c[f3]
            continue
        if pair_open_hi >= 0:
            out[i, pair_open_hi] = 2
            continue
        s345 = c[2] > 0 and c[3] > 0 and c[4] > 0
        s234 = c[1] > 0 and c[2] > 0 and c[3] > 0
        if (s345 or s234) and (op[9] or (op[10] and op[12])):
            lo = 2 if s345 else 1
            for f in range(lo, lo + 3):
                out[i, f] = 1
            continue
        if pair_hi >= 0 and (op[6] or op[12]):
            out[i, pair_hi] = 2
            continue
        if f3 >= 0 and (op[11] or flag[i] == 1):
            out[i, f3] = c[f3]
            continue
        if n_open_upper <= 4:
            low = -1
            for f in range(6):
                if c[f] >= 1 and op[f]:
                    low = f
                    break
            if low >= 0:
                out[i, low] = 1
                continue
        if pair_hi >= 0:
            out[i, pair_hi] = 2
            continue
        if op[6] or op[7] or op[12]:
            for f in range(5, 2, -1):
                if c[f] >= 1:
                    out[i, f] = 1
                    break


@njit(cache=True, nogil=True)
def glenn_category(counts, pts, upper_total, first_round, no_4k_first, throw_away, out):
    """Table VI for every game, ``pts`` = legal points (-1 illegal): box index into ``out``."""
    for i in range(counts.shape[0]):
        c = counts[i]
        p = pts[i]
        total = 0
        f3 = -1
        big = 0
        for f in range(6):
            total += (f + 1) * c[f]
            big = max(big, c[f])
            if c[f] >= 3:
                f3 = f
        skip4k = first_round and no_4k_first
        choice = -1
        if big == 5 and p[11] > 0:
            choice = 11
        elif p[10] > 0:
            choice = 10
        elif p[9] > 0:
            choice = 9
        elif (f3 >= 0 and p[f3] >= 0 and upper_total[i] < 63
              and upper_total[i] + c[f3] * (f3 + 1) >= 63):  # fmt: skip
            choice = f3
        elif c[5] >= 4 and p[5] >= 0:
            choice = 5
        elif c[4] >= 4 and p[4] >= 0:
            choice = 4
        elif p[7] > 0 and not skip4k:
            choice = 7
        elif c[5] >= 3 and p[5] >= 0:
            choice = 5
        elif c[4] >= 3 and p[4] >= 0:
            choice = 4
        elif p[8] > 0:
            choice = 8
        elif p[6] >= 22:
            choice = 6
        elif f3 >= 0 and p[f3] >= 0:
            choice = f3
        elif p[6] > 0:
            choice = 6
        elif total >= 22 and p[12] >= 0:
            choice = 12
        else:
            for f in range(6):
                if c[f] == 2 and p[f] >= 0:
                    choice = f
                    break
        if choice < 0:
            for j in range(throw_away.shape[0]):
                b = throw_away[j]
                if b == 7 and skip4k:
                    continue
                if p[b] >= 0:
                    choice = b
                    break
        if choice < 0:
            choice = 7  # only Four of a kind left in round 1: no choice
        out[i] = choice


@njit(cache=True, nogil=True)
def upper_keep(counts, used, upper_total, out):
    """Prioritize Upper Section: while the bonus is not earned, keep the dice of the open
    upper box with the largest expected upper points after the next roll,
    ``f * (c_f + (n - c_f) / 6)``; ties: more dice kept, then the lower face.
    Other games keep ``out`` (the rules' keep) unchanged."""
    n_dice = 5
    for i in range(counts.shape[0]):
        if upper_total[i] >= 63:
            continue
        best = -1.0
        best_f = -1
        for f in range(6):
            if (used[i] >> f) & 1:
                continue
            c = counts[i, f]
            v = (f + 1) * (c + (n_dice - c) / 6.0)
            if v > best + 1e-12 or (abs(v - best) <= 1e-12 and c > counts[i, best_f]):
                best = v
                best_f = f
        if best_f >= 0:
            for f in range(6):
                out[i, f] = counts[i, f] if f == best_f else 0


@njit(cache=True, nogil=True)
def upper_category(counts, pts, upper_total, out):
    """Prioritize Upper Section scoring: a Yahtzee in the Yahtzee box first; while the
    bonus is not earned, the open upper box with the most points if any scores; other
    games keep ``out`` (the rules' choice)."""
    for i in range(counts.shape[0]):
        p = pts[i]
        five = False
        for f in range(6):
            if counts[i, f] == 5:
                five = True
        if five and p[11] > 0:
            out[i] = 11
            continue
        if upper_total[i] >= 63:
            continue
        best = 0
        best_f = -1
        for f in range(6):
            if p[f] > best:
                best = p[f]
                best_f = f
        if best_f >= 0:
            out[i] = best_f


@njit(cache=True, nogil=True)
def yahtzee_keep(counts, used, earned, out):
    """Prioritize Yahtzee: until a Yahtzee has been earned (``earned``), keep the most
    frequent face;
    ties prefer a face whose upper box is open, then the higher face. Other games keep
    ``out`` (the rules' keep)."""
    for i in range(counts.shape[0]):
        if earned[i]:
            continue
        best_f = -1
        for f in range(5, -1, -1):
            if best_f < 0:
                best_f = f
                continue
            c, cb = counts[i, f], counts[i, best_f]
            open_f = (used[i] >> f) & 1 == 0
            open_b = (used[i] >> best_f) & 1 == 0
            if c > cb or (c == cb and open_f and not open_b):
                best_f = f
        for f in range(6):
            out[i, f] = counts[i, f] if f == best_f else 0


# ------------------------------------------------------------- Defensive Yahtzee
#: Lower boxes in the order Defensive Yahtzee zeroes them: lowest one-roll expected
#: value first (seed 003 §3.2): 4K, Yahtzee, FH, LS, 3K, SS, Chance.
DEFENSIVE_ZERO_ORDER = np.array([7, 11, 8, 10, 6, 9, 12, 0, 1, 2, 3, 4, 5], dtype=np.int64)


@njit(cache=True, nogil=True)
def _best_upper_face(c, used):
    """Open upper face with the most dice (ties: the higher face), or -1."""
    best = -1
    for f in range(6):
        if (used >> f) & 1 or c[f] == 0:
            continue
        if best < 0 or c[f] >= c[best]:
            best = f
    return best


@njit(cache=True, nogil=True)
def defensive_keep(counts, used, out):
    """Seed 003 §3.5: keep a made large straight (LS open); with a small straight and
    SS or LS open, keep the four-run and reroll the last die; otherwise keep the dice of
    the open upper box with the most dice (high preferred), else the most common face."""
    for i in range(counts.shape[0]):
        c = counts[i]
        u = used[i]
        for f in range(6):
            out[i, f] = 0
        if _run_start(c, 5) >= 0 and (u >> 10) & 1 == 0:
            out[i, :] = c
            continue
        r4 = _run_start(c, 4)
        if r4 >= 0 and ((u >> 9) & 1 == 0 or (u >> 10) & 1 == 0):
            for f in range(r4, r4 + 4):
                out[i, f] = 1
            continue
        f = _best_upper_face(c, u)
        if f < 0:
            f = 0
            for g in range(6):
                if c[g] >= c[f]:
                    f = g
        out[i, f] = c[f]


@njit(cache=True, nogil=True)
def defensive_category(counts, pts, upper_total, out):
    """Seed 003 §3.5 scoring (``pts``: legal points, -1 illegal; upper_total = upper points
    so far, our reading of the paper's "bonus score")."""
    for i in range(counts.shape[0]):
        c = counts[i]
        p = pts[i]
        up = upper_total[i]
        total = 0
        big_f = 0
        for f in range(6):
            total += (f + 1) * c[f]
            if c[f] > c[big_f] or (c[f] == c[big_f] and f > big_f):
                big_f = f
        n_big = c[big_f]
        choice = -1
        if n_big == 5:
            if big_f == 5 and up < 38 and p[5] >= 0:
                choice = 5
            elif p[11] > 0:
                choice = 11
        if choice < 0 and p[10] > 0:
            choice = 10
        if choice < 0 and p[9] > 0:
            choice = 9
        if choice < 0 and p[8] > 0:
            choice = 8
        if choice < 0 and n_big >= 4:
            if big_f == 5 and up < 43 and p[5] >= 0:
                choice = 5
            elif p[7] > 0:
                choice = 7
        if choice < 0 and n_big >= 3:
            if big_f == 5 and up < 48 and p[5] >= 0:
                choice = 5
            elif p[6] > 0:
                choice = 6
        if choice < 0:
            # the open upper box with the most dice; fours to sixes only with three or more
            best = -1
            for f in range(6):
                if p[f] > 0 and (f < 3 or c[f] >= 3):
                    if best < 0 or c[f] >= c[best]:
                        best = f
            choice = best
        if choice < 0 and total >= 10 and p[12] >= 0:
            choice = 12
        if choice < 0:
            for j in range(DEFENSIVE_ZERO_ORDER.shape[0]):
                b = DEFENSIVE_ZERO_ORDER[j]
                if p[b] >= 0:
                    choice = b
                    break
        out[i] = choice


# ------------------------------------------------------------- Glenn 2006 Yahtzee chasers
@njit(cache=True, nogil=True)
def chaser_keep(counts, used, mode, out):
    """Keeps of Glenn 2006's Yahtzee-minded strategies (seed 000 §7).

    mode 0 "Yahtzees Only": the most frequent face; ties to a face whose upper box is
    open (higher first), then the higher face. mode 1 "Yahtzees and Straights": first keep
    a made large straight (LS open) or a made small straight (SS open; its four-run when LS
    is open too, to go for the large one). mode 2 "Rational Yahtzees": as mode 1, but a pair
    or better whose upper box is open is kept before one whose box is filled.
    """
    for i in range(counts.shape[0]):
        c = counts[i]
        u = used[i]
        for f in range(6):
            out[i, f] = 0
        if mode >= 1:
            if _run_start(c, 5) >= 0 and (u >> 10) & 1 == 0:
                out[i, :] = c
                continue
            r4 = _run_start(c, 4)
            if r4 >= 0 and (u >> 9) & 1 == 0:
                if (u >> 10) & 1 == 0:
                    for f in range(r4, r4 + 4):
                        out[i, f] = 1
                else:
                    out[i, :] = c
                continue
        best = -1
        for f in range(5, -1, -1):
            if c[f] == 0:
                continue
            if best < 0:
                best = f
                continue
            open_f = (u >> f) & 1 == 0
            open_b = (u >> best) & 1 == 0
            if mode == 2 and c[f] >= 2 and c[best] >= 2 and open_f != open_b:
                if open_f:
                    best = f
                continue
            if c[f] > c[best] or (c[f] == c[best] and open_f and not open_b):
                best = f
        out[i, best] = c[best]
