"""The exact evaluator's backward pass: the law of the points still to come, fullest level first.

From the :class:`~yahtzee_sim.exact.forward.LevelOutcomes` of the forward pass, the law of
the points still to come from every reached state, as arrays; the start state's law is
the pmf of the final score.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim._core.exact import pmf_level, support_top
from yahtzee_sim._kernels.memory import large_empty
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.exact.exact_costs import exact_bar
from yahtzee_sim.exact.forward import LevelOutcomes, unique_states
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import n_states


def backward_law(
    rules: RuleSet, levels: list[LevelOutcomes], progress: bool, all_rows: bool = False, bar=None
) -> np.ndarray:
    """The law of the points to come from the first level's first state (``all_rows``:
    from each of its states, one row per state), fullest level first. The progress bar
    (``bar``, an :func:`~yahtzee_sim.exact.exact_costs.exact_bar` the caller closes, or
    one of its own with ``progress``) advances by each level's states."""
    row_of = np.full(n_states(rules), -1, dtype=np.int64)
    final = unique_states(levels[-1].nxt, len(row_of))
    row_of[final] = np.arange(len(final))
    V_next = np.ones((len(final), 1))
    top_next = np.zeros(len(final), dtype=np.int64)
    own_bar = bar is None
    if own_bar:
        bar = exact_bar(rules, progress, forward=False, law=True, desc="pmf", leave=False)
    rows, tops = [], []  # each level's next rows and highest points to come, first
    for lv in reversed(levels):
        rows.append(row_of[lv.nxt])
        tops.append(support_top(lv.ptr, rows[-1], lv.pts, tops[-1] if tops else top_next))
        row_of[lv.states] = np.arange(len(lv.states))
    sizes = [len(top) * (int(top.max()) + 1) for top in tops]
    # two buffers in huge pages, used in turn by the levels' laws (a fresh array of
    # hundreds of MB per level costs a page fault per 4 KB)
    buffers = [large_empty(max(sizes[i::2], default=0)) for i in (0, 1)]
    for i, lv in enumerate(reversed(levels)):
        V = buffers[i % 2][: sizes[i]].reshape(len(lv.states), -1)
        pmf_level(lv.ptr, rows[i], lv.pts, lv.prob, V_next, top_next, V, get_threads())
        V_next, top_next = V, tops[i]
        bar.step(f"pmf {len(levels) - 1 - i}")
    if own_bar:
        bar.close()
    return V_next.copy() if all_rows else V_next[0].copy()
