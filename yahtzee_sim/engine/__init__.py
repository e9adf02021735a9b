"""The engine: games in play as arrays, what a strategy sees, the strategy interface and its
registry, lockstep simulation with common random numbers, results and records.

Sits on :mod:`yahtzee_sim.game`; never imports a concrete strategy (strategies are looked up
through :mod:`yahtzee_sim.engine.registry` by id).
"""
