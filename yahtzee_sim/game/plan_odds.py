"""Plan odds: the exact chance that a keep ends the turn in a named box.

A box is *made* by the dice when they score points in it (the score table: three of a
kind for Three of a kind, 2-3-4-5-6 for Large straight; joker rules aside). The plan odds
of keeping ``K`` with ``j`` rerolls left for box ``c`` are the probability that the dice
make box ``c`` by the end of the turn when every later keep chases it (keeps the dice that
give the best chance of making it, stopping once made):

* ``P_0[r, c] = 1`` if roll ``r`` makes box ``c``, else 0;
* ``Q_j[k, c] = sum_r P(r | k) P_{j-1}[r, c]`` — keep ``k``, one reroll, ``j - 1`` left;
* ``P_j[r, c] = max over the keeps k of roll r of Q_j[k, c]``, where keeping every die
  stops the rolling: ``Q_j[r, c] = P_0[r, c]``.

So ``Q_j[k, c]`` is the plan odds asked for, e.g. Yahtzee's large straight after keeping
2-3-4-5 with two rerolls left: ``1 - (2/3)**2 = 5/9``. Both steps run on the dice tables'
keep→roll and roll→keep lists, every box at once (NumPy ``reduceat``), a few milliseconds
for Maxi Yatzy's 924 keeps. Only the dice count: the odds do not depend on the score sheet.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from yahtzee_sim.errors import PlanOddsError
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.validation import Integer, check


def made_boxes(rules: RuleSet) -> np.ndarray:
    """``(n_rolls, n_boxes)`` bool: whether each roll makes each box (scores in it)."""
    return rules.tables.score_table > 0


def _keep_step(rules: RuleSet, P: np.ndarray) -> np.ndarray:
    """``Q[k] = sum_r P(r | k) P[r]`` for every keep (rows of ``P``: rolls); keeping every
    die stops the rolling: whether the roll makes the box."""
    t = rules.tables
    edges = t.keep_roll_prob[:, None] * P[t.keep_roll_roll]
    Q = np.add.reduceat(edges, t.keep_roll_ptr[:-1].astype(np.int64), axis=0)
    Q[t.roll_keep_index] = made_boxes(rules)
    Q[Q > 1 - 1e-12] = 1.0  # a sure thing, summed in floating point, stays 1 exactly
    return Q


def _roll_step(rules: RuleSet, Q: np.ndarray) -> np.ndarray:
    """``P[r] = max over the keeps of roll r of Q[k]`` (rows of ``Q``: keeps)."""
    t = rules.tables
    return np.maximum.reduceat(Q[t.roll_keep_keep], t.roll_keep_ptr[:-1].astype(np.int64), axis=0)


def keep_odds(rules: str | RuleSet, rolls_left: int) -> np.ndarray:
    """``(n_keeps, n_boxes)``: the plan odds of every keep with ``rolls_left`` rerolls
    left (the keep rerolls the other dice now, ``rolls_left - 1`` rerolls follow).

    Raises
    ------
    PlanOddsError
        For ``rolls_left`` below 1 or above the most rerolls a turn can have.
    """
    rules = get_rules(rules)
    most = rules.max_rolls - 1
    j = check(
        "rolls_left",
        rolls_left,
        Integer(1, most, description=f"1..{most} under {rules.name!r} rules"),
        PlanOddsError,
    )
    P = made_boxes(rules).astype(np.float64)
    for _ in range(j - 1):
        P = _roll_step(rules, _keep_step(rules, P))
    return _keep_step(rules, P)


def plan_odds(
    keep: Iterable[int],
    rolls_left: int,
    rules: str | RuleSet = "yahtzee",
    boxes: Iterable[str] | None = None,
) -> dict[str, float]:
    """The chance that keeping ``keep`` with ``rolls_left`` rerolls left makes each box
    by the end of the turn, chasing it.

    Parameters
    ----------
    keep : iterable of int
        The dice kept (face values; ``[]``: reroll every die).
    rolls_left : int
        Rerolls left before this keep (at least 1).
    rules : str or RuleSet
    boxes : iterable of str, optional
        The boxes asked about (default: every box), by name.

    Returns
    -------
    dict
        ``{box name: probability}`` in score-sheet order.

    Raises
    ------
    PlanOddsError, RulesError, DiceError
        For a keep of more dice than the rules roll, a face out of range, ``rolls_left``
        out of range, an unknown box (all ``ValueError`` subclasses).

    Examples
    --------
    >>> odds = plan_odds([2, 3, 4, 5], 2, "yahtzee", ["large_straight"])
    >>> round(odds["large_straight"], 6)  # 1 - (2/3)**2
    0.555556
    """
    rules = get_rules(rules)
    faces = sorted(int(f) for f in keep)
    if len(faces) > rules.n_dice or any(not 1 <= f <= rules.n_faces for f in faces):
        raise PlanOddsError(
            f"keep {faces}: at most {rules.n_dice} dice with faces 1..{rules.n_faces}"
        )
    names = rules.box_names if boxes is None else tuple(boxes)
    columns = [rules.box_index(n) for n in names]
    k = int(rules.tables.keep_from_faces(faces))
    row = keep_odds(rules, rolls_left)[k]
    return {rules.box_names[c]: float(row[c]) for c in sorted(set(columns))}
