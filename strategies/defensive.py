"""Defensive Yahtzee (Hellström & Jaccopucci 2015): a rule-based strategy that aims at
the upper bonus to raise the minimum and the 10th percentile of the final score.

Written for the rules the paper played: official Yahtzee boxes without the Yahtzee
bonus and joker rules (``yahtzee-no-bonus``); it plays any rule set with the 13
Yahtzee boxes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from yahtzee_sim.engine.strategy import Gap, Reference, Strategy
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.strategies._yahtzee_boxes import (
    CHANCE,
    FIVES,
    FOUR_OF_A_KIND,
    FOURS,
    FULL_HOUSE,
    LARGE_STRAIGHT,
    N_FACES,
    ONES,
    SIXES,
    SMALL_STRAIGHT,
    THREE_OF_A_KIND,
    THREES,
    TWOS,
    YAHTZEE,
    YahtzeeBoxes,
    keep_every_die,
    run_start,
)


class DefensiveYahtzee(YahtzeeBoxes, Strategy):
    """Defensive Yahtzee (Hellström & Jaccopucci 2015, §3.4-3.5): aims at the upper
    bonus to raise the minimum and the 10th percentile.

    Keeps: a made large straight; a small straight's four-run while SS or LS is open;
    otherwise the dice of the open upper box with the most dice. Scoring: Yahtzee (sixes
    go to Sixes while the upper total is below 38), straights, Full house, four/three of a
    kind (sixes go to Sixes below 43/48), then the open upper box with the most dice (fours
    to sixes only with at least three), Chance at 10 or more, else a zero: lower boxes by
    increasing one-roll expected value, then upper boxes in ascending order.
    Hellström & Jaccopucci 2015: min 79, 10th percentile 152, mean 201.468 (100,000 games).
    """

    parallel_backend = "threads"  # stateless numba kernels that release the GIL
    references = (
        Reference(
            "Hellström & Jaccopucci 2015, §4.2",
            "yahtzee-no-bonus",
            mean=201.468,
            n_games=100_000,
            stats={"min": 79, "p10": 152, "max": 330},
            note="the thesis's rules on the rules of its §2.3 (no Yahtzee bonus, no joker)",
            gaps=(
                Gap(
                    "mean",
                    208.0402,
                    "unexplained: the thesis publishes no program and does not give every tie rule",
                ),
                Gap("p10", 155, "follows the mean"),
                Gap(
                    "min", 76, "a sample minimum of 100,000 games: it moves by points with the seed"
                ),
                Gap(
                    "max",
                    336,
                    "a sample maximum of 100,000 games: it moves by points with the seed",
                ),
            ),
        ),
    )

    def __init__(self) -> None:
        pass

    def prepare(self, rules) -> None:
        self.check_rules(rules)

    def keep(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        out = np.empty((len(view), 6), dtype=np.int8)
        defensive_keep(view.dice, view.used, out)
        return out

    def box(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        out = np.empty(len(view), dtype=np.int64)
        defensive_box(view.dice, view.box_points, view.upper_total, out)
        return out


# ------------------------------------------------------------------ kernels
#: Lower boxes in the order Defensive Yahtzee zeroes them: lowest one-roll expected
#: value first (Hellström & Jaccopucci 2015, §3.2): 4K, Yahtzee, FH, LS, 3K, SS, Chance.
DEFENSIVE_ZERO_ORDER = np.array(
    [
        FOUR_OF_A_KIND,
        YAHTZEE,
        FULL_HOUSE,
        LARGE_STRAIGHT,
        THREE_OF_A_KIND,
        SMALL_STRAIGHT,
        CHANCE,
        ONES,
        TWOS,
        THREES,
        FOURS,
        FIVES,
        SIXES,
    ],
    dtype=np.int64,
)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _best_upper_face(c, used):
    """Open upper face with the most dice (ties: the higher face), or -1."""
    best = -1
    for f in range(N_FACES):
        if (used >> f) & 1 or c[f] == 0:
            continue
        if best < 0 or c[f] >= c[best]:
            best = f
    return best


@njit(cache=True, nogil=True)
def defensive_keep(counts, used, out):
    """Hellström & Jaccopucci 2015, §3.5: keep a made large straight (LS open); with a
    small straight and SS or LS open, keep the four-run and reroll the last die; otherwise
    keep the dice of the open upper box with the most dice (high preferred), else the most
    common face."""
    for i in range(counts.shape[0]):
        c = counts[i]
        u = used[i]
        for f in range(N_FACES):
            out[i, f] = 0
        if run_start(c, 5) >= 0 and (u >> LARGE_STRAIGHT) & 1 == 0:
            keep_every_die(out, i, c)
            continue
        r4 = run_start(c, 4)
        if r4 >= 0 and ((u >> SMALL_STRAIGHT) & 1 == 0 or (u >> LARGE_STRAIGHT) & 1 == 0):
            for f in range(r4, r4 + 4):
                out[i, f] = 1
            continue
        f = _best_upper_face(c, u)
        if f < 0:
            f = 0
            for g in range(N_FACES):
                if c[g] >= c[f]:
                    f = g
        out[i, f] = c[f]


@njit(cache=True, nogil=True)
def defensive_box(counts, pts, upper_total, out):
    """Hellström & Jaccopucci 2015, §3.5 scoring (``pts``: legal points, -1 illegal;
    ``upper_total`` = upper points so far, our reading of the paper's "bonus score")."""
    for i in range(counts.shape[0]):
        c = counts[i]
        p = pts[i]
        up = upper_total[i]
        total = 0
        big_f = 0
        for f in range(N_FACES):
            total += (f + 1) * c[f]
            if c[f] > c[big_f] or (c[f] == c[big_f] and f > big_f):
                big_f = f
        n_big = c[big_f]
        choice = -1
        if n_big == 5:
            if big_f == 5 and up < 38 and p[SIXES] >= 0:
                choice = SIXES
            elif p[YAHTZEE] > 0:
                choice = YAHTZEE
        if choice < 0 and p[LARGE_STRAIGHT] > 0:
            choice = LARGE_STRAIGHT
        if choice < 0 and p[SMALL_STRAIGHT] > 0:
            choice = SMALL_STRAIGHT
        if choice < 0 and p[FULL_HOUSE] > 0:
            choice = FULL_HOUSE
        if choice < 0 and n_big >= 4:
            if big_f == 5 and up < 43 and p[SIXES] >= 0:
                choice = SIXES
            elif p[FOUR_OF_A_KIND] > 0:
                choice = FOUR_OF_A_KIND
        if choice < 0 and n_big >= 3:
            if big_f == 5 and up < 48 and p[SIXES] >= 0:
                choice = SIXES
            elif p[THREE_OF_A_KIND] > 0:
                choice = THREE_OF_A_KIND
        if choice < 0:
            # the open upper box with the most dice; fours to sixes only with three or more
            best = -1
            for f in range(N_FACES):
                if p[f] > 0 and (f < 3 or c[f] >= 3):
                    if best < 0 or c[f] >= c[best]:
                        best = f
            choice = best
        if choice < 0 and total >= 10 and p[CHANCE] >= 0:
            choice = CHANCE
        if choice < 0:
            for j in range(DEFENSIVE_ZERO_ORDER.shape[0]):
                b = DEFENSIVE_ZERO_ORDER[j]
                if p[b] >= 0:
                    choice = b
                    break
        out[i] = choice
