"""The constants of the win values, whose kernels are in the compiled core
(:mod:`yahtzee_sim._core.win_values`, :mod:`yahtzee_sim._core.win_nodes`); the exact laws of
the points to come (:mod:`yahtzee_sim.exact.points_to_come`) read the node weight too."""

from __future__ import annotations

#: Node weights below this join the next node (a law's tail, the last node).
NODE_WEIGHT = 1e-9

#: Weight of the expected final score added to P(win): moves that win equally often are
#: ranked by max-EV (a decided game is still played well); 1e-9 per point, so below 2e-6.
EV_TIE_BREAK = 1e-9
