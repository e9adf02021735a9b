"""Rule-based strategy of "Simulating Yahtzee" (seed 002 §IV.d, Tables V and VI).

The rules for keeping dice and scoring rolls are Glenn's (2007), as listed in
seed 002's Tables V and VI, with Kelly and Liese's modification (no Four of a kind
in the first round) and a throw-away priority for rolls no rule places. The first
rule that applies is played; rules are evaluated for all games at once with masks.

Keep rules (Table V), in order: a Yahtzee (if the box is open or a joker applies);
a large straight if LS or SS is open; a small straight (the four-run) if SS is open
or both LS and Chance are; a tripleton whose upper box is open; any tripleton if 3K,
4K, FH or Chance is open; a doubleton whose upper box is open (high preferred);
[3 4 5] or [2 3 4] if SS is open or both LS and Chance are; any doubleton if 3K or
Chance is open; any tripleton if the Yahtzee box is open or holds 50; a singleton
whose upper box is open (low preferred) unless more than four upper boxes are open;
any doubleton (high preferred); a singleton 4, 5 or 6 (high preferred) if 3K, 4K or
Chance is open; nothing.

Scoring rules (Table VI): Yahtzee; Large straight; Small straight; a tripleton in its
upper box if it earns the bonus; four 5s or four 6s in the upper box; Four of a kind
(not in round 1); three 5s or three 6s in the upper box; Full house; Three of a kind
if the total is at least 22; a tripleton in its upper box; Three of a kind; Chance if
the total is at least 22; a doubleton in its upper box (lower preferred); else the
first open box of ``throw_away``.

Seed 002, Table 2: 212.18 ± 59.38 (Glenn 2007 reports 218.18). The paper does not
list its throw-away order beyond "Yahtzee last"; the default is documented in the README
with the mean it gives.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim._kernels.rules_glenn import (
    defensive_category,
    defensive_keep,
    glenn_category,
    glenn_keep,
    upper_category,
    upper_keep,
    yahtzee_keep,
)
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.view import TurnView

from .base import Strategy
from .registry import register

YAHTZEE_BOXES = ("ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind",
                 "four_of_a_kind", "full_house", "small_straight", "large_straight", "yahtzee",
                 "chance")  # fmt: skip

#: Boxes for rolls no scoring rule places, first open one first (Yahtzee last, as in seed 002).
DEFAULT_THROW_AWAY = ("chance", "full_house", "ones", "twos", "threes", "four_of_a_kind",
                      "small_straight", "large_straight", "fours", "fives", "sixes",
                      "three_of_a_kind", "yahtzee")  # fmt: skip


@register("glenn-2007-rules")
class Glenn2007Rules(Strategy):
    """Rule-based strategy of seed 002 (Glenn 2007 rules, Tables V-VI; Kelly-Liese rule).

    Parameters
    ----------
    throw_away : tuple of str
        Order of the boxes that take rolls no scoring rule places.
    no_four_of_a_kind_first_round : bool
        Kelly and Liese's modification.
    """

    parallel_backend = "threads"  # stateless numba kernels that release the GIL

    def __init__(self, throw_away: tuple[str, ...] = DEFAULT_THROW_AWAY,
                 no_four_of_a_kind_first_round: bool = True) -> None:  # fmt: skip
        self.throw_away = tuple(throw_away)
        self.no_four_of_a_kind_first_round = no_four_of_a_kind_first_round

    def prepare(self, rules) -> None:
        if rules.category_names != YAHTZEE_BOXES:
            raise StrategyError(f"glenn-2007-rules needs the 13 Yahtzee boxes, not {rules.name!r}")
        if sorted(self.throw_away) != sorted(YAHTZEE_BOXES):
            raise StrategyError("glenn-2007-rules: throw_away must list each of the 13 boxes once")
        self._throw_away = np.array([YAHTZEE_BOXES.index(n) for n in self.throw_away])

    def keep(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        out = np.empty((len(view), 6), dtype=np.int8)
        glenn_keep(view.dice, view.used, view.flag, view.rules.joker != "none", out)
        return out

    def category(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        out = np.empty(len(view), dtype=np.int64)
        glenn_category(view.dice, view.category_points, view.upper_total, view.turn == 0,
                       self.no_four_of_a_kind_first_round, self._throw_away, out)  # fmt: skip
        return out


@register("prioritize-upper")
class PrioritizeUpper(Glenn2007Rules):
    """Seed 002's "Prioritize Upper Section" variant of the Glenn 2007 rules (§IV.d).

    While the upper bonus is not earned it keeps the dice of the open upper box with the
    largest expected upper points after the next roll (seed 002's example: 3 2 3 2 3 with
    Ones, Twos and Sixes open keeps 2 2), and scores a Yahtzee in its box first, then the
    open upper box with the most points if any scores; otherwise it plays the rules.
    Seed 002, Table 2: 192.92 ± 53.82.
    """

    def keep(self, view: TurnView) -> np.ndarray:
        out = super().keep(view)
        upper_keep(view.dice, view.used, view.upper_total, out)
        return out

    def category(self, view: TurnView) -> np.ndarray:
        out = super().category(view)
        upper_category(view.dice, view.category_points, view.upper_total, out)
        return out


@register("prioritize-yahtzee")
class PrioritizeYahtzee(Glenn2007Rules):
    """Seed 002's "Prioritize Yahtzee" variant of the Glenn 2007 rules (§IV.d).

    Until a Yahtzee has been earned (the Yahtzee box holds 50) it keeps the most frequent
    face (ties: a face whose upper box is open, then the higher face), even after the
    box was scratched, as the paper's wording says; scoring follows the rules, which
    already prefer Yahtzees. Seed 002, Table 2: 163.26 ± 64.47.
    """

    def keep(self, view: TurnView) -> np.ndarray:
        out = super().keep(view)
        earned = view.category_scores[:, 11] > 0  # the Yahtzee box holds 50
        yahtzee_keep(view.dice, view.used, earned, out)
        return out


@register("defensive")
class DefensiveYahtzee(Strategy):
    """Defensive Yahtzee (Hellström & Jaccopucci, KTH 2015, §3.4-3.5): aims at the upper
    bonus to raise the minimum and the 10th percentile.

    Keeps: a made large straight; a small straight's four-run while SS or LS is open;
    otherwise the dice of the open upper box with the most dice. Scoring: Yahtzee (sixes
    go to Sixes while the upper total is below 38), straights, Full house, four/three of a
    kind (sixes go to Sixes below 43/48), then the open upper box with the most dice (fours
    to sixes only with at least three), Chance at 10 or more, else a zero: lower boxes by
    increasing one-roll expected value, then upper boxes in ascending order.
    Seed 003: min 79, 10th percentile 152, mean 201.468 (100,000 games).
    """

    parallel_backend = "threads"  # stateless numba kernels that release the GIL

    def __init__(self) -> None:
        pass

    def prepare(self, rules) -> None:
        if rules.category_names != YAHTZEE_BOXES:
            raise StrategyError(f"defensive needs the 13 Yahtzee boxes, not {rules.name!r}")

    def keep(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        out = np.empty((len(view), 6), dtype=np.int8)
        defensive_keep(view.dice, view.used, out)
        return out

    def category(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        out = np.empty(len(view), dtype=np.int64)
        defensive_category(view.dice, view.category_points, view.upper_total, out)
        return out
