"""Exact evaluation: the law of the final score of a strategy (laws), of score-dependent
strategies (scores), the points still to come under max-EV play (future) and the exact
two-player win probability of two strategies (pairs).

Sits on :mod:`yahtzee_sim.solving`.
"""
