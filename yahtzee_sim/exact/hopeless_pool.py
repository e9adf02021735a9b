"""Pooling the hopeless upper totals of a forward pass on a game with saved rolls.

From an upper total at or below a used-mask's *hopeless* bound
(:func:`yahtzee_sim.solving.levels.upper_lanes`: the open upper boxes cannot reach the
bonus any more) the optimal values, the points of every move and the states a turn leads
to (up to their own hopeless upper total) do not depend on the total. When a strategy
also decides alike at every hopeless total of a used-mask and flag, the reach of those
totals can travel together: the forward pass of
:mod:`yahtzee_sim.exact.saved_forward` adds it into upper total 0 and runs one position
where it ran many, with the same charges up to rounding.

Pooling is exact only if the strategy decides alike at every hopeless total of every
used-mask and flag the pass reaches, at every level; :func:`pool_hopeless` checks each
level it pools, and a level that fails once reach has been pooled raises
:class:`PoolingBroken` (the pass starts again without pooling).
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import state_runs
from yahtzee_sim.solving.levels import upper_lanes


class PoolingBroken(Exception):
    """A strategy decides differently at two hopeless upper totals of one used-mask and
    flag after reach was pooled (the pass is run again without pooling)."""


def groups_of(pos: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """``(group, first, n)``: each position's group of one used-mask and flag (rows in
    runs, :func:`~yahtzee_sim.game.state.state_runs`), the row its group starts at, and the
    number of groups."""
    runs = state_runs(pos[:, 0], pos[:, 2])
    sizes = np.diff(runs)
    return np.repeat(np.arange(len(sizes)), sizes), np.repeat(runs[:-1], sizes), len(sizes)


def hopeless_rows(rules: RuleSet, pos: np.ndarray, live: np.ndarray):
    """The hopeless positions of ``pos`` (one level, groups of one used-mask and flag,
    upper totals from 0) and the rows whose decisions pooling needs.

    Returns ``(hopeless, ask)``: whether each position is hopeless (its mask's hopeless
    bound is 1 or more and its total at most that), and the rows to ask: the ``live``
    ones and every hopeless row of a group with a live hopeless row."""
    group, _, n = groups_of(pos)
    bound = upper_lanes(rules, pos[:, 0])[0]
    hopeless = (bound > 0) & (pos[:, 1] <= bound)
    watched = np.bincount(group[hopeless & live], minlength=n) > 0
    return hopeless, live | (hopeless & watched[group])


def pool_hopeless(pos, reach_in, keep, cat, hopeless, pooled_before: bool) -> bool:
    """Add, in place, the reach of every hopeless position (``pos[:, 1] > 0``) into its
    group's upper total 0 where the group's hopeless positions all decide alike
    (``keep``, ``cat`` as :func:`~yahtzee_sim.exact.saved_moments.position_decisions`
    gives them), zeroing theirs. Rows are one level's, grouped by used-mask and flag, each
    group starting at upper total 0. Returns whether any reach moved.

    Raises
    ------
    PoolingBroken
        If a group with reach at a hopeless position decides differently at two of them
        while ``pooled_before`` (reach pooled at an earlier level may stand at either; a
        level's own pooling moves reach to the next level only).
    """
    group, first, n = groups_of(pos)
    assert (pos[first[hopeless], 1] == 0).all()  # a group with hopeless rows: from total 0
    same = (keep == keep[first]).all(axis=(1, 2)) & (cat == cat[first]).all(axis=(1, 2))
    split = np.bincount(group[hopeless & ~same], minlength=n) > 0
    reached = np.bincount(group[hopeless & reach_in.any(axis=1)], minlength=n) > 0
    if pooled_before and (split & reached).any():
        raise PoolingBroken
    moving = hopeless & ~split[group] & (pos[:, 1] > 0) & reach_in.any(axis=1)
    rows = np.flatnonzero(moving)
    np.add.at(reach_in, first[rows], reach_in[rows])  # rows in order: the same sums each run
    reach_in[rows] = 0.0
    return len(rows) > 0
