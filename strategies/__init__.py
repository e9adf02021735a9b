"""Strategies: the built-in families, ways to write one's own, and the conformance checks.

Every strategy answers the batched :class:`~yahtzee_sim.engine.strategy.Strategy`
interface. The built-in families (one module each) are registered in code: importing this
package hands their table (:mod:`~yahtzee_sim.strategies.builtin`) to the
:mod:`~yahtzee_sim.engine.registry`, and each module is imported when first asked for; they
use the core (the engine, the solvers, the exact evaluator) through its public API only.
"""

from __future__ import annotations

from yahtzee_sim.adapters import FunctionStrategy, PolicyStrategy, Position, as_policy
from yahtzee_sim.checks import (
    StrategyCheckError,
    check_strategy,
    parametrize_with_checks,
    strategy_checks,
)
from yahtzee_sim.engine.registry import (
    default_strategy_ids,
    get_strategy,
    register,
    register_built_ins,
    strategy_class,
    strategy_ids,
)
from yahtzee_sim.engine.strategy import Strategy
from yahtzee_sim.strategies.builtin import BUILT_IN

register_built_ins(BUILT_IN)

__all__ = [
    "FunctionStrategy",
    "PolicyStrategy",
    "Position",
    "Strategy",
    "StrategyCheckError",
    "as_policy",
    "check_strategy",
    "default_strategy_ids",
    "get_strategy",
    "parametrize_with_checks",
    "register",
    "strategy_checks",
    "strategy_class",
    "strategy_ids",
]
