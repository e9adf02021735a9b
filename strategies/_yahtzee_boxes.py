"""The Yahtzee score sheet as named box indices, for rule-based strategies.

Strategies written for the 13-box Yahtzee score sheet (Glenn's rules, Defensive Yahtzee,
Glenn's Yahtzee chasers) index boxes by these names, never by bare numbers, and
declare the games they play through :class:`YahtzeeBoxes` (:data:`YAHTZEE_SHEET`). Their
compiled kernels read the same indices, and the dice patterns of their rules, from
``yahtzee_boxes.pxd`` beside this module; :func:`counts_of` and its siblings hand them a
view's arrays.
"""

from __future__ import annotations

import numpy as np

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
