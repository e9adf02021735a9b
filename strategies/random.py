"""Random baselines of "Simulating Yahtzee" ("Simulating Yahtzee", §IV.b).

Both choose the box at random among the legal boxes that score more than zero
(any legal box when none does), except that a Yahtzee roll goes in the open
Yahtzee box. They differ in how dice are kept:

* ``random`` (purely random): each die is kept independently with probability 1/2;
* ``tiered-random``: the number of dice to keep is uniform on 0..n, then that
  many dice are chosen uniformly at random.

Keeping every die ends the turn. Their randomness comes from the strategy's
own stream (:meth:`TurnView.uniform`), never from the dice.
"Simulating Yahtzee", Table 2: 87.23 ± 25.27 and 87.27 ± 25.35.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.strategy import AGREEMENT_POINTS, Capabilities, Reference, Strategy
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.strategies.random_kernels import random_box, random_keep


class _RandomBase(Strategy):
    capabilities = Capabilities(deterministic=False)
    parallel_backend = "threads"  # stateless kernels that release the GIL
    _tiered = False

    def __init__(self) -> None:
        pass

    def keep(self, view: TurnView) -> np.ndarray:
        k0, k1 = view.strategy_key
        return random_keep(view.dice, view.games, k0, k1, view.counter_base(0), self._tiered)

    def box(self, view: TurnView) -> np.ndarray:
        k0, k1 = view.strategy_key
        return random_box(
            kernel_rules(view.rules),
            view.roll_index,
            view.used,
            view.flag,
            view.games,
            k0,
            k1,
            view.counter_base(1),
        )


class PurelyRandom(_RandomBase):
    """Keep each die with probability 1/2; random scoring box ("Simulating Yahtzee" §IV.b)."""

    references = (
        Reference(
            '"Simulating Yahtzee", Table 2',
            "yahtzee-single-bonus",
            mean=87.23,
            sd=25.27,
            n_games=100_000,
            tolerance=AGREEMENT_POINTS,
            note="simulated: 100,000 games, seed 2026",
        ),
    )


class TieredRandom(_RandomBase):
    """Keep a uniform number of dice (0..n), chosen at random; random box
    ("Simulating Yahtzee" §IV.b)."""

    _tiered = True
    references = (
        Reference(
            '"Simulating Yahtzee", Table 2',
            "yahtzee-single-bonus",
            mean=87.27,
            sd=25.35,
            n_games=100_000,
            tolerance=AGREEMENT_POINTS,
            note="simulated: 100,000 games, seed 2026",
        ),
    )
