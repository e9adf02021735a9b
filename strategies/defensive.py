"""Defensive Yahtzee (Hellström & Jaccopucci 2015): a rule-based strategy that aims at
the upper bonus to raise the minimum and the 10th percentile of the final score.

Written for the rules the paper played: official Yahtzee boxes without the Yahtzee
bonus and joker rules (``yahtzee-no-bonus``); it plays any rule set with the 13
Yahtzee boxes.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.strategy import Gap, Reference, Strategy
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.exact.decision_tables import tables_from_positions
from yahtzee_sim.strategies._yahtzee_boxes import (
    CHANCE,
    FIVES,
    FOUR_OF_A_KIND,
    FOURS,
    FULL_HOUSE,
    LARGE_STRAIGHT,
    ONES,
    SIXES,
    SMALL_STRAIGHT,
    THREE_OF_A_KIND,
    THREES,
    TWOS,
    YAHTZEE,
    YahtzeeBoxes,
    counts_of,
    points_of,
    upper_total_of,
    used_of,
)
from yahtzee_sim.strategies.defensive_kernels import (
    defensive_box,
    defensive_keep,
    defensive_tables,
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

    parallel_backend = "threads"  # stateless compiled kernels that release the GIL
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
        defensive_keep(counts_of(view), used_of(view), out)
        return out

    def box(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        out = np.empty(len(view), dtype=np.int64)
        defensive_box(
            counts_of(view),
            points_of(view),
            upper_total_of(view),
            DEFENSIVE_ZERO_ORDER,
            out,
        )
        return out

    def decision_table(self, rules, states: np.ndarray):
        """Decisions at every roll of ``states`` for exact evaluation (the batched
        protocol of :func:`yahtzee_sim.exact.decision_tables.decision_tables`), those of
        :meth:`keep` and :meth:`box` found in one compiled pass; the keeps do not read the
        rerolls left."""
        self.prepare(rules)
        kr = kernel_rules(rules)

        def fill(positions, keep, cat):
            defensive_tables(kr, DEFENSIVE_ZERO_ORDER, positions, keep, cat, get_threads())

        return tables_from_positions(rules, states, fill)


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
