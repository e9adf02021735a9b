"""Lanes of a widget run: what its innermost loops run over, and the later states' values.

The innermost loops of the widget (:mod:`yahtzee_sim._core.widget`) run over ``nu`` lanes,
one value per lane:

* :data:`LANES_UPPER` (max-EV): lane ``t`` is the upper total ``lo + t`` of the
  state; ``values[state index]`` is the expected score still to come;
* :data:`LANES_NEED` (target score, any utility of the final score): lane ``t`` is
  the number of points still needed ``lo + t`` (to reach β, or the score ``M`` above
  which a utility is constant); state ``s`` has the row ``values[offset[s] :
  offset[s] + length[s]]`` holding lanes ``first[s] .. first[s] + length[s] - 1``
  (``first`` empty: 0 for every state); lanes before the row have the value ``top``
  (the goal is reached), lanes past it ``bottom`` (target: 1 and 0);
* caller-valued lanes (``widget_mixed`` of :mod:`yahtzee_sim._core.widget`: win-aware
  play, batched table play): the caller fills the value of every (box, points) pair in
  every lane itself — ``work.val[s, t]``, and in ``work.val_bonus[s, t]`` the same with
  a roll's Yahtzee bonus paid — and each lane is one game at its own state;
* :data:`LANES_EXP` (exponential utility, risk-sensitive play): as max-EV, over upper
  totals, but a state's value is ``±E[exp(-θ · points to come)]`` and scoring ``q``
  points multiplies by ``scale[q] = exp(-θ q)`` instead of adding ``q``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

LANES_UPPER = 0
LANES_NEED = 1
LANES_EXP = 2
_NO_ROWS = np.zeros(0, dtype=np.int64)
_NO_SCALE = np.zeros(0)


class Lanes(NamedTuple):
    """What the lanes of a widget run are, and the values of the later states."""

    kind: int
    values: np.ndarray  # float64
    offset: np.ndarray  # int64: LANES_NEED rows; upper lanes: StateLayout.block_offset
    length: np.ndarray  # int64: LANES_NEED rows; upper lanes: StateLayout.upper_count
    first: np.ndarray  # int64, LANES_NEED only: first lane of each row (empty: all 0)
    top: float  # LANES_NEED: value of lanes before a row (the goal reached)
    bottom: float  # LANES_NEED: value of lanes past a row
    scale: np.ndarray  # float64, LANES_EXP only: scale[q] = exp(-theta * q)


def upper_total_lanes(values: np.ndarray) -> Lanes:
    """Max-EV lanes over upper totals, from a value table indexed by state."""
    return Lanes(LANES_UPPER, values, _NO_ROWS, _NO_ROWS, _NO_ROWS, 0.0, 0.0, _NO_SCALE)


def compact_upper_lanes(values: np.ndarray, layout, shift: int = 0) -> Lanes:
    """Max-EV lanes over upper totals of a game indexing only the states that occur
    (:class:`yahtzee_sim.game.state.StateLayout`): ``values[i]`` is state ``shift + i``
    (``shift``: the first state of a slice of the table, e.g. the level read)."""
    offset = layout.block_offset - shift if shift else layout.block_offset
    return Lanes(LANES_UPPER, values, offset, layout.upper_count, _NO_ROWS, 0.0, 0.0, _NO_SCALE)


def points_needed_lanes(
    probs: np.ndarray,
    offset: np.ndarray,
    length: np.ndarray,
    first: np.ndarray = _NO_ROWS,
    top: float = 1.0,
    bottom: float = 0.0,
) -> Lanes:
    """Lanes over points still needed, from rows of a target table (``first`` empty,
    ``top`` 1, ``bottom`` 0) or of a utility table."""
    return Lanes(LANES_NEED, probs, offset, length, first, float(top), float(bottom), _NO_SCALE)


def exponential_lanes(values: np.ndarray, scale: np.ndarray) -> Lanes:
    """Exponential-utility lanes over upper totals (``scale[q] = exp(-θ q)``)."""
    return Lanes(LANES_EXP, values, _NO_ROWS, _NO_ROWS, _NO_ROWS, 0.0, 0.0, scale)
