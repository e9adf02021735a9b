"""Play for any goal on the final score: maximize ``E[u(final score)]``.

The utility solver (:mod:`yahtzee_sim.solving.utility`) gives the decisions; ``target:β``
is ``u = 1[final >= β]`` and ``win:N`` is P(win) against known opponents
(:mod:`.win`). Not registered (a utility is an array): build it with an array.

This module is the *strategy*; the table it reads is solved by :mod:`yahtzee_sim.solving.utility`.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving.utility import utility_table
from yahtzee_sim.strategies.score_dependent import LaneStrategy


class UtilityPlay(LaneStrategy):
    """Maximizes ``E[utility[final score]]``.

    Parameters
    ----------
    utility : array-like
        ``utility[x]`` for final scores ``x = 0, 1, ...`` (constant past its end).
    name : str
        How results label the strategy.
    """

    abstract = False
    name = "utility"

    def __init__(self, utility=(0.0, 1.0), name: str = "utility") -> None:
        self.utility = utility
        self.name = name

    def table(self, rules):
        """The solved :class:`~yahtzee_sim.solving.utility.UtilityTable` under ``rules``."""
        return utility_table(rules, self.utility)

    def prepare(self, rules) -> None:
        if getattr(self, "_rules", None) == rules:
            return
        self.check_rules(rules)  # its capabilities: games without saved rolls
        self._table = self.table(rules)
        self._lanes = self._table.lanes()
        self._anchor = self._table.top_score
        self._prepare_fallback(rules)
        self._rules = rules

    def expected_utility(self, rules) -> float:
        """The largest ``E[u(final)]`` under ``rules`` (what this strategy attains)."""
        self.prepare(get_rules(rules))
        return self._table.expected_utility()


def lexicographic(primary, secondary_sign: int, eps: float = 1e-7) -> np.ndarray:
    """``primary + sign · eps · x / len``: among the best plays for ``primary`` (ties),
    the one with the largest (sign +1) or smallest (-1) mean score, for ``eps`` small
    enough that no real difference in ``primary`` is outweighed."""
    x = np.arange(len(primary), dtype=np.float64)
    return np.asarray(primary, dtype=np.float64) + secondary_sign * eps * x / max(len(x), 1)
