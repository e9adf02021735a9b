"""Learning agents as strategies, and strategies as agents' policies.

A *policy* is any batched callable ``policy(obs, mask) -> actions``: ``obs`` the
``(m, size)`` int16 observations and ``mask`` the ``(m, n_actions)`` int8 action masks
of :mod:`yahtzee_sim.engine.observation` (what the Gymnasium environments give), ``actions``
``(m,)`` integers. A numpy function, a trained torch or jax model's forward pass
followed by a masked argmax: anything of that form.

* :class:`PolicyStrategy` wraps a policy as a :class:`~yahtzee_sim.strategies.Strategy`,
  so an agent is simulated, evaluated **exactly** (when deterministic), put through regret
  analysis, Kim–Nelson selection and the report like any built-in strategy.
* :func:`as_policy` goes the other way: any position-only strategy (``optimal``,
  ``greedy``, ...) as a policy, e.g. an expert for imitation learning or a baseline
  inside an environment.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from yahtzee_sim.adapters.functions import UserStrategy
from yahtzee_sim.engine.observation import (
    describe_action,
    mask_view,
    n_actions,
    observation_layout,
    observe_view,
    used_masks,
)
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import IllegalMoveError
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import known_box_scores

Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]


class PolicyStrategy(UserStrategy):
    """A strategy from a batched policy ``policy(obs, mask) -> actions``.

    Parameters
    ----------
    policy : callable
        Maps ``(obs (m, size) int16, mask (m, n_actions) int8)`` to ``(m,)`` integer
        actions (:mod:`yahtzee_sim.engine.observation`). Called once per decision point for
        all the games of a block; rows whose turn has ended (``mask`` all zero) are
        ignored.
    label : str
        Name shown in results and error messages.
    is_deterministic : bool
        The actions depend on the observation only (exact evaluation and regret are
        then available; a policy that also reads ``score`` is caught by the exact
        evaluator's position check).
    """

    def __init__(self, policy: Policy, label: str = "policy", is_deterministic: bool = True):
        self.policy = policy
        self.label = label
        self.is_deterministic = is_deterministic

    def _actions(self, view: TurnView) -> np.ndarray:
        mask = mask_view(view)
        if view.rolls_left:
            mask[~np.asarray(view.active)] = 0  # turn over: any answer is ignored
        out = np.asarray(self.policy(observe_view(view), mask))
        m = len(view)
        if out.shape != (m,) or not np.issubdtype(out.dtype, np.integer):
            raise IllegalMoveError(
                f"policy {self.label!r} must return integer actions of shape ({m},), "
                f"got {out.dtype} array of shape {out.shape}",
                strategy=self.label,
            )
        out = out.astype(np.int64)
        rows = mask.any(axis=1)
        a = np.clip(out, 0, mask.shape[1] - 1)
        bad = rows & ((out != a) | (mask[np.arange(m), a] == 0))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            dice = view.tables.faces_from_counts(view.dice[i])
            raise IllegalMoveError(
                f"policy {self.label!r} chose illegal action {int(out[i])} "
                f"({describe_action(view.rules, int(out[i]))}) in game {int(view.games[i])}, "
                f"turn {view.turn + 1}, rolls left {view.rolls_left}: dice {list(dice)}",
                strategy=self.label,
                game=int(view.games[i]),
                turn=view.turn + 1,
                dice=dice,
                action=int(out[i]),
            )
        return np.where(rows, out, -1)

    def keep(self, view: TurnView) -> np.ndarray:
        a = self._actions(view)
        out = view.tables.keep_counts[np.maximum(a, 0)].copy()
        out[a < 0] = view.dice[a < 0]
        return out

    def box(self, view: TurnView) -> np.ndarray:
        return self._actions(view) - view.tables.n_keeps


def views_of_observations(rules: RuleSet, obs: np.ndarray):
    """Yield ``(rows, TurnView)`` groups of observations ``obs`` (one view per turn and
    number of rerolls left). Views hold what an observation holds: the box contents
    are unknown (0, but the Yahtzee box's own points when the flag is set), the game
    numbers are the rows."""
    obs = np.asarray(obs)
    layout = observation_layout(rules)
    t = rules.tables
    dice = np.ascontiguousarray(obs[:, layout["dice"]], dtype=np.int8)
    used = used_masks(rules, obs)
    turn = obs[:, layout["used"]].astype(np.int64).sum(axis=1)
    rolls_left = obs[:, layout["rolls_left"].start].astype(np.int64)
    upper = obs[:, layout["upper_total"].start].astype(np.int64)
    flag = obs[:, layout["flag"].start].astype(np.int64)
    score = obs[:, layout["score"].start].astype(np.int64)
    saved = np.zeros(len(obs), dtype=np.int64)
    if "saved" in layout:  # games with saved rolls: the rolls a box decision saves
        saved = obs[:, layout["saved"].start].astype(np.int64)
    roll_index = t.roll_index(dice).astype(np.int32)
    scores = known_box_scores(rules, flag)
    group = turn * rules.max_rolls + rolls_left
    for g in np.unique(group):
        rows = np.flatnonzero(group == g)
        yield (
            rows,
            TurnView(
                rules,
                rows.astype(np.int64),
                dice[rows],
                roll_index[rows],
                int(rolls_left[rows[0]]),
                int(turn[rows[0]]),
                used[rows],
                upper[rows],
                flag[rows],
                score[rows],
                scores[rows],
                saved_rolls=saved[rows],
            ),
        )


def as_policy(strategy, rules: str | RuleSet = "yahtzee") -> Policy:
    """A policy ``(obs, mask) -> actions`` that plays ``strategy`` (an id or instance).

    Exact for strategies whose decisions depend on the position only (every built-in
    but the random ones, which draw from a stream keyed by the row). The mask is not
    needed (the strategy's moves are legal) and may be ``None``.
    """
    from yahtzee_sim.engine.registry import get_strategy

    rules = get_rules(rules)
    strategy = get_strategy(strategy)
    strategy.prepare(rules)
    n_keeps = rules.tables.n_keeps

    def policy(obs: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        out = np.empty(len(obs), dtype=np.int64)
        for rows, view in views_of_observations(rules, obs):
            if view.rolls_left:
                out[rows] = rules.tables.keep_index(np.asarray(strategy.keep(view)))
            else:
                out[rows] = n_keeps + np.asarray(strategy.box(view))
        return out

    policy.n_actions = n_actions(rules)  # type: ignore[attr-defined]
    return policy


__all__ = ["PolicyStrategy", "as_policy", "views_of_observations"]
