"""Exact evaluation, entry points: :func:`evaluate` gives a deterministic strategy's score law.

Glenn (2006, §7) computes the distribution of the final score of a strategy by a
forward pass over the state graph. Here, in modules named for each step:

1. **Turn outcomes** (:mod:`~yahtzee_sim.exact.decision_tables`,
   :mod:`~yahtzee_sim.exact.forward`). Level by level (number of filled boxes), for
   every state the strategy can reach, its decisions at every roll are fetched *in
   batches* — all (state, roll) pairs of a chunk of states in one ``TurnView`` per
   decision point — and one kernel turns them into the law of the turn's outcome
   (box, points, Yahtzee bonus) through the shared keep→roll table.
2. **Forward pass** (always, :mod:`~yahtzee_sim.exact.forward`): reach probabilities
   and the partial moments ``E[score so far; at s]``, ``E[score so far²; at s]`` are
   pushed along the outcomes, giving the exact mean and SD, the per-box means, zero
   rates and average fill turn, P(upper bonus) and the expected number of Yahtzee
   bonuses.
3. **Backward pass** (``distribution=True``, :mod:`~yahtzee_sim.exact.backward`): the
   law of the points still to come from every reached state, as arrays, fullest level
   first; the start state's law is the pmf of the final score.

Only strategies whose decisions depend on the position alone (state, dice,
rolls left) can be evaluated: random strategies and strategies that use the
running score are refused (:class:`ExactEvaluationError`). The result is an
:class:`ExactResult` (:mod:`~yahtzee_sim.exact.result`). A sample of each
level's positions is asked twice, with different scores, box contents and game
numbers, to catch strategies that claim otherwise.
"""

from __future__ import annotations

import time

import numpy as np

from yahtzee_sim.engine.decide import prepare
from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.exact.backward import backward_law
from yahtzee_sim.exact.decision_tables import check_evaluable
from yahtzee_sim.exact.exact_costs import exact_bar
from yahtzee_sim.exact.forward import ForwardStats, forward_levels, forward_pass
from yahtzee_sim.exact.result import ExactEvaluationError, ExactResult
from yahtzee_sim.game.capabilities import FIXED_ROLLS, Feature
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import compact_states, n_states

#: The public names of exact evaluation here (:func:`forward_pass`, :class:`ExactResult`
#: and :class:`ExactEvaluationError` live in the modules of their steps).
__all__ = [
    "EXACT_EVALUATION",
    "EXACT_STATE_LIMIT",
    "ExactEvaluationError",
    "ExactResult",
    "evaluate",
    "exact_result",
    "exact_rules",
    "forward_pass",
    "prepared",
]

#: Most encoded states the exact score law takes on (it holds every level's outcomes in
#: memory: Yatzy's 2,097,152 states need a few GB; Maxi Yatzy's 89 million would not fit).
#: The moments alone (``distribution=False``) stream each level's outcomes instead.
EXACT_STATE_LIMIT = 1 << 23


#: The exact score law takes games without saved rolls (the moments take every game).
EXACT_EVALUATION = Feature("exact evaluation", FIXED_ROLLS)


#: Memory the score law needs per encoded state (outcomes kept for the backward pass and
#: the laws of the points to come; measured on Yahtzee and Yatzy: 1.3 GB for 1 million).
LAW_BYTES_PER_STATE = 1300


#: Memory the moments pass needs per encoded state (reach and two partial moments, and
#: the next level's reached set).
MOMENTS_BYTES_PER_STATE = 3 * 8 + 1


def _as_strategy(strategy):
    if isinstance(strategy, str):
        return get_strategy(strategy)
    return strategy


def evaluate(
    strategy,
    rules: str | RuleSet = "yahtzee",
    *,
    distribution: bool = True,
    progress: bool = False,
) -> ExactResult:
    """Exact law of the final score of a deterministic, position-only strategy.

    Parameters
    ----------
    strategy : Strategy or str
        A strategy instance or registry id / plugin spec.
    rules : str or RuleSet
    distribution : bool
        Compute the full pmf (default). ``False`` gives the moments and per-box
        statistics only (a forward pass, several times faster).
    progress : bool
        Show a progress bar over the levels.

    Returns
    -------
    ExactResult

    Raises
    ------
    ExactEvaluationError
        If the strategy is random or its decisions depend on more than the position.
    IllegalMoveError
        If the strategy makes an illegal decision in a reachable position.
    """
    t0 = time.perf_counter()
    strategy, rules = prepared(strategy, rules, moments_only=not distribution)
    if compact_states(rules):  # saved rolls: the moments by a backward pass
        return _saved_result(strategy, rules, progress, t0)
    if hasattr(strategy, "lane_play"):  # score-dependent: score-augmented states
        return _lane_result(strategy, rules, progress, t0)
    # one bar over both passes, each level weighed by its states
    with exact_bar(rules, progress, law=distribution, leave=False) as bar:
        if not distribution:  # the moments: each level's outcomes streamed, none kept
            _, stats = forward_levels(strategy, rules, progress, keep_levels=False, bar=bar)
            return _result(strategy, rules, stats, None, t0, {"total_probability": stats.total})
        levels, stats = forward_pass(strategy, rules, progress, bar=bar)
        return exact_result(strategy, rules, levels, stats, distribution, progress, t0, bar)


def exact_result(
    strategy,
    rules: RuleSet,
    levels,
    stats: ForwardStats,
    distribution: bool = True,
    progress: bool = False,
    t0: float | None = None,
    bar=None,
) -> ExactResult:
    """The :class:`ExactResult` of a :func:`forward_pass` (``distribution``: add the
    backward pass for the pmf; ``bar``: the caller's progress bar, with its ``pmf``
    steps, :func:`~yahtzee_sim.exact.exact_costs.exact_bar`)."""
    t0 = time.perf_counter() if t0 is None else t0
    pmf = backward_law(rules, levels, progress, bar=bar) if distribution else None
    return _result(strategy, rules, stats, pmf, t0, {"total_probability": stats.total})


def _result(
    strategy, rules: RuleSet, stats: ForwardStats, pmf, t0: float, meta: dict
) -> ExactResult:
    """An :class:`ExactResult` from forward statistics (``mean``, ``second``, per-box
    sums, ``stats``, ``n_states``) and the pmf."""
    mean = stats.mean
    var = max(stats.second - mean * mean, 0.0)
    return ExactResult(
        strategy=strategy_label(strategy),
        rules=rules,
        mean=mean,
        sd=float(np.sqrt(var)),
        pmf=pmf,
        box_means=stats.cat_sum,
        box_zero_rate=stats.cat_zero,
        box_fill_turn=stats.cat_turn,
        bonus_rate=float(stats.stats[0]),
        yahtzee_bonuses_mean=float(stats.stats[1]),
        n_states=stats.n_states,
        seconds=time.perf_counter() - t0,
        meta=meta,
    )


def _lane_result(strategy, rules: RuleSet, progress: bool, t0: float) -> ExactResult:
    """The :class:`ExactResult` of a need-lane strategy
    (:mod:`yahtzee_sim.exact.score_dependent`)."""
    from yahtzee_sim.exact.score_dependent import lane_law

    pmf, stats = lane_law(strategy, rules, progress)
    meta = {"total_probability": float(pmf.sum()), "score_augmented": True}
    return _result(strategy, rules, stats, pmf, t0, meta)


def _saved_result(strategy, rules: RuleSet, progress: bool, t0: float) -> ExactResult:
    """The moments-only :class:`ExactResult` of a game with saved rolls
    (:mod:`yahtzee_sim.exact.saved_moments`): mean and SD; the per-box and bonus
    statistics are NaN."""
    from yahtzee_sim.exact.saved_moments import saved_moments

    if hasattr(strategy, "lane_play"):
        raise ExactEvaluationError(
            f"score-dependent play is not evaluated exactly on games with saved rolls "
            f"({rules.name!r}); use simulate() instead"
        )
    got = saved_moments(strategy, rules, progress)
    nan = np.full(rules.n_boxes, np.nan)
    return ExactResult(
        strategy=strategy_label(strategy),
        rules=rules,
        mean=got.mean,
        sd=float(np.sqrt(max(got.second - got.mean * got.mean, 0.0))),
        pmf=None,
        box_means=nan,
        box_zero_rate=nan.copy(),
        box_fill_turn=nan.copy(),
        bonus_rate=float("nan"),
        yahtzee_bonuses_mean=float("nan"),
        n_states=got.n_states,
        seconds=time.perf_counter() - t0,
        meta={"saved_rolls": True},
    )


def exact_rules(rules: str | RuleSet, moments_only: bool = False) -> RuleSet:
    """``rules`` resolved and checked for exact evaluation: fixed rolls
    (:data:`EXACT_EVALUATION`) unless ``moments_only`` (games with saved rolls take the
    mean and SD only) and a size within reach (``moments_only``: for the streamed moments
    pass, which takes larger games)."""
    rules = get_rules(rules)
    if compact_states(rules):
        if moments_only:
            return rules
        raise ExactEvaluationError(
            f"the exact score law is not available for games with saved rolls "
            f"({rules.name!r}); their exact mean and SD are (distribution=False, "
            "--moments-only)"
        )
    EXACT_EVALUATION.check(rules, ExactEvaluationError)
    size = n_states(rules)
    if size > EXACT_STATE_LIMIT and not moments_only:
        raise ExactEvaluationError(
            f"the exact score law of {rules.name!r} is out of reach: its {size:,} states' "
            f"outcomes need about {size * LAW_BYTES_PER_STATE / 1e9:,.0f} GB of memory (the "
            f"law handles up to {EXACT_STATE_LIMIT:,} states); the exact mean and SD "
            f"(moments only) need {size * MOMENTS_BYTES_PER_STATE / 1e9:,.1f} GB"
        )
    return rules


def prepared(strategy, rules: str | RuleSet, moments_only: bool = False):
    """``(strategy, rules)`` resolved, checked for exact evaluation (:func:`exact_rules`)
    and prepared."""
    rules = exact_rules(rules, moments_only)
    strategy = _as_strategy(strategy)
    check_evaluable(strategy)
    prepare(strategy, rules)
    return strategy, rules
