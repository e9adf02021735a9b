"""The Yahtzee score sheet as named box indices, and dice patterns, for rule-based kernels.

Strategies written for the 13-box Yahtzee score sheet (Glenn's rules, Defensive Yahtzee,
Glenn's Yahtzee chasers) index boxes by these names, never by bare numbers, and
declare the games they play through :class:`YahtzeeBoxes` (:data:`YAHTZEE_SHEET`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

import yahtzee_sim._kernels  # noqa: F401  (cache stamps cover this module's kernels)
from yahtzee_sim.engine.strategy import Capabilities
from yahtzee_sim.game.capabilities import GameNeeds

YAHTZEE_BOXES = (
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "yahtzee",
    "chance",
)
#: The upper boxes, Ones to Sixes.
UPPER_BOXES = YAHTZEE_BOXES[:6]
ONES, TWOS, THREES, FOURS, FIVES, SIXES = range(6)
THREE_OF_A_KIND = 6
FOUR_OF_A_KIND = 7
FULL_HOUSE = 8
SMALL_STRAIGHT = 9
LARGE_STRAIGHT = 10
YAHTZEE = 11
CHANCE = 12
N_BOXES = 13
N_FACES = 6


#: The games of strategies written for the 13-box Yahtzee score sheet: the 13 Yahtzee
#: boxes in sheet order with five six-sided dice, under any bonus or joker rules (not
#: Yatzy's 15 boxes).
YAHTZEE_SHEET = GameNeeds(n_dice=5, n_faces=N_FACES, box_names=(YAHTZEE_BOXES,))


class YahtzeeBoxes:
    """Mixin of strategies written for the 13-box Yahtzee score sheet: their capabilities
    play :data:`YAHTZEE_SHEET`, which ``supports(rules)`` checks."""

    capabilities = Capabilities(
        plays=YAHTZEE_SHEET, requires="the 13 Yahtzee boxes with five six-sided dice"
    )


# ------------------------------------------------------------------ the compiled kernels' arrays
# A view's arrays as the rule-based strategies' compiled kernels take them: C-contiguous, of
# the dtypes the kernels are compiled for (no copy when they are already).
def counts_of(view) -> np.ndarray:
    """The face counts of each game's roll: ``(m, 6)`` int8."""
    return np.ascontiguousarray(view.dice, np.int8)


def used_of(view) -> np.ndarray:
    """The bitmask of each game's filled boxes: ``(m,)`` int64."""
    return np.ascontiguousarray(view.used, np.int64)


def flag_of(view) -> np.ndarray:
    """Each game's Yahtzee flag: ``(m,)`` int64."""
    return np.ascontiguousarray(view.flag, np.int64)


def upper_total_of(view) -> np.ndarray:
    """Each game's uncapped upper total: ``(m,)`` int64."""
    return np.ascontiguousarray(view.upper_total, np.int64)


def points_of(view) -> np.ndarray:
    """The points each box would get now, -1 where illegal: ``(m, n_boxes)`` int16."""
    return np.ascontiguousarray(view.box_points, np.int16)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def run_start(c, length):
    """Start face index of the highest run of ``length`` faces in counts ``c``, or -1."""
    for start in range(N_FACES - length, -1, -1):
        ok = True
        for f in range(start, start + length):
            if c[f] == 0:
                ok = False
                break
        if ok:
            return start
    return -1


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def keep_every_die(out, i, c):
    """``out[i] = c``: row ``i`` keeps every die of counts ``c`` (a loop: an array slice
    assignment compiles its shape error's message, seconds per process)."""
    for f in range(c.shape[0]):
        out[i, f] = c[f]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def read_open_boxes(used_bits, op):
    """``op[b] = True`` for every box ``b`` whose bit in ``used_bits`` is clear."""
    for b in range(N_BOXES):
        op[b] = (used_bits >> b) & 1 == 0


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def face_scan(c, op, exact_pair):
    """What Table V reads from counts ``c`` and open boxes ``op``.

    Returns the largest count, the highest face with three or more dice (-1: none), the
    highest face with a pair (exactly two dice when ``exact_pair``, else two or more; -1:
    none), the highest such pair whose upper box is open (-1: none) and the number of
    open upper boxes.
    """
    big = 0
    f3 = -1
    pair_hi = -1
    pair_open_hi = -1
    n_open_upper = 0
    for f in range(N_FACES):
        big = max(big, c[f])
        if c[f] >= 3:
            f3 = f
        if c[f] == 2 or (c[f] > 2 and not exact_pair):
            pair_hi = f
            if op[f]:
                pair_open_hi = f
        if op[f]:
            n_open_upper += 1
    return big, f3, pair_hi, pair_open_hi, n_open_upper
