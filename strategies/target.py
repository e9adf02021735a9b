"""Target-score play: maximize P(final score >= β) (Tillius 2026 §4 "Rekord-Yatzy").

Source: Tillius, *Optimala strategier för Yatzy* (Tillius 2026), §4: the record strategy
maximizes the probability of reaching a final score β instead of the expected score;
its decisions depend on the running total through the points still needed
``t = β − score``. Decisions come from the target-score table
(:mod:`yahtzee_sim.solving.target`): at a turn-start state with ``t`` points still needed, the
turn is played as the one-lane widget with ``P[next state, t − points]`` in place of
the value table. Once the target is reached (``t <= 0``) or out of reach
(``P = 0``), every move has the same probability, and the strategy plays max-EV
(:class:`~yahtzee_sim.strategies.optimal.Optimal`) instead.

This module is the *strategy*; the table it reads is solved by :mod:`yahtzee_sim.solving.target`.
"""

from __future__ import annotations

from yahtzee_sim._kernels.lanes import points_needed_lanes
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.solving.target import target_table
from yahtzee_sim.strategies.score_dependent import LaneStrategy
from yahtzee_sim.validation import Integer, check


class TargetScore(LaneStrategy):
    """Maximizes P(final score >= ``beta``) (Tillius 2026 §4); id ``target:β``.

    Parameters
    ----------
    beta : int
        The target final score (>= 1).
    """

    id_parameter = "beta"  # the number of the id "target:300"
    references = ()  # Tillius's figures are P(score >= beta) per beta: tests/solving/test_target.py
    in_all = False  # not part of "all": its table takes minutes per rule set

    def __init__(self, beta: int = 300) -> None:
        self.beta = beta

    def prepare(self, rules) -> None:
        if getattr(self, "_rules", None) == rules:
            return
        self.check_rules(rules)  # its capabilities: games without saved rolls
        beta = check("target: beta", self.beta, Integer(1), StrategyError)
        self._table = target_table(rules)
        t = self._table
        self._lanes = points_needed_lanes(t.probs, t.offset, t.length)
        self._anchor = beta
        self._prepare_fallback(rules)
        self._rules = rules
