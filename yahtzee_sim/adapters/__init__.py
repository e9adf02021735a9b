"""Ways to write a strategy without batched array code: plain one-game functions
(:mod:`.functions`: :class:`FunctionStrategy`) and learning agents' policies
(:mod:`.policies`: :class:`PolicyStrategy`, and :func:`as_policy` the other way).
Re-exported by :mod:`yahtzee_sim.strategies`."""

from __future__ import annotations

from yahtzee_sim.adapters.functions import FunctionStrategy, Position
from yahtzee_sim.adapters.policies import PolicyStrategy, as_policy

__all__ = ["FunctionStrategy", "PolicyStrategy", "Position", "as_policy"]
