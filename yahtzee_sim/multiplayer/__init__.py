"""Multiplayer games: visible N-player matches in lockstep, the live win probability and the
exact two-player duel.

Sits on :mod:`yahtzee_sim.exact`.
"""
