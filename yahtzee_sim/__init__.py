"""yahtzee_sim: evaluate and rank Yahtzee and Yatzy strategies.

Quick use::

    >>> import yahtzee_sim
    >>> res = yahtzee_sim.simulate("greedy", 10_000, seed=1)
    >>> round(res.summary()["mean"])  # doctest: +SKIP
    214
"""

from .errors import IllegalMoveError, RulesError, StrategyError, YahtzeeSimError
from .rules import PRESETS, Category, RuleSet, get_rules
from .simulate import simulate

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "Category",
    "IllegalMoveError",
    "RuleSet",
    "RulesError",
    "StrategyError",
    "YahtzeeSimError",
    "__version__",
    "get_rules",
    "simulate",
]
