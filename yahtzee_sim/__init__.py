"""yahtzee_sim: evaluate and rank Yahtzee and Yatzy strategies.

Quick use::

    >>> import yahtzee_sim
    >>> res = yahtzee_sim.simulate("greedy", 10_000, seed=1)
    >>> round(res.summary()["mean"])  # doctest: +SKIP
    214
"""

from .advisor import Option, PositionError, advise
from .errors import IllegalMoveError, RulesError, StrategyError, YahtzeeSimError
from .rules import PRESETS, Category, RuleSet, get_rules
from .simulate import simulate
from .solver import ValueTable, solve, value_table

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "Category",
    "IllegalMoveError",
    "Option",
    "PositionError",
    "RuleSet",
    "RulesError",
    "StrategyError",
    "ValueTable",
    "YahtzeeSimError",
    "__version__",
    "advise",
    "get_rules",
    "simulate",
    "solve",
    "value_table",
]
