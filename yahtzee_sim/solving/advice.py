"""The advisor's whole answer at one decision.

:func:`answer` is what ``yahtzee-sim advise`` prints: every option valued
(:func:`~yahtzee_sim.solving.advisor.position_options`), the plan odds of each keep when
asked for, and a strategy's move when one is named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from yahtzee_sim.solving.advisor import AdvisorPosition, Option, position_options, with_plan_odds
from yahtzee_sim.solving.strategy_move import StrategyMove, strategy_move

__all__ = ["Answer", "answer"]


@dataclass(frozen=True)
class Answer:
    """The advisor's answer at one decision.

    Attributes
    ----------
    options : list of Option
        Every distinct option, best first.
    move : StrategyMove or None
        The named strategy's move, or ``None`` when none was named.
    """

    options: list[Option]
    move: StrategyMove | None = None


def answer(
    position: AdvisorPosition,
    plan_boxes: Sequence[str] | None = None,
    strategy: str | None = None,
    score: int | None = None,
) -> Answer:
    """Every option at ``position``, with the plan odds for ``plan_boxes`` (``None``: no
    odds) and the move of ``strategy`` (an id; ``None``: none), playing on ``score``.

    Raises
    ------
    PositionError, DiceError, RulesError, PlanOddsError, StrategyError
        Bad input, as :func:`~yahtzee_sim.solving.advisor.position_options`,
        :func:`~yahtzee_sim.solving.advisor.with_plan_odds` and
        :func:`~yahtzee_sim.solving.strategy_move.strategy_move` raise it.
    """
    options = position_options(position)
    if plan_boxes is not None:
        options = with_plan_odds(options, position.rolls_left, position.rules, plan_boxes)
    move = None
    if strategy is not None:
        move = strategy_move(strategy, position, score=score, options=options)
    return Answer(options, move)
