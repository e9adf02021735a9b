"""Random legal positions a check asks a strategy to decide: :func:`random_views`."""

from __future__ import annotations

import numpy as np

from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import flag_size


def random_views(
    rules: RuleSet, n: int, seed: int, rolls_left: int, strategy_key=(1, 2), score=None
) -> TurnView:
    """``n`` random but legal positions with ``rolls_left`` rerolls left.

    Random filled boxes and upper totals consistent with them, a random roll, the
    Yahtzee-bonus flag where the Yahtzee box is filled.

    Parameters
    ----------
    rules : RuleSet
    n : int
        Positions.
    seed : int
        The same seed gives the same positions.
    rolls_left : int
    strategy_key : tuple of two int
        Key of the strategy's random stream (:meth:`TurnView.uniform`).
    score : ndarray, optional
        Points so far of each position (default: 0).

    Returns
    -------
    TurnView
        Games numbered ``0..n-1``; the turn is the largest number of filled boxes.
    """
    rng = np.random.default_rng(seed)
    t = rules.tables
    C = rules.n_boxes
    used = np.zeros(n, dtype=np.int64)
    upper = np.zeros(n, dtype=np.int64)
    flag = np.zeros(n, dtype=np.int64)
    turns = rng.integers(0, C, n)
    for i in range(n):
        filled = rng.choice(C, size=turns[i], replace=False)
        for c in filled:
            used[i] |= 1 << int(c)
            box = rules.boxes[c]
            if box.is_upper:
                upper[i] += box.param * int(rng.integers(0, rules.n_dice + 1))
        yi = rules.yahtzee_index
        if rules.has_yahtzee_flag and yi is not None and (used[i] >> yi) & 1:
            flag[i] = int(rng.integers(0, flag_size(rules)))
    rolls = rng.integers(0, t.n_rolls, n).astype(np.int32)
    return TurnView(
        rules,
        np.arange(n, dtype=np.int64),
        t.roll_counts[rolls],
        rolls,
        rolls_left,
        int(turns.max()),
        used,
        upper,
        flag,
        np.zeros(n, dtype=np.int64) if score is None else np.asarray(score, dtype=np.int64),
        np.zeros((n, C), dtype=np.int16),
        tuple(np.uint64(k) for k in strategy_key),
    )
