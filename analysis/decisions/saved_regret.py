"""Regret on games with saved rolls: where a strategy loses points, stops included.

The forward pass over the compact state layout
(:func:`yahtzee_sim.exact.saved_forward.saved_forward`) charges every decision point the
strategy reaches ``P(reach) × loss`` against optimal play; this module adds the charges up
by decision type, turn and box, and lists the costliest situations, as
:mod:`~yahtzee_sim.analysis.decisions.regret` does on games with fixed rolls. The
decision types are the keeps by rerolls left (a turn with saved rolls may have more than
two), the box, and the *stop*: keeping every die with ``j`` rerolls left scores the roll
now and saves ``min(j, cap)`` rolls. With ``V`` the optimal value of the roll, ``S`` that
of stopping (its best box with those rolls saved) and ``K`` that of the best keep that
rolls on, the stop loss is ``V − S`` when the strategy stops (rolling on was better by
that much) and ``S − K`` when it rolls on where stopping is best; the keep loss of a turn
that rolls on is ``K`` minus the value of its keep, and the box loss of a stop is ``S``
minus the value of the box it scores. The losses add up to the optimal value minus the
strategy's exact mean.
"""

from __future__ import annotations

import time

import numpy as np

from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.analysis.decisions.regret_tables import (
    RegretTables,
    costliest,
    decision_layer_name,
    move_text,
)
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.exact.laws import evaluate, prepared
from yahtzee_sim.exact.result import ExactEvaluationError
from yahtzee_sim.exact.saved_forward import LevelCharges, saved_forward
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import encode_state
from yahtzee_sim.solving.solver import value_table

#: The name of the stop decision in :attr:`RegretResult.by_decision`.
STOP = "stop"


def saved_move_text(rules: RuleSet, j: int, action: int) -> str:
    """Action ``action`` with ``j`` rerolls left in words: a keep (its index), or a box
    (``n_keeps + box``), scored now with ``min(j, cap)`` rolls saved when ``j > 0``."""
    n_keeps = rules.tables.n_keeps
    if action < n_keeps:
        return move_text(rules, 1, action)
    box = move_text(rules, 0, action - n_keeps)
    if j == 0:
        return box
    saved = min(j, rules.saved_roll_cap)
    return f"stop: {box}, save {saved} roll{'s' if saved > 1 else ''}"


class SavedRegretAccumulator(RegretTables):
    """Adds up the charges of a forward pass on a game with saved rolls
    (:class:`~yahtzee_sim.exact.saved_forward.LevelCharges`). ``by_layer[kind]``: the box
    (0), the keep with ``j`` rerolls left (``j``), the stop (the last)."""

    def __init__(self, rules: RuleSet, top: int):
        self.rules, self.top = rules, top
        C = rules.n_boxes
        self.kinds = kernel_rules(rules).levels + 1
        self.by_layer, self.by_turn, self.by_cat = np.zeros(self.kinds), np.zeros(C), np.zeros(C)
        self.cands: list = []
        self.seconds = 0.0
        self.move = saved_move_text

    @property
    def checkpoint_key(self) -> str:
        """What a resumable forward pass records this analysis under."""
        return f"saved-regret-top{self.top}"

    def __call__(self, charges: LevelCharges) -> None:
        t0 = time.perf_counter()
        self.by_layer += charges.loss.sum(axis=0)
        self.by_turn[charges.turn] += float(charges.loss.sum())
        self.by_cat += charges.by_cat.sum(axis=0)
        if self.top:
            self._keep_costliest(charges)
        self.seconds += time.perf_counter() - t0

    def _keep_costliest(self, charges: LevelCharges) -> None:
        """The chunk's costliest decisions join the candidates (one per position and kind)."""
        top_f, top_i, pos = charges.top_f, charges.top_i, charges.positions
        contrib = (top_f[:, :, 0] * top_f[:, :, 1]).ravel()
        for f in costliest(contrib, self.top):
            i, kind = divmod(int(f), self.kinds)
            roll, best, chosen, left = (int(x) for x in top_i[i, kind])
            state = int(encode_state(self.rules, *(int(x) for x in pos[i, [0, 1, 2]])))
            mass, loss = (float(x) for x in top_f[i, kind])
            self.cands.append((float(contrib[f]), state, left, roll, mass, 1.0, loss, best, chosen))

    def optimal_value(self) -> float:
        """The optimal expected score (the empty sheet's value)."""
        return float(value_table(self.rules).values[0])

    def decisions(self) -> dict:
        """The loss by decision type: the keeps (most rerolls left first), the stop, the box."""
        keeps = {decision_layer_name(j): self.by_layer[j] for j in range(self.kinds - 2, 0, -1)}
        return {**keeps, STOP: self.by_layer[-1], decision_layer_name(0): self.by_layer[0]}


def saved_regret(
    strategy, rules: RuleSet, top: int, distribution: bool | None, progress: bool, path=None
):
    """:func:`~yahtzee_sim.analysis.decisions.regret.evaluate_with_regret` on a game with
    saved rolls: ``(ExactResult or None, RegretResult)``. The regret comes from the forward
    pass (:func:`~yahtzee_sim.exact.saved_forward.saved_forward`, in a file given
    ``path``); with ``distribution`` ``False`` the moments come from the backward moments
    pass (:func:`~yahtzee_sim.exact.laws.evaluate`); ``True`` is refused (no score law on
    saved rolls)."""
    t0 = time.perf_counter()
    strategy, rules = prepared(strategy, rules, moments_only=distribution is not True)
    if hasattr(strategy, "lane_play"):
        raise ExactEvaluationError(
            f"score-dependent play is not evaluated exactly on games with saved rolls "
            f"({rules.name!r}); use simulate() instead"
        )
    value_table(rules)  # solved or read first
    acc = SavedRegretAccumulator(rules, top)
    fw = saved_forward(strategy, rules, acc, progress, path)
    res = acc.result(strategy_label(strategy), fw, time.perf_counter() - t0)
    res.meta["reach_total"] = fw.total
    ex = None
    if distribution is not None:
        ex = evaluate(strategy, rules, distribution=False, progress=progress)
    return ex, res
