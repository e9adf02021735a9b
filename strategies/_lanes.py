"""Shared play of score-dependent table strategies (target score, any utility).

Their decisions come from a need-lane table (:mod:`yahtzee_sim._kernels.widget`): at
a turn-start state, the lane is set by the points so far. One recorded one-lane
widget run gives the decisions at every roll of the turn, so they are computed once
per turn for each distinct (state, lane) among the games, at the turn's first
decision, and read back at the later ones. Positions outside their state's row — the
goal reached or out of reach, every move worth the same — are played max-EV.
"""

from __future__ import annotations

import threading

import numpy as np

from yahtzee_sim._kernels.batched import group_by_boxes, need_lane_decisions
from yahtzee_sim._kernels.play import kernel_rules
from yahtzee_sim._kernels.widget import given_lanes, live_lanes
from yahtzee_sim.view import TurnView

from .base import Strategy
from .optimal import Optimal


class LaneStrategy(Strategy):
    """Base of strategies played from a need-lane table: the lane of ``score`` points so
    far is ``anchor - score``. Subclasses set ``self._lanes`` (widget lanes) and
    ``self._anchor`` in :meth:`prepare` and call :meth:`_prepare_fallback`."""

    uses_total = True  # decisions depend on the points so far
    parallel_backend = "threads"  # one shared table; the kernels release the GIL
    abstract = True

    def __getstate__(self):
        """Parameters only: a worker that unpickles the strategy prepares it again (from
        the disk cache), rather than receiving GBs of table and a thread-local stash."""
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def lane_play(self, rules):
        """``(lanes, anchor)``: what the exact evaluator needs to replay the strategy
        (:func:`yahtzee_sim.exact.evaluate`)."""
        self.prepare(rules)
        return self._lanes, self._anchor

    def lane_of(self, view: TurnView) -> tuple[np.ndarray, np.ndarray]:
        """``(lane, live)`` per game of ``view`` (see ``lane_live``)."""
        lane = self._anchor - np.asarray(view.score, dtype=np.int64)
        states = np.ascontiguousarray(view.state_index, dtype=np.int64)
        return lane, live_lanes(self._lanes, states, lane)

    def _prepare_fallback(self, rules) -> None:
        self._optimal = Optimal()
        self._optimal.prepare(rules)
        self._turns = threading.local()

    def _turn_decisions(self, view: TurnView, rows: np.ndarray, lane: np.ndarray):
        """``(keep (u, layers, rolls), cat (u, rolls), which (m,))``: the decisions of the
        ``u`` distinct (state, lane) pairs among live games ``rows`` and each game's pair,
        computed at the turn's first decision and kept for its later ones (per pair, not
        per game: a block's games would copy hundreds of MB per turn)."""
        key = (
            view.turn,
            view.games[rows].tobytes(),
            lane.tobytes(),
            view.state_index[rows].tobytes(),
        )
        stash = getattr(self._turns, "stash", None)
        if stash is not None and stash[0] == key:
            return stash[1], stash[2], stash[3]
        rules = view.rules
        states = view.state_index[rows]
        pair = states.astype(np.int64) * (1 << 20) + (lane - lane.min())
        uniq, first_row, inverse = np.unique(pair, return_index=True, return_inverse=True)
        n = len(uniq)
        keep = np.empty((n, max(rules.rolls_per_turn - 1, 1), rules.tables.n_rolls), np.int64)
        cat = np.empty((n, rules.tables.n_rolls), dtype=np.int64)
        pick = rows[first_row]
        states = np.ascontiguousarray(view.state_index[pick], dtype=np.int64)
        order, group_ptr = group_by_boxes(states, rules.upper_cap)  # pairs as widget lanes
        need_lane_decisions(
            kernel_rules(rules),
            self._lanes,
            given_lanes(),
            order,
            group_ptr,
            np.ascontiguousarray(view.used[pick], dtype=np.int64),
            np.ascontiguousarray(view.upper[pick], dtype=np.int64),
            np.ascontiguousarray(view.flag[pick], dtype=np.int64),
            np.ascontiguousarray(lane[first_row], dtype=np.int64),
            keep,
            cat,
        )
        self._turns.stash = (key, keep, cat, inverse)
        return keep, cat, inverse

    def _decide(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        lane, live = self.lane_of(view)
        out = np.asarray(self._optimal._decide(view), dtype=np.int64).copy()
        if live.any():
            rows = np.flatnonzero(live)
            keep, cat, which = self._turn_decisions(view, rows, lane[rows])
            r = view.roll_index[rows]
            if view.rolls_left == 0:
                out[rows] = cat[which, r]
            else:
                out[rows] = keep[which, view.rolls_left - 1, r]
        return out

    def keep(self, view: TurnView) -> np.ndarray:
        return view.tables.keep_counts[self._decide(view)]

    def category(self, view: TurnView) -> np.ndarray:
        return self._decide(view)
