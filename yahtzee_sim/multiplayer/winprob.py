"""Live win probability: who wins from here, for score sheets in the middle of a game.

:func:`win_probability_now` takes every player's score sheet (and the dice of the
player to move, when they are inside their turn) and returns each player's
probability of winning, ties split, if everyone plays max-EV from here — exact: each
player's final score is their points so far plus the exact law of their points to
come (:func:`yahtzee_sim.exact.future.future_law`), the laws are independent, and

    P(seat i wins) = sum_x P_i(x) * integral_0^1 prod_{j != i} (F_j(x - 1) + u p_j(x)) du,

the integral giving the expected share ``1 / (1 + k)`` of a ``k``-way tie (computed
exactly by Gauss-Legendre quadrature). With ``simulate=N``, the same position is also
played out ``N`` times in a visible match by ``strategy`` at every seat
(``win-aware`` by default), with 95% intervals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.errors import YahtzeeSimError, quoted
from yahtzee_sim.exact.future import future_law
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import encode_state
from yahtzee_sim.validation import Integer, check


class ScoreSheetError(YahtzeeSimError):
    """A score sheet the rules cannot produce, or score sheets that cannot occur in one match."""


@dataclass(frozen=True)
class ScoreSheet:
    """One player's filled boxes and Yahtzee bonuses.

    Build it with :meth:`parse` (``"ones=3, full_house=25, yahtzee=50,
    yahtzee_bonuses=1"``; ``""`` for an empty card) or directly.
    """

    rules: RuleSet
    boxes: dict = field(default_factory=dict)  # box name -> points written
    yahtzee_bonuses: int = 0

    @classmethod
    def parse(cls, text: str, rules: str | RuleSet = "yahtzee") -> ScoreSheet:
        """A card from ``"box=points, ..."`` (box names as ``yahtzee-sim rules`` lists
        them; ``yahtzee_bonuses=K`` for paid bonuses); one-line errors otherwise."""
        rules = get_rules(rules)
        boxes, bonuses = {}, 0
        for item in (p.strip() for p in str(text).split(",")):
            if not item:
                continue
            name, eq, value = (s.strip() for s in item.partition("="))
            if not eq or not re.fullmatch(r"-?[0-9]{1,6}", value):
                raise ScoreSheetError(
                    f"score sheet {quoted(text)}: {quoted(item)} is not box=points with whole "
                    "points (e.g. 'ones=3')"
                )
            if name == "yahtzee_bonuses":
                bonuses = int(value)
                continue
            if name in boxes:
                raise ScoreSheetError(
                    f"score sheet {quoted(text)}: box {quoted(name)} is given twice"
                )
            boxes[name] = int(value)
        card = cls(rules, boxes, bonuses)
        card.check()
        return card

    def check(self) -> None:
        """Raise :class:`ScoreSheetError` unless the rules can produce this card."""
        rules = self.rules
        names = rules.box_names
        table = rules.tables.score_table
        for name, pts in self.boxes.items():
            if name not in names:
                raise ScoreSheetError(
                    f"unknown box {quoted(name)}; the boxes of {rules.name!r} are: "
                    f"{', '.join(names)}"
                )
            c = names.index(name)
            possible = set(int(v) for v in table[:, c]) | {0}
            if pts not in possible:
                raise ScoreSheetError(
                    f"{name}={pts} is impossible under {rules.name!r}: the box can hold "
                    f"{', '.join(map(str, sorted(possible)))}"
                )
        k = self.yahtzee_bonuses
        if k:
            yi = rules.yahtzee_index
            full = rules.boxes[yi].points if yi is not None else None
            if not rules.yahtzee_bonus or self.boxes.get(names[yi]) != full:
                raise ScoreSheetError(
                    f"yahtzee_bonuses={k} needs Yahtzee bonuses in the rules and the Yahtzee "
                    f"box holding {full}"
                )
            limit = rules.yahtzee_bonus_limit
            if k < 0 or k > len(self.boxes) - 1 or (limit and k > limit):
                most = f" (the rules pay at most {limit})" if limit else ""
                raise ScoreSheetError(
                    f"yahtzee_bonuses={k} is impossible with {len(self.boxes)} boxes filled{most}"
                )

    @property
    def turns(self) -> int:
        """Turns played (boxes filled)."""
        return len(self.boxes)

    @property
    def used(self) -> int:
        """Bitmask of filled boxes."""
        names = self.rules.box_names
        return sum(1 << names.index(n) for n in self.boxes)

    @property
    def upper_total(self) -> int:
        """Uncapped upper-section total."""
        rules = self.rules
        return sum(p for n, p in self.boxes.items() if rules.upper_face[rules.box_index(n)] > 0)

    @property
    def flag(self) -> int:
        """The state's Yahtzee flag (:mod:`yahtzee_sim.game.state`)."""
        rules = self.rules
        yi = rules.yahtzee_index
        if not rules.has_yahtzee_flag or yi is None:
            return 0
        if self.boxes.get(rules.box_names[yi]) != rules.boxes[yi].points:
            return 0
        return 1 + (self.yahtzee_bonuses if rules.yahtzee_bonus_limit else 0)

    @property
    def score(self) -> int:
        """Points so far, the upper bonus (once reached) and Yahtzee bonuses included."""
        rules = self.rules
        up = rules.upper_bonus if self.upper_total >= rules.upper_bonus_threshold else 0
        return sum(self.boxes.values()) + up + self.yahtzee_bonuses * rules.yahtzee_bonus

    @property
    def state(self) -> int:
        """The turn-start state index."""
        return encode_state(self.rules, self.used, self.upper_total, self.flag)

    @property
    def finished(self) -> bool:
        """Every box filled."""
        return self.turns == self.rules.n_boxes


def to_move(cards: list[ScoreSheet]) -> int:
    """The seat whose turn it is (the first with the fewest boxes filled); a
    :class:`ScoreSheetError` if the cards cannot come from one game played in seat order."""
    turns = [c.turns for c in cards]
    t = min(turns)
    seat = turns.index(t)
    if t == cards[0].rules.n_boxes:
        return -1  # the game is over
    for j, n in enumerate(turns):
        want = t + 1 if j < seat else t
        if n != want:
            raise ScoreSheetError(
                f"seat {j} has {n} boxes filled, but with seat {seat} to play its turn "
                f"{t + 1} it must have {want} (seats play in order)"
            )
    return seat


def win_shares(pmfs: list[np.ndarray]) -> np.ndarray:
    """Each player's expected share of the win (ties split) for independent final-score
    laws ``pmfs`` (``pmf[x]`` = P(final = x))."""
    n = len(pmfs)
    size = max(len(p) for p in pmfs)
    P = np.zeros((n, size))
    for i, p in enumerate(pmfs):
        P[i, : len(p)] = p
    below = np.cumsum(P, axis=1) - P  # F_j(x - 1)
    u, w = np.polynomial.legendre.leggauss(max(n, 1))
    u, w = (u + 1) / 2, w / 2  # on [0, 1]
    out = np.zeros(n)
    for i in range(n):
        others = [j for j in range(n) if j != i]
        prod = np.ones((len(u), size))
        for j in others:
            prod *= below[j][None, :] + u[:, None] * P[j][None, :]
        out[i] = float(P[i] @ (w @ prod))
    return out


@dataclass
class WinProbability:
    """Result of :func:`win_probability_now`."""

    rules: str
    to_move: int
    scores: list[int]
    exact: list[float]
    expected_final: list[float]
    simulated: list[float] | None = None
    simulated_ci95: list[list[float]] | None = None
    games: int = 0
    strategy: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready."""
        return {k: v for k, v in self.__dict__.items() if v is not None}


def win_probability_now(
    cards,
    rules: str | RuleSet = "yahtzee",
    dice=None,
    rolls_left: int | None = None,
    simulate: int = 0,
    strategy: str = "win-aware",
    seed: int = 0,
    n_jobs: int = 1,
) -> WinProbability:
    """Each player's probability of winning from these score sheets.

    Parameters
    ----------
    cards : list of ScoreSheet or str
        One card per seat, in seat order (strings are parsed with :meth:`ScoreSheet.parse`).
    rules : str or RuleSet
    dice : iterable of int, optional
        Faces of the player to move, inside their turn (with ``rolls_left``).
    rolls_left : int, optional
        Rerolls left with ``dice`` (0: they must choose a box now).
    simulate : int
        Also play the position out this many times (turn-start positions only), every
        seat playing ``strategy`` in a visible match.
    """
    rules = get_rules(rules)
    cards = [c if isinstance(c, ScoreSheet) else ScoreSheet.parse(c, rules) for c in cards]
    if len(cards) < 2:
        raise ScoreSheetError(f"give at least two score sheets, got {len(cards)}")
    if any(c.rules != rules for c in cards):
        raise ScoreSheetError("every score sheet must be of the same rules")
    seat = to_move(cards)
    counts = None
    if dice is not None:
        if seat < 0:
            raise ScoreSheetError("dice were given, but every card is full: the game is over")
        counts = dice_counts(rules, dice, rolls_left)
    laws, memo = [], {}
    for i, c in enumerate(cards):
        if i == seat and counts is not None:
            law = future_law(rules, c.state, counts, rolls_left)
        else:
            if c.state not in memo:
                memo[c.state] = future_law(rules, c.state)
            law = memo[c.state]
        laws.append(np.concatenate([np.zeros(c.score), law]))
    exact = win_shares(laws).tolist()
    res = WinProbability(
        rules.name,
        seat,
        [c.score for c in cards],
        exact,
        [float(p @ np.arange(len(p))) for p in laws],
    )
    if simulate:
        if counts is not None:
            raise ScoreSheetError(
                "simulate: play-outs start at a turn start; leave out the dice to simulate"
            )
        _simulate(res, cards, rules, seat, simulate, strategy, seed, n_jobs)
    return res


def dice_counts(rules: RuleSet, dice, rolls_left) -> np.ndarray:
    """Face counts of ``dice`` (face values), checked against the rules and
    ``rolls_left``; a :class:`ScoreSheetError` otherwise."""
    try:
        faces = [int(d) for d in dice]
    except (TypeError, ValueError):
        raise ScoreSheetError(f"dice must be face values, got {dice!r}") from None
    if len(faces) != rules.n_dice or not all(1 <= f <= rules.n_faces for f in faces):
        raise ScoreSheetError(
            f"dice must be {rules.n_dice} faces in 1..{rules.n_faces}, got {faces}"
        )
    last = rules.rolls_per_turn - 1
    rerolls = Integer(0, last, description=f"in 0..{last} with dice")
    check("rolls_left", rolls_left, rerolls, ScoreSheetError)
    return rules.tables.counts_from_faces(faces)


def _simulate(res, cards, rules, seat, games, strategy, seed, n_jobs) -> None:
    from yahtzee_sim.multiplayer.matches import play_matches, win_shares_of

    players = [get_strategy(strategy) for _ in cards]
    scores = play_matches(players, rules, games, seed, n_jobs=n_jobs, start=(cards, seat))
    wins = win_shares_of(scores)
    mean = wins.mean(axis=0)
    se = wins.std(axis=0, ddof=1) / np.sqrt(games) if games > 1 else np.zeros_like(mean)
    q = stats.t.ppf(0.975, max(games - 1, 1))
    res.simulated = mean.tolist()
    res.simulated_ci95 = np.stack([mean - q * se, mean + q * se], axis=1).tolist()
    res.games = games
    res.strategy = strategy
