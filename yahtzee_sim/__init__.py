"""yahtzee_sim: evaluate and rank Yahtzee and Yatzy strategies.

Quick use::

    >>> import yahtzee_sim
    >>> res = yahtzee_sim.simulate("greedy", 10_000, seed=1)
    >>> round(res.summary()["mean"])  # doctest: +SKIP
    214
    >>> agg = yahtzee_sim.simulate_aggregate("greedy", 10**7, seed=1)  # doctest: +SKIP
    >>> agg.summary()["games"]  # doctest: +SKIP
    10000000
"""

# registers the built-in strategies (their table: yahtzee_sim.strategies.builtin)
import yahtzee_sim.strategies  # noqa: F401
from yahtzee_sim.checks.rule_sets import check_rules
from yahtzee_sim.engine.simulate import simulate, simulate_aggregate
from yahtzee_sim.errors import IllegalMoveError, RulesError, StrategyError, YahtzeeSimError
from yahtzee_sim.game.rules import PRESETS, RuleSet, get_rules
from yahtzee_sim.game.scoring import Box
from yahtzee_sim.solving.advisor import Option, PositionError, advise
from yahtzee_sim.solving.solver import ValueTable, solve, value_table

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "Box",
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
    "check_rules",
    "get_rules",
    "simulate",
    "simulate_aggregate",
    "solve",
    "value_table",
]
