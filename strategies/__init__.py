"""Strategies: the batched :class:`Strategy` interface, the registry and the built-ins."""

from . import defensive as _defensive  # noqa: F401  (registers)
from . import glenn2006 as _glenn2006  # noqa: F401  (registers)
from . import greedy as _greedy  # noqa: F401  (registers)
from . import optimal as _optimal  # noqa: F401  (registers)
from . import random as _random  # noqa: F401  (registers)
from . import risk as _risk  # noqa: F401  (registers)
from . import rule_based as _rule_based  # noqa: F401  (registers)
from . import rule_based_program as _rule_based_program  # noqa: F401  (registers)
from . import target as _target  # noqa: F401  (registers)
from . import win as _win  # noqa: F401  (registers)
from . import winaware as _winaware  # noqa: F401  (registers)
from .adapter import FunctionStrategy, Position
from .base import Strategy
from .checks import StrategyCheckError, check_strategy
from .policy import PolicyStrategy, as_policy
from .registry import (
    default_strategy_ids,
    get_strategy,
    register,
    strategy_class,
    strategy_ids,
)

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
    "register",
    "strategy_class",
    "strategy_ids",
]
