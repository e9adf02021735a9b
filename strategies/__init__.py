"""Strategies: the batched :class:`Strategy` interface, the registry and the built-ins.

The built-in families (one module each) register themselves when the registry first
needs them (:func:`~yahtzee_sim.strategies.registry.load_builtins`), so the core modules
that look a strategy up by id (``simulate``, ``exact``, …) depend on the registry only,
never on a family that itself uses them. :func:`check_strategy` is imported on first use
for the same reason (it simulates).
"""

from __future__ import annotations

import importlib

from .adapter import FunctionStrategy, Position
from .base import Strategy
from .policy import PolicyStrategy, as_policy
from .registry import (
    default_strategy_ids,
    get_strategy,
    register,
    strategy_class,
    strategy_ids,
)

_LAZY = {"check_strategy": "checks", "StrategyCheckError": "checks"}

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


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
