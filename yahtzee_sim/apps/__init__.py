"""Applications for people: the terminal game with a coach and the local web page.

Sits on :mod:`yahtzee_sim.analysis` (the coach) and every layer below it.
"""
