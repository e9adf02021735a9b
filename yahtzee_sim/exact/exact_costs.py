"""The work of an exact evaluation, level by level, which weighs its progress bar.

The forward pass asks the strategy's decisions at every roll of each level's reached
states and turns them into outcomes; the backward pass folds the laws of the points to
come, fullest level first. Each level of either pass weighs its encoded states
(:func:`level_sizes`: the states with that many boxes filled, reached or not).
"""

from __future__ import annotations

from collections.abc import Mapping
from math import comb

from yahtzee_sim.engine.weighted_bar import WeightedBar
from yahtzee_sim.game.rules import RuleSet

__all__ = ["exact_bar", "level_sizes"]


def level_sizes(rules: RuleSet) -> list[int]:
    """The encoded states of each level of ``rules`` (boxes filled: 0, 1, ...): the
    used-masks of that many boxes times the upper totals and Yahtzee flags."""
    per_mask = (rules.upper_cap + 1) * rules.flag_size
    return [comb(rules.n_boxes, k) * per_mask for k in range(rules.n_boxes)]


def exact_bar(
    rules: RuleSet,
    progress: bool,
    *,
    forward: bool = True,
    law: bool = False,
    before: Mapping[str, float] | None = None,
    **options,
) -> WeightedBar:
    """The bar of an exact evaluation on ``rules``: the steps ``before`` (name → work: a
    caller's own, such as the value table's solve in widget lanes, one per state); with
    ``forward``, ``"forward k"`` per level; with ``law``, ``"pmf k"`` per level (the
    backward pass); each level weighed by its encoded states (:func:`level_sizes`);
    ``options`` go to tqdm."""
    states = level_sizes(rules)
    weights = dict(before or {})
    if forward:
        weights |= {f"forward {k}": n for k, n in enumerate(states)}
    if law:
        weights |= {f"pmf {k}": n for k, n in enumerate(states)}
    options.setdefault("desc", "exact")
    return WeightedBar(weights, dict.fromkeys(weights, 1), disable=not progress, **options)
