"""Solvers: backward induction over the one widget (max-EV, target score, any utility,
risk-sensitive play), the cache of solved tables and the advisor.

Sits on :mod:`yahtzee_sim.engine` and :mod:`yahtzee_sim.game`.
"""
