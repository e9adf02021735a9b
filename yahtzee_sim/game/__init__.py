"""The game: rule sets, dice and their chance outcomes, the state encoding, box names.

The bottom layer. It imports nothing of the package but :mod:`yahtzee_sim.errors` and the
kernels' input bundles (:mod:`yahtzee_sim._kernels`).
"""
