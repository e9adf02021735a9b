"""Greedy strategy of "Simulating Yahtzee" ("Simulating Yahtzee", §IV.c).

* **Keep:** among the sub-multisets of the dice, keep the one that maximizes the
  expected best immediate gain of the *next* roll (one roll of look-ahead, as in
  the paper), where a roll's gain is its best box: points + the upper bonus if
  that box makes the upper total reach the threshold + the Yahtzee bonus.
  Ties (within 1e-9) go to the keep with more dice, so a made hand is kept.
  The Yahtzee bonus is left out of keep values by default (see below).
* **Box:** the legal box with the highest immediate gain; ties go to the
  box listed first in ``tie_break`` (default: Four of a kind, then score-sheet
  order, so a forced zero goes in Ones first).

The paper leaves the tie-breaks and the treatment of the Yahtzee bonus open;
the defaults are the choices whose per-box means, zero rates and fill
turns come closest to the paper's Tables 8-10 (the strategies guide,
``docs/guide/strategies.md``, "How the built-ins read their sources").

"Simulating Yahtzee", Table 2: 214.37 ± 39.64 over 100,000 games on official rules.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.decision_cache import StateCache
from yahtzee_sim.engine.strategy import AGREEMENT_POINTS, Reference, Strategy
from yahtzee_sim.engine.summary import box_statistics
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.exact.decision_tables import tables_from_positions
from yahtzee_sim.strategies._yahtzee_boxes import YAHTZEE_BOXES
from yahtzee_sim.strategies.greedy_kernels import greedy_fill_positions, greedy_fill_states

#: Boxes preferred on equal gains, before the rest in score-sheet order.
DEFAULT_TIE_BREAK = ("four_of_a_kind",)


#: "Simulating Yahtzee" Tables 8-10, greedy column (its Yahtzee row includes the bonus;
#: its Large straight zero row repeats the Small straight one).
SIMULATING_YAHTZEE_TABLES = {
    **box_statistics(  # means, zero rates, fill turns
        YAHTZEE_BOXES,
        (1.66, 4.24, 6.66, 8.81, 11.05, 12.57, 22.85, 17.46, 23.69, 29.98, 36.23, 16.30, 21.74),
        (0.217, 0.031, 0.007, 0.002, 0.0, 0.0, 0.001, 0.158, 0.052, 0.001, 0.001, 0.718, 0.0),
        (11.41, 10.28, 8.97, 7.75, 6.84, 5.88, 3.83, 7.42, 6.12, 2.89, 5.64, 11.56, 2.42),
    ),
    "upper_bonus_points": 1.14,
    "yahtzee_bonus_points": 2.20,
}


class Greedy(Strategy):
    """ "Simulating Yahtzee"'s greedy strategy (one-roll look-ahead, immediate-gain scoring).

    Parameters
    ----------
    tie_break : tuple of str, optional
        Box names in order of preference for equal gains; boxes not
        listed follow in score-sheet order. Default (``None``):
        :data:`DEFAULT_TIE_BREAK` (Four of a kind before the rest), which
        reproduces "Simulating Yahtzee"'s box statistics best.
    yahtzee_bonus_in_value : bool
        Count the Yahtzee bonus in a roll's gain when choosing keeps (default
        False: "Simulating Yahtzee"'s figures match the strategy that ignores it).
    """

    references = (
        Reference(
            '"Simulating Yahtzee", Table 2',
            "yahtzee-single-bonus",
            mean=214.37,
            sd=39.64,
            n_games=100_000,
            stats={"bonus_rate": 0.033},
            tolerance=AGREEMENT_POINTS,
            note="on the paper's engine rules (one Yahtzee bonus, no joker); the paper does "
            "not give every tie rule (the strategies guide says which ours follows)",
            tables=SIMULATING_YAHTZEE_TABLES,
        ),
    )

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
        names = rules.box_names
        tie_break = self.tie_break
        if tie_break is None:
            tie_break = tuple(n for n in DEFAULT_TIE_BREAK if n in names)
        for name in tie_break:
            if name not in names:
                raise StrategyError(
                    f"greedy: tie_break box {name!r} is not one of: {', '.join(names)}"
                )
        order = [names.index(n) for n in tie_break]
        order += [i for i in range(len(names)) if i not in order]
        self._order = np.array(order, dtype=np.int64)
        n_rolls = rules.tables.n_rolls
        self._cache = StateCache(
            rules,
            {"keep": ((1, n_rolls), np.int16), "cat": ((1, n_rolls), np.int8)},
            capacity=4096,
        )

    def _fill(self, c: StateCache, used, upper, flag, slots) -> None:
        self._fill_into(
            c.rules, used, upper, flag, slots, c.arrays["keep"][:, 0], c.arrays["cat"][:, 0]
        )

    def _fill_into(self, rules, used, upper, flag, slots, keep, cat) -> None:
        """Greedy keep and box of every roll of each state, into rows ``slots``."""
        greedy_fill_states(
            kernel_rules(rules),
            self._order,
            self.yahtzee_bonus_in_value,
            np.ascontiguousarray(used, dtype=np.int64),
            np.ascontiguousarray(upper, dtype=np.int64),
            np.ascontiguousarray(flag, dtype=np.int64),
            np.ascontiguousarray(slots, dtype=np.int64),
            keep,
            cat,
            get_threads(),
        )

    def decision_table(self, rules, states: np.ndarray):
        """Decisions at every roll of ``states`` for exact evaluation (the batched
        protocol of :func:`yahtzee_sim.exact.laws.decision_tables`): greedy keeps the same
        dice whatever the rerolls left."""
        self.prepare(rules)
        # the states of one used-mask and flag are next to each other in the encoding:
        # their runs share the legal points and, away from the upper bonus, the tables
        return tables_from_positions(
            rules, states, lambda pos, keep, cat: self._fill_positions_into(rules, pos, keep, cat)
        )

    def saved_decision_table(self, rules, positions: np.ndarray, n_layers: int, n_banks: int):
        """Decisions at every roll of positions ``(used, upper, flag)`` of a game with saved
        rolls, for its exact moments (the protocol of
        :func:`yahtzee_sim.exact.saved_moments.position_decisions`): ``keep[i, j - 1, r]``
        for ``j = 1 .. n_layers`` rerolls left and ``cat[i, b, r]`` for ``b = 0 ..
        n_banks - 1`` rolls saved. Greedy reads neither: one row serves every layer and
        every bank (arrays ``(n, 1, n_rolls)``)."""
        self.prepare(rules)
        return self._fill_positions(rules, positions)

    def _fill_positions(self, rules, positions) -> tuple[np.ndarray, np.ndarray]:
        """``(keep, cat)`` of shape ``(n, 1, n_rolls)`` at positions ``(used, upper, flag)``,
        one run of a used-mask and flag at a time (:func:`greedy_fill_positions`)."""
        pos = np.ascontiguousarray(positions, dtype=np.int64)
        n, n_rolls = len(pos), rules.tables.n_rolls
        keep = np.empty((n, 1, n_rolls), dtype=np.int16)
        cat = np.empty((n, 1, n_rolls), dtype=np.int8)
        self._fill_positions_into(rules, pos, keep, cat)
        return keep, cat

    def _fill_positions_into(self, rules, pos, keep, cat) -> None:
        greedy_fill_positions(
            kernel_rules(rules),
            self._order,
            self.yahtzee_bonus_in_value,
            pos,
            keep,
            cat,
            get_threads(),
        )

    def _lookup(self, view: TurnView, table: str) -> np.ndarray:
        self.prepare(view.rules)
        c = self._cache
        states = view.state_index
        c.fill_missing(states, self._fill)
        return c.gather(states, view.roll_index, table, 0)

    def keep(self, view: TurnView) -> np.ndarray:
        return view.tables.keep_counts[self._lookup(view, "keep")]

    def box(self, view: TurnView) -> np.ndarray:
        return self._lookup(view, "cat")
