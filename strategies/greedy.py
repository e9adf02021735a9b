"""Greedy strategy of "Simulating Yahtzee" (seed 002, §IV.c).

* **Keep:** among the sub-multisets of the dice, keep the one that maximizes the
  expected best immediate gain of the *next* roll (one roll of look-ahead, as in
  the paper), where a roll's gain is its best box: points + the upper bonus if
  that box makes the upper total reach the threshold + the Yahtzee bonus.
  Ties (within 1e-9) go to the keep with more dice, so a made hand is kept.
  The Yahtzee bonus is left out of keep values by default (see below).
* **Category:** the legal box with the highest immediate gain; ties go to the
  box listed first in ``tie_break`` (default: Four of a kind, then score-card
  order, so a forced zero goes in Ones first).

The paper leaves the tie-breaks and the treatment of the Yahtzee bonus open;
the defaults are the choices whose per-category means, zero rates and fill
turns come closest to the paper's Tables 8-10 (see the README).

Seed 002, Table 2: 214.37 ± 39.64 over 100,000 games on official rules.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim._kernels.decisions import gather_decisions
from yahtzee_sim._kernels.greedy import greedy_fill_states
from yahtzee_sim._kernels.play import kernel_rules
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.view import TurnView

from ._cache import StateCache
from .base import Strategy
from .registry import register

#: Categories preferred on equal gains, before the rest in score-card order.
DEFAULT_TIE_BREAK = ("four_of_a_kind",)


@register("greedy")
class Greedy(Strategy):
    """Seed 002's greedy strategy (one-roll look-ahead, immediate-gain scoring).

    Parameters
    ----------
    tie_break : tuple of str, optional
        Category names in order of preference for equal gains; categories not
        listed follow in score-card order. Default (``None``):
        :data:`DEFAULT_TIE_BREAK` (Four of a kind before the rest), which
        reproduces seed 002's category statistics best.
    yahtzee_bonus_in_value : bool
        Count the Yahtzee bonus in a roll's gain when choosing keeps (default
        False: seed 002's figures match the strategy that ignores it).
    """

    def __init__(
        self,
        tie_break: tuple[str, ...] | None = None,
        yahtzee_bonus_in_value: bool = False,
    ) -> None:
        self.tie_break = None if tie_break is None else tuple(tie_break)
        self.yahtzee_bonus_in_value = yahtzee_bonus_in_value

    parallel_backend = "threads"  # one shared decision cache; kernels release the GIL

    def prepare(self, rules) -> None:
        cache = getattr(self, "_cache", None)
        if cache is not None and cache.rules == rules:
            return
        names = rules.category_names
        tie_break = self.tie_break
        if tie_break is None:
            tie_break = tuple(n for n in DEFAULT_TIE_BREAK if n in names)
        for name in tie_break:
            if name not in names:
                raise StrategyError(
                    f"greedy: tie_break category {name!r} is not one of: {', '.join(names)}"
                )
        order = [names.index(n) for n in tie_break]
        order += [i for i in range(len(names)) if i not in order]
        self._order = np.array(order, dtype=np.int64)
        n_rolls = rules.tables.n_rolls
        self._cache = StateCache(
            rules, {"keep": ((1, n_rolls), np.int16), "cat": ((1, n_rolls), np.int8)},
            capacity=4096,
        )  # fmt: skip

    def _fill(self, used, upper, flag, slots) -> None:
        rules = self._cache.rules
        t = rules.tables
        greedy_fill_states(
            kernel_rules(rules), t.keep_roll_ptr, t.keep_roll_roll, t.keep_roll_prob,
            t.roll_keep_ptr, t.roll_keep_keep, t.keep_size, self._order,
            self.yahtzee_bonus_in_value, used, upper, flag, slots,
            self._cache.arrays["keep"][:, 0], self._cache.arrays["cat"][:, 0],
        )  # fmt: skip

    def _lookup(self, view: TurnView, table: str) -> np.ndarray:
        self.prepare(view.rules)
        c = self._cache
        states = view.state_index
        c.fill_missing(states, self._fill)
        return gather_decisions(c.slot, states, view.roll_index, c.arrays[table], 0)

    def keep(self, view: TurnView) -> np.ndarray:
        return view.tables.keep_counts[self._lookup(view, "keep")]

    def category(self, view: TurnView) -> np.ndarray:
        return self._lookup(view, "cat")
