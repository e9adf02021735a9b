"""The optimal (max-expectation) strategy: decisions read off the solved value table.

Source: Glenn 2006 §5 (backward induction over the widget); Verhoeff 1999.
At each decision every option is valued from the table — a box: its points +
bonuses + the value of the next state; a keep: the expected value over the
rerolls — and the best is played. Ties: the first box in score-sheet order; the
keep with more dice, then the one that rerolls the lowest faces.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim._kernels.lanes import compact_upper_lanes, upper_total_lanes
from yahtzee_sim.engine.decision_cache import StateCache
from yahtzee_sim.engine.strategy import Capabilities, Reference, Strategy
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.exact.laws import EXACT_EVALUATION
from yahtzee_sim.game.state import compact_states, state_layout
from yahtzee_sim.solving.solver import fill_decisions, max_ev_decisions, value_table

#: Memory of a table strategy's decision cache before it first grows: 426,000 states for
#: Yahtzee and Yatzy (1,260 bytes a state), 9,700 for Maxi Yatzy (55 kB). Zeroed arrays
#: take memory page by page as states are filled: only what is used is resident, and the
#: states 200,000 games reach are stored without a copy of the cache (a grow copies every
#: row: 0.3 GB at 200,000 Yatzy states).
INITIAL_CACHE_BYTES = 1 << 29


class TableStrategy(Strategy):
    """Plays one turn at a time optimally against a table ``E'(state)`` of the value of
    every turn-start state (Glenn 2006 §7): the optimal strategy uses the solved table,
    the heuristics cheaper estimates. Subclasses implement :meth:`state_values`.
    """

    parallel_backend = "threads"  # one shared decision cache; kernels release the GIL
    abstract = True  # a base class, not a registered strategy

    def state_values(self, rules) -> np.ndarray:
        """``E'`` for every encoded state of ``rules``."""
        raise NotImplementedError

    def lanes(self):
        """The widget lanes the decisions are read from (max-EV over upper totals)."""
        rules = self._cache.rules
        if compact_states(rules):  # games with saved rolls: the states that occur
            return compact_upper_lanes(self._values, state_layout(rules))
        return upper_total_lanes(self._values)

    def prepare(self, rules) -> None:
        cache = getattr(self, "_cache", None)
        if cache is not None and cache.rules == rules:
            return
        n_rolls = rules.tables.n_rolls
        self._values = np.ascontiguousarray(self.state_values(rules), dtype=np.float64)
        layers = max(rules.max_rolls - 1, 1)
        row_bytes = (2 * layers + rules.saved_size) * n_rolls  # one state's decisions
        self._cache = StateCache(
            rules,
            {"keep": ((layers, n_rolls), np.int16), "cat": ((rules.saved_size, n_rolls), np.int8)},
            capacity=max(INITIAL_CACHE_BYTES // row_bytes, 256),
        )

    def _decide(self, view: TurnView) -> np.ndarray:
        return self.decisions(
            view.rules, view.state_index, view.roll_index, view.rolls_left, view.saved_rolls
        )

    def decisions(self, rules, states, roll_index, rolls_left: int, saved_rolls=None):
        """The decision (keep index, or box with ``rolls_left == 0``) at roll ``roll_index[i]``
        of turn-start state ``states[i]`` — what :meth:`keep`/:meth:`box` play, for
        callers holding only some games of a view (score-dependent strategies' fallback).
        ``saved_rolls``: at a box decision, the rolls each game saves (games with saved
        rolls; the best box depends on them)."""
        self.prepare(rules)
        c = self._cache
        c.fill_missing(states, self._fill)
        if rolls_left:
            return c.gather(states, roll_index, "keep", rolls_left - 1)
        if rules.saved_size == 1 or saved_rolls is None:
            return c.gather(states, roll_index, "cat", 0)
        out = np.empty(len(states), dtype=np.int64)
        saved_rolls = np.asarray(saved_rolls)
        for saved in np.unique(saved_rolls):  # one pass per number of rolls saved
            rows = saved_rolls == saved
            out[rows] = c.gather(states[rows], roll_index[rows], "cat", saved)
        return out

    def _fill(self, c: StateCache, used, upper, flag, slots) -> None:
        """Decisions of the states ``(used, upper, flag)`` (sorted by index) into rows
        ``slots`` of the cache ``c``: one widget run per ``(used, flag)`` over their upper
        totals."""
        self._fill_rows(c.rules, used, upper, flag, slots, c.arrays["keep"], c.arrays["cat"])

    def _fill_rows(self, rules, used, upper, flag, rows, keep, cat) -> None:
        """Decisions of states sorted by index into ``keep[rows[i]]`` and ``cat[rows[i]]``
        (the serial kernel in threads: the states of a turn of games are few, and its
        first call compiles in seconds)."""
        fill_decisions(rules, self.lanes(), used, upper, flag, rows, keep, cat, parallel=False)

    def decision_table(self, rules, states: np.ndarray):
        """Decisions at every roll of ``states`` for exact evaluation (the batched
        protocol of :func:`yahtzee_sim.exact.laws.decision_tables`), computed for all upper
        totals of a ``(used, flag)`` pair at once."""
        self.prepare(rules)
        EXACT_EVALUATION.check(rules)
        return max_ev_decisions(rules, self.lanes(), states)

    def keep(self, view: TurnView) -> np.ndarray:
        return view.tables.keep_counts[self._decide(view)]

    def box(self, view: TurnView) -> np.ndarray:
        return self._decide(view)


#: Optimal play's mean points per box, as "Simulating Yahtzee" (Table 11) quotes Glenn.
GLENN_BOX_MEANS = {
    "box_means": {
        "ones": 1.88,
        "twos": 5.28,
        "threes": 8.57,
        "fours": 12.16,
        "fives": 15.69,
        "sixes": 19.19,
        "three_of_a_kind": 21.66,
        "four_of_a_kind": 13.1,
        "full_house": 22.59,
        "small_straight": 29.46,
        "large_straight": 32.71,
        "yahtzee": 16.87,
        "chance": 22.01,
    },
    "upper_bonus_points": 23.84,
    "yahtzee_bonus_points": 9.58,
}


class Optimal(TableStrategy):
    """Maximizes expected final score (Glenn 2006, Verhoeff 1999): table lookup."""

    # the value table; decisions depend on its own state only
    capabilities = Capabilities(solved_table=True, decision_key="state")

    references = (
        Reference(
            "Glenn 2006, Table 3",
            "yahtzee-free-joker",
            mean=254.59,
            sd=59.61,
            note='per-box means as "Simulating Yahtzee", Table 11 quotes them',
            tables=GLENN_BOX_MEANS,
        ),
        Reference("Verhoeff 1999", "yahtzee-free-joker", mean=254.5896095, tolerance=5e-8),
        Reference("independent public solvers", "yahtzee", mean=254.5877287, tolerance=5e-8),
        Reference(
            "independent public solvers", "yahtzee-no-joker", mean=253.9702412, tolerance=5e-8
        ),
        Reference("Glenn 2006", "yahtzee-no-bonus", mean=245.87),
        Reference("Tillius 2026", "yatzy", mean=248.4400, tolerance=5e-5),
        Reference("Tillius 2026, §6", "yatzy-kth2012", mean=248.63),
        Reference("Tillius 2026, §3.3", "yatzy-no-bonus", mean=211.1487, tolerance=5e-5),
        Reference("Tillius 2026, §3.1", "2-yatzy", mean=5.0, tolerance=1e-12),
    )

    def __init__(self) -> None:
        pass

    def state_values(self, rules) -> np.ndarray:
        return value_table(rules).values
