"""The step-by-step game a person plays: the position, the coach's word and the record.

:class:`Game` plays one person's game a move at a time, with the program's dice or, with
``manual``, the dice of a real game; each move returns the :class:`Coach`'s word (the
points lost against optimal play, the best move and a one-line reason,
:func:`keep_reason`). The terminal game (:mod:`yahtzee_sim.apps.terminal`), the web page
(:mod:`yahtzee_sim.apps.server`) and Python code drive it; it reads no input and prints
nothing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from yahtzee_sim.apps.opponent import Opponent
from yahtzee_sim.apps.score_sheet import sheet_state, upper_outlook
from yahtzee_sim.engine.batch import GameBatch
from yahtzee_sim.engine.records import FORMAT, check_record
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import MoveError, YahtzeeSimError
from yahtzee_sim.game.boxnames import match_box
from yahtzee_sim.game.plan_odds import plan_odds
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.multiplayer.matches import match_info
from yahtzee_sim.solving.advisor import Option, advise
from yahtzee_sim.solving.strategy_move import StrategyMove, advising_strategy, move_at
from yahtzee_sim.strategies import get_strategy
from yahtzee_sim.validation import Real, check

if TYPE_CHECKING:
    from yahtzee_sim.strategies import Strategy


def holds(dice: list[int], kept: list[int]) -> bool:
    """Whether the dice ``dice`` (face values) hold the dice ``kept``: every kept die is
    among them, as often as it is kept.

    Examples
    --------
    >>> holds([5, 5, 6, 1, 2], [5, 5])
    True
    >>> holds([5, 6, 6, 1, 2], [5, 5])
    False
    """
    return not (Counter(kept) - Counter(dice))


def keep_reason(rules: RuleSet, keep: tuple[int, ...], open_boxes: list[str]) -> str:
    """A one-line reason for keeping ``keep``: the open boxes those dice feed most.

    The boxes are ranked by how much the kept dice raise the next roll's expected points
    in each box, against rerolling every die.

    Parameters
    ----------
    rules : RuleSet
        The rules of the game.
    keep : tuple of int
        The dice kept (face values, sorted); empty for rerolling every die.
    open_boxes : list of str
        The names of the boxes still open.

    Returns
    -------
    str
        ``"keep 6 6: it feeds Sixes, Three of a kind"`` (at most two boxes), ``"keep 6 6"``
        when the dice feed no open box, or the reason to reroll every die.
    """
    if not keep:
        return "nothing worth keeping: a fresh roll of every die"
    t = rules.tables
    lift = _box_means(rules)
    k = t.keep_from_faces(keep)
    gain = lift[k] - lift[0]
    names, labels = rules.box_names, rules.box_labels
    feeds = sorted(
        (c for c, n in enumerate(names) if n in open_boxes and gain[c] > 0.5),
        key=lambda c: -gain[c],
    )
    dice = " ".join(map(str, keep))
    if not feeds:
        return f"keep {dice}"
    return f"keep {dice}: it feeds {', '.join(labels[c] for c in feeds[:2])}"


def _box_means(rules: RuleSet) -> np.ndarray:
    """``(n_keeps, n_boxes)``: the next roll's expected points in each box after each
    keep (the keep->roll law times the score table)."""
    got = rules.__dict__.get("_box_means")
    if got is None:
        t = rules.tables
        got = rules.__dict__["_box_means"] = t.dense_keep_roll() @ t.score_table
    return got


@dataclass(frozen=True)
class Coach:
    """The coach's word on one move.

    Parameters
    ----------
    loss : float
        Points lost against optimal play (0 for a best move).
    best : str
        The best move, as text (``"keep 6 6"``, ``"Sixes"``).
    reason : str
        A one-line reason for the best move.
    tie : float
        The near-tie threshold (points): a move that lost at most this much is a near tie,
        not a mistake.
    """

    loss: float
    best: str
    reason: str
    tie: float = 0.0

    @property
    def grade(self) -> str:
        """``"best"``, ``"near tie"`` (within :attr:`tie` of the best) or ``"mistake"``."""
        if self.loss <= 1e-9:
            return "best"
        return "near tie" if self.loss <= self.tie else "mistake"

    def line(self) -> str:
        """The coach's word as one line: ``"coach: best move (...)"``, ``"coach: a near
        tie, -0.04 points (...)"`` or ``"coach: -2.30 points; best was keep 5 5 (...)"``."""
        if self.grade == "best":
            return f"coach: best move ({self.reason})"
        if self.grade == "near tie":
            return (
                f"coach: a near tie, -{self.loss:.2f} points (within {self.tie:g} of the "
                f"best, {self.best}: not a mistake; {self.reason})"
            )
        return f"coach: -{self.loss:.2f} points; best was {self.best} ({self.reason})"


class Game:
    """One person's game, a move at a time: the position, the coach and the record.

    The program rolls the engine's dice (game ``game`` of ``seed``), or, with
    ``manual``, :meth:`set_dice` enters the dice of a real game before each decision.
    :meth:`keep` and :meth:`box` play a move and return the :class:`Coach`'s word;
    :meth:`state` describes the position; :attr:`record` is the game record so far.
    The terminal game (:func:`~yahtzee_sim.apps.terminal.play`) and the web page
    (:mod:`yahtzee_sim.apps.server`) both drive this class.

    Parameters
    ----------
    rules : str or RuleSet, default "yahtzee"
        The rules (a preset name or a rule set).
    seed, game : int, default 0
        The program's dice: game ``game`` of ``seed`` (also kept in the record).
    manual : bool, default False
        The dice of a real game, entered with :meth:`set_dice` before each decision.
    opponent : str or Strategy, optional
        A strategy (id or instance) seated in a visible two-player match against the
        person (:class:`~yahtzee_sim.apps.opponent.Opponent`): it plays its turn after
        each of the person's, :meth:`state` shows its score sheet and last turn and, at the end,
        the winner, and the record keeps its turns under ``"opponent"``. Not with
        ``manual`` dice.
    compare : str or Strategy, optional
        A deterministic strategy as a second opinion: :meth:`compared` gives its move at
        the position now, valued by optimal play
        (:func:`~yahtzee_sim.solving.strategy_move.move_at`).
    tie : float, optional
        The near-tie threshold of the coach's grades, points (default: the analysis's
        :data:`~yahtzee_sim.analysis.decisions.coach.NEAR_TIE`, 0.1).

    Attributes
    ----------
    record : dict
        The game record so far (:mod:`yahtzee_sim.engine.records`); see also
        :meth:`record_so_far`.
    losses : list of float
        The points each decision lost against optimal play, in order.
    moves : list of tuple
        The moves played, in order: ``("keep", dice)``, ``("box", name)`` or
        ``("set_dice", dice)`` (:meth:`undo` takes back the last).
    """

    def __init__(
        self,
        rules: str | RuleSet = "yahtzee",
        seed: int = 0,
        game: int = 0,
        manual: bool = False,
        opponent: str | Strategy | None = None,
        compare: str | Strategy | None = None,
        tie: float | None = None,
    ) -> None:
        from yahtzee_sim.analysis.decisions.coach import NEAR_TIE

        self._start = (rules, seed, game, manual, opponent, compare, tie)  # for undo
        self.moves: list[tuple[str, object]] = []
        self.tie = check("tie (near-tie threshold, points)", NEAR_TIE if tie is None else tie,
                         Real(0), MoveError)  # fmt: skip
        self.rules = get_rules(rules)
        self.manual = manual
        self.batch = GameBatch(self.rules, 1)
        self.batch.seed(seed)
        self.record = {"format": FORMAT, "rules": self.rules.name, "strategy": "person"}
        if not manual:
            self.record |= {"seed": seed, "game": game}
        self.record["turns"] = []
        self.opponent = None
        if opponent is not None:
            if manual:
                raise YahtzeeSimError("an opponent rolls the program's dice: not with manual dice")
            self.opponent = Opponent(self.rules, get_strategy(opponent), seed, game, self.batch)
            self.record["opponent"] = self.opponent.record
        self.compare = None if compare is None else advising_strategy(compare, self.rules)
        self.batch.start(np.array([0]), np.array([game]))
        self.need_dice = manual  # manual: the dice of the first roll are still to come
        self.losses: list[float] = []
        if not manual:
            self._new_turn()

    # ----------------------------------------------------------------- state
    @property
    def over(self) -> bool:
        """Whether every box is filled."""
        return int(self.batch.used[0]) == (1 << self.rules.n_boxes) - 1

    @property
    def rolls_left(self) -> int:
        """Rerolls left this turn (0: choose a box)."""
        return int(self.batch.rolls_left[0])

    @property
    def used(self) -> list[str]:
        """The names of the filled boxes, in score-sheet order."""
        u = int(self.batch.used[0])
        return [n for c, n in enumerate(self.rules.box_names) if (u >> c) & 1]

    def dice(self) -> list[int]:
        """The dice now (face values, sorted)."""
        return list(self.rules.tables.faces_from_counts(self.batch.dice[0]))

    def _turn(self) -> dict:
        return self.record["turns"][-1]

    def _new_turn(self) -> None:
        self.record["turns"].append({"rolls": [self.dice()], "keeps": []})

    def points(self) -> dict[str, int]:
        """The legal boxes for the dice now and their points (joker rules applied)."""
        p = self.batch.view(0, int(self.batch.turn[0])).box_points[0]
        return {n: int(p[c]) for c, n in enumerate(self.rules.box_names) if p[c] >= 0}

    def state(self) -> dict:
        """JSON-ready: turn, dice, rolls left (with saved rolls: ``saved_before``, the rolls
        this turn brought from earlier ones, and ``saved_rolls``, those it saves), the score
        sheet (points or None, in score-sheet order; score, upper total and bonus outlook,
        Yahtzee bonuses: :func:`~yahtzee_sim.apps.score_sheet.sheet_state`), the boxes'
        labels, the legal boxes with their points, whether dice are awaited (manual) or the
        game is over, whether a move can be taken back (``can_undo``); with an opponent,
        its state
        (:meth:`~yahtzee_sim.apps.opponent.Opponent.state`) and, at the end, ``winner``
        (``"person"``, ``"opponent"`` or ``"tie"``)."""
        b = self.batch
        out = {
            "rules": self.rules.name,
            "turn": min(int(b.turn[0]) + 1, self.rules.n_boxes),
            "dice": [] if self.need_dice else self.dice(),
            "rolls_left": self.rolls_left,
            "saved_before": int(b.saved[0]),  # rolls this turn had saved from earlier ones
            "saved_rolls": int(b.saved_rolls[0]),  # rolls it saves (at a box decision)
            **sheet_state(self.rules, b),
            "labels": dict(zip(self.rules.box_names, self.rules.box_labels, strict=True)),
            "boxes": {} if (self.over or self.need_dice) else self.points(),
            "need_dice": self.need_dice,
            "over": self.over,
            "can_undo": bool(self.moves),
        }
        if self.opponent is not None:
            out["opponent"] = self.opponent.state()
            if self.over:
                mine, theirs = out["score"], out["opponent"]["score"]
                out["winner"] = (
                    "person" if mine > theirs else "opponent" if theirs > mine else "tie"
                )
        return out

    def view(self) -> TurnView:
        """The person's position as a strategy sees it (with the opponent's score sheet in a
        two-player match)."""
        turn = int(self.batch.turn[0])
        match = None
        if self.opponent is not None:
            match = match_info([self.batch, self.opponent.batch], 0, turn)
        return self.batch.view(self.rolls_left, turn, None, match)

    def compared(self) -> StrategyMove | None:
        """The ``compare`` strategy's move now, valued by optimal play (``None`` without
        one, when dice are awaited or the game is over)."""
        if self.compare is None or self.over or self.need_dice:
            return None
        return move_at(self.compare, self.view(), self.options())

    def plan_odds(self, keep: list[int]) -> dict[str, float]:
        """The plan odds of keeping ``keep`` now: the chance it makes each open box by the
        end of the turn, chasing it (:func:`~yahtzee_sim.game.plan_odds.plan_odds`),
        in score-sheet order.

        Raises
        ------
        MoveError
            With no reroll left, the game over, dice awaited or dice not held.
        """
        self._check_move()
        if self.rolls_left == 0:
            raise MoveError("no rerolls left: plan odds are for a keep")
        if not holds(self.dice(), keep):
            raise MoveError(f"the dice {' '.join(map(str, self.dice()))} do not hold {keep}")
        open_boxes = [n for n in self.rules.box_names if n not in self.used]
        return plan_odds(keep, self.rolls_left, self.rules, open_boxes)

    def options(self, rolls_left: int | None = None) -> list[Option]:
        """Every option now (or with ``rolls_left``), valued by optimal play, best first."""
        b = self.batch
        flag = int(b.flag[0])
        return advise(
            self.dice(),
            self.rolls_left if rolls_left is None else rolls_left,
            self.used,
            int(b.upper_total[0]),
            flag=flag >= 1,
            rules=self.rules,
            bonuses_paid=max(flag - 1, 0) if self.rules.yahtzee_bonus_limit else 0,
            saved_rolls=int(b.saved_rolls[0]) if (rolls_left or self.rolls_left) == 0 else 0,
        )

    # ----------------------------------------------------------------- moves
    def _check_move(self) -> None:
        if self.over:
            raise MoveError("the game is over")
        if self.need_dice:
            raise MoveError("enter the dice of this roll first")

    def set_dice(self, faces: list[int]) -> None:
        """Manual dice: the dice of the roll just made (they must hold the kept dice)."""
        if not self.manual:
            raise MoveError("the program rolls in this game (start it with manual dice)")
        if self.over or not self.need_dice:
            raise MoveError("no roll is awaited now")
        n = self.rules.n_dice
        if len(faces) != n or any(not 1 <= f <= self.rules.n_faces for f in faces):
            raise MoveError(f"enter {n} dice, faces 1..{self.rules.n_faces}")
        turn = self.record["turns"][-1] if self.record["turns"] else None
        kept = turn["keeps"][-1] if turn and len(turn["keeps"]) == len(turn["rolls"]) else []
        if kept and not holds(faces, kept):
            raise MoveError(f"those dice lost the kept {' '.join(map(str, kept))}")
        self.batch.set_dice(0, self.rules.tables.counts_from_faces(faces))
        self.moves.append(("set_dice", list(faces)))
        self.need_dice = False
        if turn is None or "box" in turn:
            self._new_turn()
        else:
            turn["rolls"].append(self.dice())

    def keep(self, kept: list[int]) -> Coach:
        """Keep ``kept`` (face values) and reroll the rest; keeping every die stops the
        rolling. Returns the coach's word."""
        self._check_move()
        if self.rolls_left == 0:
            raise MoveError("no rerolls left: choose a box")
        dice = self.dice()
        if not holds(dice, kept):
            raise MoveError(f"the dice {' '.join(map(str, dice))} do not hold {kept}")
        options = self.options()
        key = tuple(sorted(kept))
        chosen = next(o for o in options if o.keep == key)
        best = options[0]
        open_boxes = [n for n in self.rules.box_names if n not in self.used]
        coach = self._coach(options, chosen, keep_reason(self.rules, best.keep, open_boxes))
        self.moves.append(("keep", list(kept)))
        if len(kept) == self.rules.n_dice:  # stop rolling (saving the rolls left, if saved)
            self.batch.roll(np.ones(1, dtype=bool), self.batch.dice.copy())
            return coach
        self._turn()["keeps"].append(sorted(kept))
        b, t = self.batch, self.rules.tables
        if self.manual:
            self.need_dice = True
            b.rolls_left[0] -= 1
        else:
            b.step(np.array([t.keep_from_faces(kept)]), np.ones(1, dtype=bool))
            self._turn()["rolls"].append(self.dice())
        return coach

    def box(self, name: str) -> Coach:
        """Write the roll in box ``name`` (a name, label, abbreviation or prefix that fits
        one open box: :func:`~yahtzee_sim.game.boxnames.match_box`); with rerolls left, stop
        rolling first (:meth:`keep` every die). Raises
        :class:`~yahtzee_sim.game.boxnames.BoxNameError` for a name that fits no open box or
        several."""
        self._check_move()
        if self.rolls_left > 0:
            raise MoveError(
                f"{self.rolls_left} reroll(s) left: keep dice and reroll, or keep every die "
                "to stop rolling, before choosing a box"
            )
        options = self.options(0)
        legal = {o.box: o for o in options}
        box = match_box(self.rules, name, legal, filled=self.used)
        best = options[0].box
        pts = self.points()
        names, labels = self.rules.box_names, self.rules.box_labels
        reason = f"{labels[names.index(best)]} takes {pts[best]} now"
        upper = [n for n in (box, best) if self.rules.boxes[names.index(n)].is_upper]
        if upper:
            total = int(self.batch.upper_total[0]) + (pts[box] if upper[0] == box else 0)
            outlook = upper_outlook(self.rules, [*self.used, box], total)
            reason += f"; after {labels[names.index(box)]}, {outlook}" if outlook else ""
        coach = self._coach(options, legal[box], reason)
        self.moves.append(("box", box))
        self._turn()["box"] = box
        b, t = self.batch, self.rules.tables
        turn = int(b.turn[0])
        b.step(np.array([t.n_keeps + names.index(box)]), np.ones(1, dtype=bool))
        if self.opponent is not None:
            self.opponent.play(turn)
        if not self.over:
            if self.manual:
                self.need_dice = True
            else:
                self._new_turn()
        return coach

    def undo(self) -> None:
        """Take back the last move (a keep, a box, or the dice entered in a manual game):
        the game is played again from its start without it. The program's dice are the
        engine's (game ``game`` of ``seed``: each roll's dice fixed by the turn and the
        roll), so a keep taken back and played again rerolls the same dice; with an
        opponent, its turn after a box taken back is taken back too.

        Raises
        ------
        MoveError
            Before the first move.
        """
        if not self.moves:
            raise MoveError("nothing to undo: no move played yet")
        rules, seed, game, manual, opponent, compare, tie = self._start
        again = Game(rules, seed, game, manual, opponent, compare, tie)
        for move, value in self.moves[:-1]:
            getattr(again, move)(value)
        self.__dict__.update(again.__dict__)

    def _coach(self, options: list[Option], chosen: Option, reason: str) -> Coach:
        loss = max(options[0].value - chosen.value, 0.0)
        self.losses.append(loss)
        return Coach(loss, options[0].text(self.rules), reason, self.tie)

    def record_so_far(self) -> dict:
        """The game record now (a keep whose new dice are still to be entered is left out)."""
        rec = dict(self.record)
        turns = [dict(tr) for tr in rec["turns"]]
        if turns and "box" not in turns[-1] and len(turns[-1]["keeps"]) == len(turns[-1]["rolls"]):
            turns[-1]["keeps"] = turns[-1]["keeps"][:-1]
        rec["turns"] = [tr for tr in turns if tr["rolls"]]
        return rec

    def summary(self) -> dict | None:
        """Luck and skill of the game so far (:mod:`yahtzee_sim.analysis.decisions.coach`), or None
        before the first recorded move."""
        from yahtzee_sim.analysis.decisions.coach import analyze_records

        rec = check_record(self.record_so_far(), self.rules)
        if not rec.decisions:  # (a stop is recorded with its box)
            return None
        res = analyze_records([rec], self.tie)
        row = res.games.iloc[0]
        return {
            "complete": bool(row["complete"]),
            "score": int(row["score"]),
            "expected_final": float(row["expected_final"]),
            "luck": float(row["luck"]),
            "regret": float(row["regret"]),
            "mistakes": int(row["mistakes"]),
            "start_value": res.start_value,
        }
