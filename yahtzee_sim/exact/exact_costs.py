"""Expected seconds of an exact evaluation, level by level, so that its progress bar can
weigh each level by them (in the unit of
:data:`~yahtzee_sim.engine.compile_costs.COMPILE_SECONDS`).

The forward pass asks the strategy's decisions at every roll of each level's reached
states and turns them into outcomes; the backward pass folds the laws of the points to
come, fullest level first. A level's expected seconds are its encoded states
(:func:`level_sizes`: the states with that many boxes filled, reached or not) times the
seconds per encoded state of the pass: :data:`FORWARD_STATE_SECONDS` by how the strategy
gives its decisions (``"table"``: filled by the strategy, in a kernel; ``"batched"``:
asked of its ``keep`` and ``box`` a batch of views at a time), :data:`BACKWARD_STATE_SECONDS`
for the law. The first level of each pass also compiles its kernels when the numba cache
does not hold them (:func:`yahtzee_sim.engine.compile_costs.setup_seconds`).
"""

from __future__ import annotations

from collections.abc import Mapping
from math import comb

from yahtzee_sim.engine import compile_costs
from yahtzee_sim.engine.weighted_bar import WeightedBar
from yahtzee_sim.game.rules import RuleSet

__all__ = [
    "BACKWARD_KERNELS",
    "BACKWARD_STATE_SECONDS",
    "BATCHED_KERNELS",
    "FILL_COMPILE_SECONDS",
    "FORWARD_KERNELS",
    "FORWARD_STATE_SECONDS",
    "decisions_kind",
    "exact_bar",
    "forward_setup_seconds",
    "level_sizes",
]

_EXACT = "yahtzee_sim._kernels.exact"
_COMPILE = compile_costs.COMPILE_SECONDS
#: The forward pass's kernels and their compile seconds.
FORWARD_KERNELS = {
    kernel: _COMPILE[kernel]
    for kernel in (
        (_EXACT, "turn_outcomes"),
        (_EXACT, "compact_outcomes"),
        (_EXACT, "level_effects"),
        (_EXACT, "forward_level"),
    )
}
#: The kernels of a strategy asked through views (its answers turned into keep codes,
#: the boxes' points shown in the views).
BATCHED_KERNELS = {
    kernel: _COMPILE[kernel] for kernel in (("yahtzee_sim._kernels.scoring", "box_options"),)
}
#: Compile seconds of a strategy's own decision fill (``greedy``'s: 15.5 s), counted for
#: a strategy that fills its tables when the forward kernels are missing too (a first
#: run); its kernel is the strategy's, not known here.
FILL_COMPILE_SECONDS = 15.5
#: The backward pass's kernels and their compile seconds.
BACKWARD_KERNELS = {
    kernel: _COMPILE[kernel] for kernel in ((_EXACT, "support_top"), (_EXACT, "pmf_level"))
}
#: Seconds of the forward pass per encoded state, by :func:`decisions_kind` (in the unit
#: of :data:`~yahtzee_sim.engine.compile_costs.COMPILE_SECONDS`: the development machine's
#: CPU seconds; ``exact`` of ``greedy``, 4.5 s over Yahtzee's million states, and of a
#: Python strategy, 6.7 s).
FORWARD_STATE_SECONDS = {"table": 4.3e-6, "batched": 6.4e-6}
#: Seconds of the backward pass (the law) per encoded state (1.2 s over Yahtzee's).
BACKWARD_STATE_SECONDS = 1.15e-6


def decisions_kind(strategy) -> str:
    """``"table"`` when ``strategy`` fills its decision tables itself
    (``decision_table``), ``"batched"`` when it is asked through batches of views."""
    return "table" if getattr(strategy, "decision_table", None) is not None else "batched"


def level_sizes(rules: RuleSet) -> list[int]:
    """The encoded states of each level of ``rules`` (boxes filled: 0, 1, ...): the
    used-masks of that many boxes times the upper totals and Yahtzee flags."""
    per_mask = (rules.upper_cap + 1) * rules.flag_size
    return [comb(rules.n_boxes, k) * per_mask for k in range(rules.n_boxes)]


def forward_setup_seconds(kind: str, kernels: Mapping[tuple[str, str], float]) -> float:
    """Expected seconds of the forward pass's first calls: its kernels, ``kernels``, and
    by :func:`decisions_kind` the batched views' kernels or the strategy's own fill
    (compiled on a first run, loaded later)."""
    seconds = compile_costs.setup_seconds({**FORWARD_KERNELS, **kernels})
    if kind == "batched":
        return seconds + compile_costs.setup_seconds(BATCHED_KERNELS)
    first_run = compile_costs.kernel_missing(*next(iter(FORWARD_KERNELS))) is not False
    return seconds + FILL_COMPILE_SECONDS * (1.0 if first_run else compile_costs.LOAD_SHARE)


def exact_bar(
    strategy,
    rules: RuleSet,
    progress: bool,
    *,
    forward: bool = True,
    law: bool = False,
    before: Mapping[str, float] | None = None,
    per_state: float = 0.0,
    kernels: Mapping[tuple[str, str], float] | None = None,
    **options,
) -> WeightedBar:
    """The bar of an exact evaluation of ``strategy`` on ``rules``: the steps ``before``
    (name → expected seconds: a caller's own, such as the value table); with
    ``forward``, ``"setup"`` (the forward kernels and ``kernels``, compiled or loaded)
    and ``"forward k"`` per level; with ``law``, ``"pmf setup"`` and ``"pmf k"`` (the
    backward pass). ``per_state`` adds reference seconds per encoded state to each
    forward level (work done on the decisions, such as charging regret); ``options`` go
    to tqdm."""
    states = level_sizes(rules)
    weights = dict(before or {})
    if forward:
        kind = decisions_kind(strategy)
        per = FORWARD_STATE_SECONDS[kind] + per_state
        weights["setup"] = forward_setup_seconds(kind, kernels or {})
        weights |= {f"forward {k}": per * n for k, n in enumerate(states)}
    if law:
        weights["pmf setup"] = compile_costs.setup_seconds(BACKWARD_KERNELS)
        weights |= {f"pmf {k}": BACKWARD_STATE_SECONDS * n for k, n in enumerate(states)}
    options.setdefault("desc", "exact")
    return WeightedBar(weights, dict.fromkeys(weights, 1), disable=not progress, **options)
