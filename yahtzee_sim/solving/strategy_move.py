"""What one strategy plays at one position, next to optimal play.

:func:`strategy_move` asks a strategy for its move at a decision (as the engine asks it:
:func:`~yahtzee_sim.engine.decide.decide`, the move checked by :mod:`yahtzee_sim.engine.moves`),
finds
that move among the advisor's options (:func:`~yahtzee_sim.advise`) and returns it with
its value, its rank and the points it loses against the best move. A strategy that
explains its decisions (a method ``explain(view)`` returning one object with ``line()``
and ``to_dict()`` per game, as rule cards do:
:meth:`~yahtzee_sim.strategies.cards.strategy.CardStrategy.explain`) adds the reason: for a card,
the rule that decides ("rule 7: if ...") or its ``otherwise`` line.

The terminal (``yahtzee-sim advise --strategy card-30``), the web page's advisor and its
game (:mod:`yahtzee_sim.apps.server`) show this.

Examples
--------
>>> from yahtzee_sim.solving.advisor import AdvisorPosition
>>> from yahtzee_sim.solving.strategy_move import strategy_move
>>> says = strategy_move("card-10", AdvisorPosition([2, 3, 3, 3, 6], 0, used=["chance"]))
>>> says.move, says.reason.line()
('Threes', 'rule 4: if 3 of a kind: score in the upper box of the most common face')
"""

from __future__ import annotations

from dataclasses import dataclass

from yahtzee_sim.engine.decide import decide, prepare
from yahtzee_sim.engine.moves import box_array, box_label, illegal_move, keep_array
from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.engine.strategy import capabilities_of
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.game.dice import DiceTables
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.solving.advisor import (
    AdvisorPosition,
    Option,
    check_position,
    position_options,
)


@dataclass(frozen=True)
class StrategyMove:
    """A strategy's move at one decision, valued by optimal play.

    Attributes
    ----------
    strategy : str
        The strategy's label (its id, e.g. ``"card-30"``).
    option : Option
        The move as the advisor's option, with its value (expected points still to come
        under optimal play afterwards).
    move : str
        The move for a person (:meth:`~yahtzee_sim.solving.advisor.Option.text`).
    loss : float
        Points the move loses against the best option (0 for a best move).
    rank : int
        The move's place among the options, best first (1 = the best).
    reason : object or None
        Why the strategy plays it, when it says (a card's
        :class:`~yahtzee_sim.strategies.cards.strategy.CardDecision`); else ``None``.
    """

    strategy: str
    option: Option
    move: str
    loss: float
    rank: int
    reason: object | None = None

    def line(self) -> str:
        """``"card-30 says: keep 5 5 (rule 7: if ...), -0.52 points against optimal"``."""
        why = f" ({self.reason.line()})" if self.reason is not None else ""
        cost = (
            "the best move"
            if self.loss <= 1e-9
            else f"-{self.loss:.2f} points against optimal (option {self.rank})"
        )
        return f"{self.strategy} says: {self.move}{why}: {cost}"

    def to_dict(self) -> dict:
        """JSON-ready: ``label``, ``move`` (text), ``option`` (the advisor's option
        dict), ``value``, ``loss``, ``rank``, ``rule`` (the reason, or ``None``), ``text``
        (:meth:`line`)."""
        return {
            "label": self.strategy,
            "move": self.move,
            "option": self.option.to_dict(),
            "value": self.option.value,
            "loss": self.loss,
            "rank": self.rank,
            "rule": None if self.reason is None else self.reason.to_dict(),
            "text": self.line(),
        }


def advising_strategy(strategy, rules: RuleSet, score_known: bool = True):
    """``strategy`` (an id or an instance) checked and prepared for ``rules``: it must
    support the rules and be deterministic (a random strategy has no one move at a
    position); one that plays by the score so far needs ``score_known``.

    Raises
    ------
    StrategyError
        Unknown id, rules the strategy does not support, a random strategy, or one that
        plays by the score when the score is not known.
    """

    strategy = get_strategy(strategy)
    strategy.check_rules(rules)
    name = strategy_label(strategy)
    caps = capabilities_of(strategy)
    if not caps.deterministic:
        raise StrategyError(
            f"strategy {name!r} draws its moves at random: it has no one move at a position to show"
        )
    if not score_known and caps.uses_total:
        raise StrategyError(f"strategy {name!r} plays by the score so far: give the score")
    prepare(strategy, rules)
    return strategy


def move_at(strategy, view: TurnView, options: list[Option], in_game: bool = True) -> StrategyMove:
    """The move of a prepared ``strategy`` in the first game of ``view``, found among
    ``options`` (the advisor's options there, best first).

    Raises
    ------
    IllegalMoveError
        When the strategy's move is not one of the options (dice it does not hold, a
        filled box).
    """
    rules = view.rules
    answer = decide(strategy, view)
    if view.rolls_left:
        counts = keep_array(strategy, answer, view, in_game)[0]
        faces = tuple(int(f) for f in DiceTables.faces_from_counts(counts))
        found = [o for o in options if o.keep == faces]
        what, action = "keep", f"keep {list(faces)}"
    else:
        c = int(box_array(strategy, answer, view, in_game)[0])
        name = rules.box_names[c] if 0 <= c < rules.n_boxes else None
        found = [o for o in options if o.box == name]
        what, action = "box choice", box_label(rules, c, int(view.used[0]))
    if not found:
        raise illegal_move(strategy, what, view, 0, action, in_game)
    option = found[0]
    explain = getattr(strategy, "explain", None)
    return StrategyMove(
        strategy_label(strategy),
        option,
        option.text(rules),
        max(options[0].value - option.value, 0.0),
        options.index(option) + 1,
        explain(view)[0] if explain is not None else None,
    )


def strategy_move(
    strategy,
    position: AdvisorPosition,
    score: int | None = None,
    options: list[Option] | None = None,
) -> StrategyMove:
    """What ``strategy`` plays at a decision, and what it loses against optimal play.

    Parameters
    ----------
    strategy : str or Strategy
        A deterministic strategy: an id (``"card-30"``, ``"greedy"``) or an instance.
    position : AdvisorPosition
        The decision (dice, rolls left, filled boxes, upper total, Yahtzee flag, rules,
        bonuses paid, saved rolls), as :func:`~yahtzee_sim.advise` takes it.
    score : int, optional
        Points so far; needed by strategies whose moves depend on the running score
        (``uses_total``, e.g. ``target:300``).
    options : list of Option, optional
        :func:`~yahtzee_sim.solving.advisor.position_options` of the same position, if
        already at hand.

    Returns
    -------
    StrategyMove

    Raises
    ------
    PositionError, DiceError, RulesError
        A position the rules cannot produce.
    StrategyError
        An unknown strategy, one that does not support the rules, a random one, or one
        that needs the ``score``.
    """
    pos = check_position(position)
    player = advising_strategy(strategy, pos.rules, score is not None)
    if options is None:
        options = position_options(position)
    return move_at(player, pos.view(0 if score is None else score), options, in_game=False)
