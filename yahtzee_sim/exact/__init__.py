"""Exact evaluation: the law of the final score of a strategy (laws), of score-dependent
strategies (score_dependent), the points still to come under max-EV play (points_to_come)
and the exact two-player win probability of two strategies (pairs).

Sits on :mod:`yahtzee_sim.solving`. ``yahtzee_sim.exact.future``, the former name of
:mod:`~yahtzee_sim.exact.points_to_come`, still imports as a deprecated alias of it
(``from yahtzee_sim.exact.future import future_law``).
"""

import sys

from yahtzee_sim.exact import points_to_come

#: Deprecated alias of :mod:`yahtzee_sim.exact.points_to_come` (its former name).
future = points_to_come
sys.modules.setdefault(f"{__name__}.future", points_to_come)
