"""Deprecated alias of :mod:`yahtzee_sim.exact.points_to_come`, this module's former name:
``from yahtzee_sim.exact.future import future_law`` still works; import from
``yahtzee_sim.exact.points_to_come`` instead."""

from yahtzee_sim.exact.points_to_come import (  # noqa: F401  (re-exported)
    TABLES,
    FutureError,
    FutureLaws,
    FutureMoments,
    future_law,
    future_laws,
    future_moments,
    level_states,
    moments_level,
)
