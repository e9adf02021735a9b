"""The advisor's whole answer at one decision, and how a first answer skips compiling.

:func:`answer` is what ``yahtzee-sim advise`` prints: every option valued
(:func:`~yahtzee_sim.solving.advisor.position_options`), the plan odds of each keep when
asked for, and a strategy's move when one is named. Its one kernel call, the widget of the
position's state, compiles for tens of seconds the first time it runs in an environment;
run as Python it takes a tenth of a second. :func:`quick_answer` therefore answers in a
process of its own with numba's compiler off (:mod:`yahtzee_sim.engine.interpreted`)
when that pays: the value table is stored (no solve to run) and the widget is missing
from the kernel cache. The answer is the same either way.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

from yahtzee_sim.engine.compile_costs import kernel_missing
from yahtzee_sim.engine.interpreted import InterpretedRunError, interpreting, run_interpreted
from yahtzee_sim.engine.registry import strategy_class, strategy_ids
from yahtzee_sim.engine.strategy import capabilities_of
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.solving.advisor import (
    AdvisorPosition,
    Option,
    check_position,
    position_options,
    with_plan_odds,
)
from yahtzee_sim.solving.solver import table_stored, value_table
from yahtzee_sim.solving.strategy_move import StrategyMove, strategy_move

__all__ = [
    "ADVISOR_KERNEL",
    "Answer",
    "answer",
    "interpretable",
    "interpreting_pays",
    "quick_answer",
]

#: The kernel an answer calls: ``(module, name)``.
ADVISOR_KERNEL = ("yahtzee_sim._core.decisions", "position_values")


@dataclass(frozen=True)
class Answer:
    """The advisor's answer at one decision.

    Attributes
    ----------
    options : list of Option
        Every distinct option, best first.
    move : StrategyMove or None
        The named strategy's move, or ``None`` when none was named.
    interpreted : bool
        Whether the answer was computed with numba's compiler off.
    """

    options: list[Option]
    move: StrategyMove | None = None
    interpreted: bool = False


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
    return Answer(options, move, interpreting())


def interpreting_pays(rules: str | RuleSet, strategy: str | None = None) -> bool:
    """Whether an answer on ``rules`` is quicker with numba's compiler off: the value
    table is stored in the cache folder or ships (no solve to run), the advisor's kernel
    is missing from the kernel cache (or its state is unknown), ``strategy`` can move
    interpreted (:func:`interpretable`), and this process compiles kernels."""
    return (
        not interpreting()
        and table_stored(get_rules(rules), in_memory=False)
        and interpretable(strategy)
        and kernel_missing(*ADVISOR_KERNEL) is not False
    )


def interpretable(strategy: str | None) -> bool:
    """Whether the move of ``strategy`` is computed with the compiler off: none is named,
    or it is the id of a built-in strategy whose play reads no solved table (``greedy``,
    the rule cards). Strategies that read a solved table (``optimal``, a target, a
    utility, Glenn's sub-games) move compiled, as their tables or decision fills would run
    as Python, and those registered in this process alone are unknown to a fresh one."""
    if strategy is None:
        return True
    if not isinstance(strategy, str) or strategy not in strategy_ids():
        return False
    cls = strategy_class(strategy)
    built_in = cls.__module__.startswith("yahtzee_sim.strategies.")
    return built_in and not capabilities_of(cls).solved_table


def quick_answer(
    position: AdvisorPosition,
    plan_boxes: Sequence[str] | None = None,
    strategy: str | None = None,
    score: int | None = None,
) -> Answer | None:
    """:func:`answer`, computed with numba's compiler off when :func:`interpreting_pays`;
    ``None`` when it does not (compile and call :func:`answer`), or when the interpreted
    process fails (a warning says why).

    Bad input raises here as in :func:`answer`.
    """
    check_position(position)
    if not interpreting_pays(position.rules, strategy):
        return None
    # read and checked here, so that the interpreted process never solves (a damaged
    # file is solved again here, compiled, and one this process cannot store stays here)
    value_table(position.rules)
    if not table_stored(position.rules, in_memory=False):
        return None
    try:
        return run_interpreted(answer, position, plan_boxes, strategy, score)
    except InterpretedRunError as exc:
        warnings.warn(f"answering compiled: {exc}", RuntimeWarning, stacklevel=2)
        return None
