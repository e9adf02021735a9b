"""Exact evaluation: the law of the final score of a strategy (laws), of score-dependent
strategies (score_dependent), the points still to come under max-EV play (points_to_come)
and the exact two-player win probability of two strategies (pairs).

Sits on :mod:`yahtzee_sim.solving`.
"""
