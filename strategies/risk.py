"""Risk-sensitive play: maximize the expected exponential utility of the final score.

Source: the exponential-utility ("risk-sensitive") play some public Yatzy solvers
offer; the model is the classical constant-absolute-risk-aversion utility
``u(x) = -exp(-θ x)``. θ > 0 trades mean score for a narrower, safer law (a higher
10th percentile), θ < 0 the other way (a fatter top); θ → 0 is max-EV play. The
utility factorizes over turns, so the decisions depend on the state alone and the
strategy is evaluated exactly like ``optimal`` (:mod:`yahtzee_sim.solving.risk`).

This module is the *strategy*; the table it reads is solved by :mod:`yahtzee_sim.solving.risk`.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim.engine.strategy import Capabilities
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.game.capabilities import FIXED_ROLLS
from yahtzee_sim.solving.risk import RiskError, risk_table
from yahtzee_sim.strategies.optimal import TableStrategy


class RiskSensitive(TableStrategy):
    """Maximizes ``E[-exp(-θ · final)]`` (θ > 0) or ``E[exp(-θ · final)]`` (θ < 0);
    id ``risk:θ``.

    Parameters
    ----------
    theta : float
        Risk aversion (nonzero; its range depends on the rules' largest score).
    """

    references = ()  # no published figures; results: docs/guide/target-utility-risk.md
    id_parameter = "theta"  # the number of the id "risk:0.02"
    in_all = False  # a family of strategies, one per θ
    capabilities = Capabilities(solved_table=True, plays=FIXED_ROLLS)

    def __init__(self, theta: float = 0.01) -> None:
        self.theta = theta

    def prepare(self, rules) -> None:
        self.check_rules(rules)  # its capabilities: games without saved rolls
        try:
            self._risk = risk_table(rules, self.theta)
        except RiskError as exc:
            raise StrategyError(f"risk: {exc}") from None
        super().prepare(rules)

    def state_values(self, rules) -> np.ndarray:
        return self._risk.values

    def lanes(self):
        return self._risk.lanes()
