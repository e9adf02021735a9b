"""Win probabilities: who wins, from final-score laws or from score sheets in mid-game.

:func:`win_probability` gives P(A beats B) of two independent final-score laws (a blind
two-player game); :func:`win_shares` each of several players' expected share of the win.
:func:`win_probability_now` takes every player's score sheet (and the dice of the
player to move, when they are inside their turn) and returns each player's
probability of winning, ties split, if everyone plays max-EV from here — exact: each
player's final score is their points so far plus the exact law of their points to
come (:func:`yahtzee_sim.exact.points_to_come.future_law`), the laws are independent, and

    P(seat i wins) = sum_x P_i(x) * integral_0^1 prod_{j != i} (F_j(x - 1) + u p_j(x)) du,

the integral giving the expected share ``1 / (1 + k)`` of a ``k``-way tie (computed
exactly by Gauss-Legendre quadrature). With ``n_playouts=N`` and a ``strategy``, the
same position is also played out ``N`` times in a visible match by that strategy at
every seat, with 95% intervals.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.engine.strategy import Strategy
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.errors import ScoreSheetError, quoted
from yahtzee_sim.exact.points_to_come import future_law
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import encode_state
from yahtzee_sim.validation import Integer, check, renamed_arguments


@dataclass(frozen=True)
class ScoreSheet:
    """One player's filled boxes and Yahtzee bonuses.

    Build it with :meth:`parse` (``"ones=3, full_house=25, yahtzee=50,
    yahtzee_bonuses=1"``; ``""`` for an empty sheet) or directly.
    """

    rules: RuleSet
    boxes: dict = field(default_factory=dict)  # box name -> points written
    yahtzee_bonuses: int = 0

    @classmethod
    def parse(cls, text: str, rules: str | RuleSet = "yahtzee") -> ScoreSheet:
        """A score sheet from ``"box=points, ..."`` (box names as ``yahtzee-sim rules`` lists
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
        sheet = cls(rules, boxes, bonuses)
        sheet.check()
        return sheet

    def check(self) -> None:
        """Raise :class:`ScoreSheetError` unless the rules can produce this score sheet."""
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


def to_move(sheets: list[ScoreSheet]) -> int:
    """The seat whose turn it is (the first with the fewest boxes filled); a
    :class:`ScoreSheetError` if the score sheets cannot come from one game played in seat
    order."""
    turns = [s.turns for s in sheets]
    t = min(turns)
    seat = turns.index(t)
    if t == sheets[0].rules.n_boxes:
        return -1  # the game is over
    for j, n in enumerate(turns):
        want = t + 1 if j < seat else t
        if n != want:
            raise ScoreSheetError(
                f"seat {j} has {n} boxes filled, but with seat {seat} to play its turn "
                f"{t + 1} it must have {want} (seats play in order)"
            )
    return seat


def win_probability(pmf_a, pmf_b) -> float:
    """P(A beats B) + ½ P(tie) for independent final scores with laws ``pmf_a``, ``pmf_b``
    (arrays indexed by score): the players never see each other's score sheet."""
    a = np.asarray(pmf_a, dtype=np.float64)
    b = np.asarray(pmf_b, dtype=np.float64)
    n = max(len(a), len(b))
    a = np.pad(a, (0, n - len(a))) / a.sum()
    b = np.pad(b, (0, n - len(b))) / b.sum()
    below = np.concatenate(([0.0], np.cumsum(b)[:-1]))  # P(B < x)
    # exactly rounded sum: the same bytes on every run (BLAS dot products are not)
    return math.fsum(a * (below + 0.5 * b))


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
class LiveWinProbability:
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


@renamed_arguments(cards="sheets", simulate="n_playouts")
def win_probability_now(
    sheets,
    rules: str | RuleSet = "yahtzee",
    dice=None,
    rolls_left: int | None = None,
    n_playouts: int = 0,
    strategy: str | Strategy | None = None,
    seed: int = 0,
    n_jobs: int = 1,
) -> LiveWinProbability:
    """Each player's probability of winning from these score sheets.

    Parameters
    ----------
    sheets : list of ScoreSheet or str
        One score sheet per seat, in seat order (strings are parsed with
        :meth:`ScoreSheet.parse`). ``cards=`` is a deprecated spelling.
    rules : str or RuleSet
    dice : iterable of int, optional
        Faces of the player to move, inside their turn (with ``rolls_left``).
    rolls_left : int, optional
        Rerolls left with ``dice`` (0: they must choose a box now).
    n_playouts : int
        Also play the position out this many times (turn-start positions only), every
        seat playing ``strategy`` in a visible match. ``simulate=`` is a deprecated
        spelling.
    strategy : str or Strategy, optional
        The strategy of every seat in the play-outs (a registry id or an instance);
        needed with ``n_playouts``.
    seed : int
        Seed of the play-outs.
    n_jobs : int
        Processes playing them.

    Returns
    -------
    LiveWinProbability
        Each seat's exact win probability (``exact``) and expected final score; with
        ``n_playouts``, the play-outs' win shares with 95% intervals.
    """
    rules = get_rules(rules)
    sheets = [s if isinstance(s, ScoreSheet) else ScoreSheet.parse(s, rules) for s in sheets]
    if len(sheets) < 2:
        raise ScoreSheetError(f"give at least two score sheets, got {len(sheets)}")
    if any(s.rules != rules for s in sheets):
        raise ScoreSheetError("every score sheet must be of the same rules")
    seat = to_move(sheets)
    counts = None
    if dice is not None:
        if seat < 0:
            raise ScoreSheetError(
                "dice were given, but every score sheet is full: the game is over"
            )
        counts = dice_counts(rules, dice, rolls_left)
    laws, memo = [], {}
    for i, s in enumerate(sheets):
        if i == seat and counts is not None:
            law = future_law(rules, s.state, counts, rolls_left)
        else:
            if s.state not in memo:
                memo[s.state] = future_law(rules, s.state)
            law = memo[s.state]
        laws.append(np.concatenate([np.zeros(s.score), law]))
    exact = win_shares(laws).tolist()
    res = LiveWinProbability(
        rules.name,
        seat,
        [s.score for s in sheets],
        exact,
        [float(p @ np.arange(len(p))) for p in laws],
    )
    if n_playouts:
        if counts is not None:
            raise ScoreSheetError(
                "n_playouts: play-outs start at a turn start; leave out the dice to play out"
            )
        if strategy is None:
            raise ScoreSheetError("n_playouts: give the strategy every seat plays (strategy=)")
        _play_out(res, sheets, rules, seat, n_playouts, strategy, seed, n_jobs)
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


def _play_out(res, sheets, rules, seat, games, strategy, seed, n_jobs) -> None:
    """Play the position out ``games`` times, ``strategy`` at every seat; into ``res``."""
    from yahtzee_sim.multiplayer.matches import play_matches, win_shares_of

    players = [get_strategy(strategy) for _ in sheets]
    scores = play_matches(players, rules, games, seed, n_jobs=n_jobs, start=(sheets, seat))
    wins = win_shares_of(scores)
    mean = wins.mean(axis=0)
    se = wins.std(axis=0, ddof=1) / np.sqrt(games) if games > 1 else np.zeros_like(mean)
    q = stats.t.ppf(0.975, max(games - 1, 1))
    res.simulated = mean.tolist()
    res.simulated_ci95 = np.stack([mean - q * se, mean + q * se], axis=1).tolist()
    res.games = games
    res.strategy = strategy if isinstance(strategy, str) else strategy_label(strategy)
