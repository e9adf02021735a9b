"""What a strategy sees: a batched, read-only view of games at one decision point."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from yahtzee_sim._core.rng import uniforms
from yahtzee_sim._core.scoring import bonus_options, box_options, yahtzee_bonuses
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import bonus_payable, encode_state


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a).view()
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class MatchInfo:
    """What a player sees of the other players in a visible match (one row per game).

    Attributes
    ----------
    seat : int
        This player's seat (0 plays first in every round).
    n_players : int
        Players in the match, this one included.
    seats : ndarray (n_players - 1,) int64
        The opponents' seats, in seat order; the columns of the arrays below.
    turns : ndarray (n_players - 1,) int64
        Turns each opponent has played (opponents seated before this player have
        played this round's turn already).
    score : ndarray (m, n_players - 1) int64
        Each opponent's points so far, bonuses earned included (the final total once
        they have played every turn).
    used, upper_total, flag : ndarray (m, n_players - 1) int64
        Each opponent's filled boxes (bitmask), uncapped upper total and Yahtzee flag
        (as :class:`TurnView`'s).
    """

    seat: int
    n_players: int
    seats: np.ndarray
    turns: np.ndarray
    score: np.ndarray
    used: np.ndarray
    upper_total: np.ndarray
    flag: np.ndarray

    def take(self, rows) -> MatchInfo:
        """The same match information for the rows ``rows`` of the batch."""
        return MatchInfo(
            self.seat,
            self.n_players,
            self.seats,
            self.turns,
            self.score[rows],
            self.used[rows],
            self.upper_total[rows],
            self.flag[rows],
        )


class TurnView:
    """Read-only arrays (leading axis = games in this batch) at one decision.

    Attributes
    ----------
    rules : RuleSet
    games : ndarray (m,) int64
        Global game indices (stable across chunking and jobs).
    dice : ndarray (m, n_faces) int8
        Face counts of the current roll (index 0 = face 1).
    roll_index : ndarray (m,) int32
        Index of the current roll in ``rules.tables``.
    rolls_left : int
        Rerolls still allowed this turn (0 = choose a box now). In games with saved
        rolls a turn has ``rolls_per_turn`` plus the rolls saved before it, and keeping
        every die ends the rolling: the rolls left are saved (up to the cap).
    turn : int
        0-based turn number.
    used : ndarray (m,) int64
        Bitmask of filled boxes.
    upper : ndarray (m,) int64
        Upper-section total capped at the bonus threshold (the state's value).
    upper_total : ndarray (m,) int64
        Uncapped upper-section total.
    flag : ndarray (m,) int64
        0 unless the Yahtzee box holds its full points; then 1 (extra Yahtzees earn the
        bonus), or ``1 + k`` after ``k`` bonuses under rules that limit them
        (see :attr:`yahtzee_bonus_open`).
    score : ndarray (m,) int64
        Points so far, bonuses earned so far included (the upper bonus counts once reached).
    box_scores : ndarray (m, n_boxes) int16
        Points written in each box so far (0 for open boxes).
    active : ndarray (m,) bool
        Games that have this decision to make. At a keep decision, games that
        kept every die earlier in the turn have ended their turn: their row is
        still present (arrays keep one row per game of the batch) and whatever
        is returned for it is ignored. Always all True at a box decision.
    strategy_key : tuple of two uint64
        Key of the strategy's own random stream (see :meth:`uniform`).
    match : MatchInfo or None
        The opponents' score sheets in a visible match
        (:func:`yahtzee_sim.multiplayer.matches.play_matches`); ``None`` in solitaire and blind
        games. See also :attr:`n_players`, :attr:`seat`.
    saved_rolls : ndarray (m,) int64
        At a box decision: the rolls the turn leaves unused, which the next turn gets
        (games with saved rolls; 0 elsewhere).
    """

    def __init__(
        self,
        rules: RuleSet,
        games: np.ndarray,
        dice: np.ndarray,
        roll_index: np.ndarray,
        rolls_left: int,
        turn: int,
        used: np.ndarray,
        upper_total: np.ndarray,
        flag: np.ndarray,
        score: np.ndarray,
        box_scores: np.ndarray,
        strategy_key: tuple = (np.uint64(1), np.uint64(2)),
        active: np.ndarray | None = None,
        match: MatchInfo | None = None,
        saved_rolls: np.ndarray | None = None,
    ) -> None:
        self.rules = rules
        self.games = _readonly(games)
        self.dice = _readonly(dice)
        self.roll_index = _readonly(roll_index)
        self.rolls_left = int(rolls_left)
        self.turn = int(turn)
        self.used = _readonly(used)
        self.upper_total = _readonly(upper_total)
        self.flag = _readonly(flag)
        self.score = _readonly(score)
        self.box_scores = _readonly(box_scores)
        self.strategy_key = strategy_key
        self.active = _readonly(np.ones(len(games), dtype=np.bool_) if active is None else active)
        self.match = match
        self.saved_rolls = _readonly(
            np.zeros(len(games), dtype=np.int64) if saved_rolls is None else saved_rolls
        )

    @property
    def n_players(self) -> int:
        """Players in the match (1 in solitaire and blind games, whose score sheets are hidden)."""
        return 1 if self.match is None else self.match.n_players

    @property
    def seat(self) -> int:
        """This player's seat in a visible match (0 in solitaire and blind games)."""
        return 0 if self.match is None else self.match.seat

    def __len__(self) -> int:
        return len(self.games)

    @property
    def tables(self):
        """The rule set's :class:`~yahtzee_sim.game.dice.DiceTables`."""
        return self.rules.tables

    @cached_property
    def upper(self) -> np.ndarray:
        """Upper-section total capped at the bonus threshold (the state's value)."""
        return _readonly(np.minimum(self.upper_total, self.rules.upper_cap))

    @cached_property
    def state_index(self) -> np.ndarray:
        """Turn-start state of each game in the shared encoding (:mod:`yahtzee_sim.game.state`)."""
        return _readonly(encode_state(self.rules, self.used, self.upper_total, self.flag))

    @cached_property
    def box_points(self) -> np.ndarray:
        """``(m, n_boxes)`` int16: points each box would get now, -1 where illegal.

        Joker rules are applied; bonuses are not included (see :meth:`bonus_points`).
        """
        kr = kernel_rules(self.rules)
        return _readonly(box_options(kr, self.roll_index, self.used, self.flag))

    @property
    def legal_boxes(self) -> np.ndarray:
        """``(m, n_boxes)`` bool: the boxes the current roll may be written in."""
        return self.box_points >= 0

    def bonus_points(self) -> np.ndarray:
        """``(m, n_boxes)``: bonuses earned by choosing each box now.

        The upper bonus if this box makes the upper total reach the threshold,
        plus the Yahtzee bonus (the same for every box).
        """
        kr = kernel_rules(self.rules)
        return bonus_options(kr, self.roll_index, self.used, self.upper, self.flag, self.box_points)

    @cached_property
    def yahtzee_bonus_open(self) -> np.ndarray:
        """``(m,)`` bool: a Yahtzee rolled now would earn the Yahtzee bonus (the box holds
        its full points and the rules' bonus limit is not reached)."""
        return _readonly(bonus_payable(self.rules, self.flag))

    def yahtzee_bonus_points(self) -> np.ndarray:
        """``(m,)``: the Yahtzee bonus the current roll earns, whatever box it goes in."""
        kr = kernel_rules(self.rules)
        return yahtzee_bonuses(kr, self.roll_index, self.used, self.flag)

    def counter_base(self, stream: int = 0) -> int:
        """First counter of ``stream`` at this decision (for kernels drawing their own
        uniforms with ``to_unit(word(...))`` of :mod:`yahtzee_sim._core.rng`; 64 per stream)."""
        if not 0 <= stream < 16:
            raise ValueError(f"stream must be in 0..15, got {stream}")
        return ((self.turn * 16 + self.rolls_left) * 16 + stream) * 64

    def uniform(self, k: int, stream: int = 0) -> np.ndarray:
        """``(m, k)`` uniforms in [0, 1) from the strategy's own random stream.

        Draws are a pure function of (seed, game, turn, rolls left, ``stream``,
        column), independent of the dice and of chunking. Use different
        ``stream`` numbers (0..15) for independent draws at one decision.
        """
        if not 0 < k <= 64:
            raise ValueError(f"k must be in 1..64, got {k}")
        base = self.counter_base(stream)
        k0, k1 = self.strategy_key
        return uniforms(k0, k1, self.games, base, int(k))
