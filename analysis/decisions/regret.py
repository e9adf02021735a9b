"""Regret analysis: how far a strategy is from optimal, and where it loses the points.

Exact, from the strategy's reach probabilities (the exact evaluator's forward
pass) and the optimal value of every option (the solved table). Every decision
point the strategy reaches is charged ``P(reach) × (optimal value of the point −
optimal value after the strategy's action)``; these charges sum to the optimal
expected score minus the strategy's (the performance-difference identity), which
the tests check. Without the score law the forward pass is streamed a block of states
at a time (games whose law does not fit in memory, such as ``maxi-yatzy-3``), and a large
game keeps its arrays in a file a killed run resumes from
(:mod:`yahtzee_sim.exact.forward_file`). Games with saved rolls have a forward pass of
their own, which also charges the choice to stop and save rolls
(:mod:`~yahtzee_sim.analysis.decisions.saved_regret`).
"""

from __future__ import annotations

import time

import numpy as np

from yahtzee_sim._core.regret import level_regret
from yahtzee_sim._kernels.lanes import upper_total_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.analysis.decisions.regret_tables import (
    RegretResult,
    RegretTables,
    costliest,
    decision_layer_name,
    move_text,
)
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.engine.weighted_bar import WeightedBar
from yahtzee_sim.exact.exact_costs import exact_bar
from yahtzee_sim.exact.forward import forward_pass
from yahtzee_sim.exact.laws import exact_result, prepared
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import compact_states, decode_state, state_runs
from yahtzee_sim.solving.solver import table_lanes, value_table
from yahtzee_sim.validation import Integer, validate_params


def regret(
    strategy, rules: str | RuleSet = "yahtzee", top: int = 10, progress: bool = False
) -> RegretResult:
    """Exact expected loss of a deterministic strategy against optimal play, decomposed.

    Parameters
    ----------
    strategy : Strategy or str
        Any strategy :func:`yahtzee_sim.exact.laws.evaluate` accepts.
    rules : str or RuleSet
    top : int
        Number of costliest situations to list (>= 0).
    progress : bool
        Progress bar over the levels of the forward pass.

    Returns
    -------
    RegretResult

    Raises
    ------
    ExactEvaluationError
        For random or score-dependent strategies (as :func:`~yahtzee_sim.exact.laws.evaluate`).
    ValueError
        If ``top`` is not a non-negative integer.
    """
    return evaluate_with_regret(strategy, rules, top, distribution=None, progress=progress)[1]


@validate_params({"top": Integer(0)})
def evaluate_with_regret(
    strategy,
    rules: str | RuleSet = "yahtzee",
    top: int = 10,
    distribution: bool | None = True,
    progress: bool = False,
):
    """:func:`~yahtzee_sim.exact.laws.evaluate` and :func:`regret` from one forward pass.

    Returns ``(ExactResult, RegretResult)`` (the first is ``None`` when
    ``distribution`` is ``None``; ``False`` gives the moments only). Without the law
    (``distribution`` ``None`` or ``False``) the pass streams each level a block of
    states at a time and keeps no level's outcomes: the memory of three numbers per state,
    so games too large for the exact law (``maxi-yatzy-3``) take it too.
    """
    if compact_states(get_rules(rules)):  # saved rolls: a forward pass of its own
        from yahtzee_sim.analysis.decisions.saved_regret import saved_regret

        return saved_regret(strategy, get_rules(rules), top, distribution, progress)
    t0 = time.perf_counter()
    law = distribution is True
    strategy, rules = prepared(strategy, rules, moments_only=not law)
    with regret_bar(rules, law, progress) as bar:
        value_table(rules)  # solved or read: the first step of the bar
        bar.step("table")
        acc = RegretAccumulator(rules, top)
        levels, fw = forward_pass(strategy, rules, progress, acc, keep_levels=law, bar=bar)
        t1 = time.perf_counter()
        res = acc.result(strategy_label(strategy), fw, t1 - t0)
        ex = None
        if distribution is not None:
            ex = exact_result(strategy, rules, levels, fw, distribution, progress, t0, bar)
    return ex, res


def regret_bar(rules: RuleSet, law: bool, progress: bool) -> WeightedBar:
    """The progress bar of :func:`evaluate_with_regret`: the value table (a solve's widget
    lanes, none when it is stored and read: :func:`~yahtzee_sim.solving.solver.table_lanes`),
    then the forward pass with the losses charged (and the law with ``law``), each level
    weighed by its states (:func:`~yahtzee_sim.exact.exact_costs.exact_bar`)."""
    return exact_bar(
        rules, progress, law=law, before={"table": table_lanes(rules)}, desc="regret",
        leave=False,
    )  # fmt: skip


class RegretAccumulator(RegretTables):
    """Charges the losses of each chunk of decisions as the forward pass goes."""

    def __init__(self, rules: RuleSet, top: int):
        self.rules, self.top = rules, top
        self.lanes = upper_total_lanes(value_table(rules).values)
        self.kr = kernel_rules(rules)
        R, C = rules.rolls_per_turn, rules.n_boxes
        self.by_layer, self.by_turn, self.by_cat = np.zeros(R), np.zeros(C), np.zeros(C)
        self.cands: list = []
        self.seconds = 0.0  # time spent charging, for the report's timings
        self.move = move_text

    @property
    def checkpoint_key(self) -> str:
        """What a resumable forward pass records this analysis under (its kind and size)."""
        return f"regret-top{self.top}"

    def __call__(self, turn, s, keep, cat, reach) -> None:
        t0 = time.perf_counter()
        self._charge(turn, s, keep, cat, reach)
        self.seconds += time.perf_counter() - t0

    def _charge(self, turn, s, keep, cat, reach) -> None:
        rules = self.rules
        R, C = rules.rolls_per_turn, rules.n_boxes
        used, upper, flag = decode_state(rules, s)
        m = len(s)
        loss, bc = np.zeros((m, R)), np.zeros((m, C))
        top_roll = np.empty((m, R), dtype=np.int64)
        top_p, top_loss = np.empty((m, R)), np.empty((m, R))
        top_best = np.empty((m, R), dtype=np.int64)
        groups = state_runs(used, flag)
        out = (loss, bc, top_roll, top_p, top_loss, top_best)
        threads = get_threads()
        level_regret(
            self.kr, self.lanes, used, upper, flag, groups, keep, cat, out, 4 * threads, threads
        )
        # weighted sums with numpy's fixed reduction order, not BLAS (whose threading
        # and alignment-dependent kernels change the last bits from run to run)
        a = reach[s]
        self.by_layer += (a[:, None] * loss).sum(axis=0)
        self.by_turn[turn] += float((a[:, None] * loss).sum())
        self.by_cat += (a[:, None] * bc).sum(axis=0)
        if not self.top:
            return
        contrib = (a[:, None] * top_p * top_loss).ravel()
        for f in costliest(contrib, self.top):
            i, j = divmod(int(f), R)
            r = int(top_roll[i, j])
            chosen = int(cat[i, r]) if j == 0 else int(keep[i, j - 1, r])
            self.cands.append(
                (
                    float(contrib[f]),
                    int(s[i]),
                    j,
                    r,
                    float(a[i]),
                    float(top_p[i, j]),
                    float(top_loss[i, j]),
                    int(top_best[i, j]),
                    chosen,
                )
            )

    def optimal_value(self) -> float:
        """The optimal expected score (the empty sheet's value)."""
        return float(self.lanes.values[0])

    def decisions(self) -> dict:
        """The loss by decision type, in the order a turn meets them."""
        R = self.rules.rolls_per_turn
        return {decision_layer_name(j): self.by_layer[j] for j in range(R - 1, -1, -1)}
