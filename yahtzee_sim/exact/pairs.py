"""Exact P(win) of two deterministic strategies in a visible two-player match.

A forward pass over the joint positions: the law of (mover's state and points,
waiter's state and points) at every turn start, pushed through each turn by the
mover's own decisions — asked of the strategy through the same batched
:class:`~yahtzee_sim.engine.view.TurnView` it gets in a match, with the opponent's score sheet in
:class:`~yahtzee_sim.engine.view.MatchInfo` — until both score sheets are full. The result is exact
(no sampling), so a heuristic's distance from the two-player optimum
(:func:`yahtzee_sim.multiplayer.duel.solve_duel`) is a number.

A strategy is asked once per distinct *decision key*: by default the one its family
declares (``capabilities.decision_key``, :data:`~yahtzee_sim.engine.strategy.DECISION_KEYS`),
else the whole position; ``modes`` may say that its decisions depend on less
(``"state"``: its own state, as max-EV play; ``"own"``: its own state and points, as
blind P(win) play; ``"match"``: both states and the score difference, as win-aware play),
which only saves work. Views show the upper total capped at the bonus threshold (the
state's) and the boxes' contents as far as the state determines them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.engine.strategy import DECISION_KEYS, capabilities_of
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.view import MatchInfo, TurnView
from yahtzee_sim.errors import PairError
from yahtzee_sim.exact.decision_tables import (
    box_indices,
    decision_tables,
    keep_indices,
    table_method,
)
from yahtzee_sim.exact.forward import level_outcomes
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import decode_state, known_box_scores, n_states
from yahtzee_sim.solving.target import max_score

#: The decision keys a seat may be given.
MODES = DECISION_KEYS
_KEYS_PER_CALL = 1 << 14


@dataclass
class PairValue:
    """Exact result of :func:`evaluate_pair`."""

    rules: str
    strategies: list
    p_win: list  # per seat, ties split
    p_tie: float
    positions: int  # joint positions visited
    decisions: int  # decision tables asked of the strategies
    seconds: float

    def to_dict(self) -> dict:
        """JSON-ready."""
        return dict(self.__dict__)


class _Fixed:
    """A decision-table provider replaying precomputed tables, in order (lets
    :func:`~yahtzee_sim.exact.forward.level_outcomes` take decisions made elsewhere)."""

    def __init__(self, keep: np.ndarray, cat: np.ndarray) -> None:
        self.keep, self.cat, self.at = keep, cat, 0

    def decision_table(self, rules, states):
        lo, self.at = self.at, self.at + len(states)
        return self.keep[lo : self.at], self.cat[lo : self.at]


def _mode(strategy, given) -> str:
    """``given``, or the decision key a registered strategy's class declares (not a
    subclass's: it may decide on more)."""
    if given is not None:
        if given not in MODES:
            raise PairError(f"mode must be one of {MODES}, got {given!r}")
        return given
    cls = type(strategy)
    registered = "version" in vars(cls)
    return capabilities_of(strategy).decision_key if registered else "full"


class _Asker:
    """Asks one strategy for its decision tables at joint positions of one stage."""

    def __init__(self, strategy, rules: RuleSet, seat: int, level: int, wait_level: int):
        self.strategy, self.rules, self.seat = strategy, rules, seat
        self.level, self.wait_level = level, wait_level
        self.next_game = 0

    def tables(self, sm, scm, sw, scw):
        """``(keep, cat)`` decision tables of the mover at each position (as
        :func:`~yahtzee_sim.exact.decision_tables.decision_tables`)."""
        rules = self.rules
        fast = table_method(self.strategy)
        if fast is not None and not capabilities_of(self.strategy).uses_total:
            states, inv = np.unique(sm, return_inverse=True)  # tables take distinct states
            keep, cat = decision_tables(self.strategy, rules, states, self.level)
            return keep[inv.reshape(-1)], cat[inv.reshape(-1)]
        t = rules.tables
        n = len(sm)
        layers = max(rules.rolls_per_turn - 1, 1)
        keep = np.zeros((n, layers, t.n_rolls), dtype=np.int16)
        cat = np.empty((n, t.n_rolls), dtype=np.int8)
        for lo in range(0, n, _KEYS_PER_CALL):
            rows = slice(lo, min(n, lo + _KEYS_PER_CALL))
            make = self._views(sm[rows], scm[rows], sw[rows], scw[rows])
            for r in range(t.n_rolls):
                for j in range(rules.rolls_per_turn - 1, 0, -1):
                    view = make(j, r)
                    keep[rows, j - 1, r] = keep_indices(
                        self.strategy, rules, view, self.strategy.keep(view)
                    )
                view = make(0, r)
                cat[rows, r] = box_indices(self.strategy, rules, view, self.strategy.box(view))
        return keep, cat

    def _views(self, sm, scm, sw, scw):
        rules = self.rules
        t = rules.tables
        m = len(sm)
        used, upper, flag = decode_state(rules, sm)
        o_used, o_upper, o_flag = decode_state(rules, sw)
        games = np.arange(self.next_game, self.next_game + m, dtype=np.int64)
        self.next_game += m
        boxes = known_box_scores(rules, flag)
        match = MatchInfo(
            seat=self.seat,
            n_players=2,
            seats=np.array([1 - self.seat], dtype=np.int64),
            turns=np.array([self.wait_level], dtype=np.int64),
            score=np.asarray(scw, dtype=np.int64)[:, None],
            used=o_used[:, None],
            upper_total=o_upper[:, None],
            flag=o_flag[:, None],
        )
        score = np.asarray(scm, dtype=np.int64)

        def make(rolls_left: int, roll: int) -> TurnView:
            r = np.full(m, roll, dtype=np.int32)
            dice = np.broadcast_to(t.roll_counts[roll], (m, rules.n_faces))
            return TurnView(
                rules, games, dice, r, rolls_left, self.level, used, upper, flag, score, boxes,
                match=match,
            )  # fmt: skip

        return make


def _keys(mode: str, sm, scm, sw, scw, size: int, n_s: int):
    """Decision key of each position (int64)."""
    if mode == "state":
        return sm.copy()
    if mode == "own":
        return sm * size + scm
    if mode == "match":
        return (sm * n_s + sw) * (2 * size) + (scm - scw + size)
    return ((sm * size + scm) * n_s + sw) * size + scw


def evaluate_pair(
    rules: str | RuleSet, strategies, modes=(None, None), progress: bool = False
) -> PairValue:
    """Exact P(win) of ``strategies[0]`` (seat 0, moves first) against ``strategies[1]``
    in a visible two-player match, from empty score sheets.

    Parameters
    ----------
    rules : str or RuleSet
    strategies : pair of str or Strategy
        Registry ids or instances; each must decide deterministically.
    modes : pair
        Per seat, what its decisions depend on (:data:`MODES`; ``None``: the decision key
        its family declares, ``capabilities.decision_key``). A wrong mode gives a wrong
        answer: when unsure, ``"full"``.

    Returns
    -------
    PairValue
        ``p_win[seat]`` with ties split, and P(tie).
    """

    t0 = time.perf_counter()
    rules = get_rules(rules)
    if len(strategies) != 2 or len(modes) != 2:
        raise PairError("give two strategies and two modes (seat 0, seat 1)")
    players = [get_strategy(s) if isinstance(s, str) else s for s in strategies]
    for p in players:
        p.prepare(rules)
    kinds = [_mode(p, m) for p, m in zip(players, modes, strict=True)]
    size = max_score(rules) + 1
    n_s = n_states(rules)
    if (n_s * size) ** 2 >= 2**62:
        raise PairError(f"rules {rules.name!r} are too large for exact pair evaluation")
    C = rules.n_boxes
    # positions: mover (state, points), waiter (state, points), probability
    sm = np.zeros(1, np.int64)
    scm = np.zeros(1, np.int64)
    sw = np.zeros(1, np.int64)
    scw = np.zeros(1, np.int64)
    prob = np.ones(1)
    seat, level, asked, visited = 0, [0, 0], 0, 0
    while level[seat] < C:
        visited += len(sm)
        keys = _keys(kinds[seat], sm, scm, sw, scw, size, n_s)
        uniq, first, inv = np.unique(keys, return_index=True, return_inverse=True)
        asker = _Asker(players[seat], rules, seat, level[seat], level[1 - seat])
        keep, cat = asker.tables(sm[first], scm[first], sw[first], scw[first])
        asked += len(uniq)
        lv = level_outcomes(_Fixed(keep, cat), rules, sm[first], level[seat])
        n_out = np.diff(lv.ptr)[inv]
        rep = np.repeat(np.arange(len(sm)), n_out)
        e = lv.ptr[inv][rep] + (np.arange(len(rep)) - np.repeat(np.cumsum(n_out) - n_out, n_out))
        # the waiter moves next
        new = (sw[rep], scw[rep], lv.nxt[e], scm[rep] + lv.pts[e])
        p = prob[rep] * lv.prob[e]
        packed = ((new[0] * size + new[1]) * n_s + new[2]) * size + new[3]
        u, first2, inv2 = np.unique(packed, return_index=True, return_inverse=True)
        prob = np.bincount(inv2.reshape(-1), weights=p, minlength=len(u))
        sm, scm, sw, scw = (a[first2] for a in new)
        level[seat] += 1
        seat = 1 - seat
    # seat to move has a full card: both are full
    mine = np.where(seat == 0, scm, scw)
    theirs = np.where(seat == 0, scw, scm)
    win0 = float(prob @ (mine > theirs)) + 0.5 * float(prob @ (mine == theirs))
    names = [strategy_label(p) for p in players]
    return PairValue(
        rules.name,
        names,
        [win0, 1.0 - win0],
        float(prob @ (mine == theirs)),
        int(visited),
        int(asked),
        time.perf_counter() - t0,
    )
