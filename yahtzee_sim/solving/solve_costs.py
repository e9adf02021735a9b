"""Expected seconds of a solve: each level's work and the solver's compiling, so that a
progress bar can weigh its steps by them (in the unit of
:data:`~yahtzee_sim.engine.compile_costs.COMPILE_SECONDS`).

A level's work is its widget runs (one per used-mask and Yahtzee flag, over the upper
totals worth solving, :func:`~yahtzee_sim.solving.levels.upper_lanes`): seconds
:data:`LANE_SECONDS` per lane, each lane valuing every roll and keep of the turn (times
the rolls a turn can save, on games with saved rolls).
The first level also compiles the solver's kernels
(:data:`~yahtzee_sim.solving.levels.SOLVER_KERNELS`) when the numba cache does not hold
them (:func:`yahtzee_sim.engine.compile_costs.setup_seconds`).
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim.engine import compile_costs
from yahtzee_sim.engine.weighted_bar import WeightedBar
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.solving.levels import SOLVER_KERNELS, levels, upper_lanes

__all__ = [
    "LANE_SECONDS",
    "level_seconds",
    "solve_bar",
    "solve_seconds",
]

#: Seconds per lane of a widget run: a level's time grows with its lanes (each level of
#: ``yahtzee`` and ``yatzy`` timed on the development machine: 2.8 and 3.3 microseconds a
#: lane in the unit of the compile seconds).
LANE_SECONDS = 3.1e-6


def level_seconds(rules: RuleSet) -> list[float]:
    """Expected seconds of each level of a solve of ``rules``, fullest first (the order
    the solve takes them), compiling left out."""
    saved = max(int(rules.saved_size), 1)
    out = []
    for masks in levels(rules.n_boxes, rules.forced_order):
        _, n_upper = upper_lanes(rules, masks)
        flags = np.ones(len(masks), dtype=np.int64)
        if rules.yahtzee_index is not None and rules.flag_size > 1:
            flags = np.where((masks >> rules.yahtzee_index) & 1, rules.flag_size, 1)
        out.append(LANE_SECONDS * int((n_upper * flags).sum()) * saved)
    return out


def solve_seconds(rules: RuleSet) -> float:
    """Expected seconds of a whole solve of ``rules``, compiling included where the
    solver's kernels are missing from the numba cache."""
    return compile_costs.setup_seconds(SOLVER_KERNELS) + sum(level_seconds(rules))


def solve_bar(rules: RuleSet, progress: bool, **options) -> WeightedBar:
    """The bar of a solve of ``rules``: step ``"setup"`` (the solver's compiling, or
    loading), then ``"level k"`` for each level ``k`` (fullest first), each weighed by
    its expected seconds; ``options`` go to tqdm."""
    seconds = level_seconds(rules)
    weights = {"setup": compile_costs.setup_seconds(SOLVER_KERNELS)}
    weights |= {f"level {k}": s for k, s in enumerate(seconds)}
    options.setdefault("desc", "solve")
    return WeightedBar(weights, dict.fromkeys(weights, 1), disable=not progress, **options)
