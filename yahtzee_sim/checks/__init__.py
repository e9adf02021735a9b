"""Conformance checks: what every strategy must satisfy (:mod:`.conformance`, run by
:mod:`.running` on the random positions of :mod:`.positions`) and what every rule set must
satisfy (:mod:`.rule_sets`, which plays built-in strategies and so sits above them).

Importing this package imports the strategy checks only; ``check_rules`` is
:func:`yahtzee_sim.checks.rule_sets.check_rules` (also ``yahtzee_sim.check_rules``).
"""

from __future__ import annotations

from yahtzee_sim.checks.conformance import CHECK_FUNCTIONS, CHECKS, StrategyCheckError
from yahtzee_sim.checks.positions import random_views
from yahtzee_sim.checks.running import (
    StrategyCheck,
    check_strategy,
    parametrize_with_checks,
    strategy_checks,
)

__all__ = [
    "CHECKS",
    "CHECK_FUNCTIONS",
    "StrategyCheck",
    "StrategyCheckError",
    "check_strategy",
    "parametrize_with_checks",
    "random_views",
    "strategy_checks",
]
