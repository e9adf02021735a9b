"""Shared play of score-dependent table strategies (target score, any utility).

Their decisions come from a need-lane table (:mod:`yahtzee_sim._core.widget`): at
a turn-start state, the lane is set by the points so far. At a turn's first decision
the distinct (state, lane) pairs among the games run as the lanes of few widget calls
(:func:`yahtzee_sim._core.batched.need_lane_decisions`), which give the best keeps
at the games' first rolls and the decisions at every later roll of the turn, read back
at its later decisions. Positions outside their state's row — the goal reached or out
of reach, every move worth the same — are played max-EV.
"""

from __future__ import annotations

import threading

import numpy as np

from yahtzee_sim._core.batched import (
    decision_buffers,
    distinct,
    lane_order,
    need_lane_decisions,
    read_decisions,
    tile_rows,
)
from yahtzee_sim._core.need_lanes import live_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.strategy import Capabilities, Strategy
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.game.capabilities import FIXED_ROLLS
from yahtzee_sim.strategies.optimal import Optimal


def first_roll_with_rerolls(view: TurnView) -> bool:
    """Whether the view's games are at their turn's first roll with a reroll left: their
    keeps then come from their rolls (``first`` of :meth:`LaneStrategy._turn_decisions`)."""
    return view.rolls_left == view.rules.rolls_per_turn - 1 >= 1


class LaneStrategy(Strategy):
    """Base of strategies played from a need-lane table: the lane of ``score`` points so
    far is ``anchor - score``. Subclasses set ``self._lanes`` (widget lanes) and
    ``self._anchor`` in :meth:`prepare` and call :meth:`_prepare_fallback`."""

    # decisions depend on the points so far; a solved table of games without saved rolls
    capabilities = Capabilities(uses_total=True, solved_table=True, plays=FIXED_ROLLS)
    parallel_backend = "threads"  # one shared table; the kernels release the GIL
    abstract = True

    def __getstate__(self):
        """Parameters only: a worker that unpickles the strategy prepares it again (from
        the disk cache), rather than receiving GBs of table and a thread-local stash."""
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def lane_play(self, rules):
        """``(lanes, anchor)``: what the exact evaluator needs to replay the strategy
        (:func:`yahtzee_sim.exact.laws.evaluate`)."""
        self.prepare(rules)
        return self._lanes, self._anchor

    def _prepare_fallback(self, rules) -> None:
        self._optimal = Optimal()
        self._optimal.prepare(rules)
        self._turns = threading.local()

    def _turn_decisions(self, view: TurnView):
        """``(rows, keep, cat, which, first)``: the live games ``rows`` of the view, the
        decisions of the distinct (state, lane) pairs among them
        (:func:`~yahtzee_sim._core.batched.decision_buffers`) and each live game's row
        there — computed at the turn's first decision and kept for its later ones (per
        pair, not per game: a block's games would copy hundreds of MB per turn). At the
        first roll the live games' best keeps ``first`` come straight from their rolls
        (the buffers then hold the later rolls' decisions only); ``None`` otherwise."""
        key = (
            view.turn,
            view.games.tobytes(),
            view.state_index.tobytes(),
            np.asarray(view.score).tobytes(),
        )
        at_first_roll = first_roll_with_rerolls(view)
        stash = getattr(self._turns, "stash", None)
        if stash is not None and stash[0] == key:
            rolls, out = stash[1], stash[2]
            if not at_first_roll or (
                out[4] is not None and np.array_equal(rolls, view.roll_index[out[0]])
            ):
                return out
        rules = view.rules
        lane = self._anchor - np.asarray(view.score, dtype=np.int64)
        states = np.asarray(view.state_index, dtype=np.int64)
        pair = states * (1 << 20) + (lane - lane.min(initial=0))
        first_game, inverse = distinct(pair)
        # whether each pair is live: the table read once per pair, in state order
        live_pair = live_lanes(self._lanes, states[first_game], lane[first_game])
        rows = np.flatnonzero(live_pair[inverse])
        pick = first_game[live_pair]  # one game per live pair
        keep, cat = decision_buffers(self._turns, len(pick), rules)
        order = lane_order(states[pick])
        live_number = np.cumsum(live_pair) - 1  # pair -> its number among live pairs
        which = tile_rows(order)[live_number[inverse[rows]]]
        rolls = np.ascontiguousarray(view.roll_index[rows], dtype=np.int64)
        if at_first_roll:  # the live games' first rolls, grouped by output row
            by_row = np.argsort(which, kind="stable")
            first_ptr = np.zeros(len(pick) + 1, dtype=np.int64)
            np.cumsum(np.bincount(which, minlength=len(pick)), out=first_ptr[1:])
            first_roll = rolls[by_row]
        else:
            first_ptr, first_roll = np.zeros(0, dtype=np.int64), rolls[:0]
        first_keep = np.empty(len(first_roll), dtype=np.int64)
        need_lane_decisions(  # the pairs as the lanes of few widget calls
            kernel_rules(rules),
            self._lanes,
            order,
            np.ascontiguousarray(view.used[pick], dtype=np.int64),
            np.ascontiguousarray(view.upper[pick], dtype=np.int64),
            np.ascontiguousarray(view.flag[pick], dtype=np.int64),
            np.ascontiguousarray(lane[pick]),
            first_ptr,
            first_roll,
            keep,
            cat,
            first_keep,
            get_threads(),
        )
        first = None
        if at_first_roll:
            first = np.empty(len(rows), dtype=np.int64)
            first[by_row] = first_keep
        out = (rows, keep, cat, which, first)
        self._turns.stash = (key, rolls, out)
        return out

    def _decide(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        rows, keep, cat, which, first = self._turn_decisions(view)
        out = np.empty(len(view), dtype=np.int64)
        if first_roll_with_rerolls(view):
            out[rows] = first
        else:
            out[rows] = read_decisions(keep, cat, which, view.rolls_left, view.roll_index[rows])
        if len(rows) < len(out):  # the rest: every move worth the same, played max-EV
            dead = np.ones(len(out), dtype=bool)
            dead[rows] = False
            out[dead] = self._optimal.decisions(
                view.rules, view.state_index[dead], view.roll_index[dead], view.rolls_left
            )
        return out

    def keep(self, view: TurnView) -> np.ndarray:
        return view.tables.keep_counts[self._decide(view)]

    def box(self, view: TurnView) -> np.ndarray:
        return self._decide(view)
