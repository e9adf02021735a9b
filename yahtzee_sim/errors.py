"""The project's exception types, the whole family in one module.

Every error raised for bad input is a :class:`YahtzeeSimError`, itself a
:class:`ValueError`: ``except YahtzeeSimError`` catches them all, and the command line
prints the message on one line and exits with code 2. The family, by the part of the
package that raises it:

- rules and dice: :class:`RulesError`, :class:`RuleCheckError`, :class:`DiceError`,
  :class:`PlanOddsError`, :class:`StateError`, :class:`BoxNameError`;
- strategies: :class:`StrategyError`, :class:`IllegalMoveError`,
  :class:`StrategyRuntimeError`, :class:`StrategyCheckError`, :class:`CardError`;
- the engine: :class:`RecordError`, :class:`CheckpointError`, :class:`MemoryBudgetError`,
  :class:`EnvironmentVariableError`;
- the solvers and the exact evaluator: :class:`TableFileError`, :class:`PositionError`,
  :class:`TargetError`, :class:`UtilityError`, :class:`RiskError`,
  :class:`ExactEvaluationError`, :class:`FutureError`, :class:`PairError`;
- matches: :class:`ScoreSheetError`, :class:`DuelError`, :class:`EndgameTooLarge`;
- analysis: :class:`SelectionError`, :class:`TournamentError`, :class:`DatasetError`,
  :class:`AnalysisError`, :class:`TableMissingError`, :class:`DistillError`,
  :class:`ReportError`, :class:`ReproduceError`, :class:`FigureFormatError`;
- the command line and the apps: :class:`CliError`, :class:`MoveError`,
  :class:`RequestError`, :class:`EndOfInput`.

Each is also importable from the module that raises it (``from
yahtzee_sim.solving.target import TargetError`` names the class defined here).
"""

from __future__ import annotations

from typing import Any


def quoted(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters: how an error quotes what it refuses."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class YahtzeeSimError(ValueError):
    """Base class of every error raised for bad input."""


class RulesError(YahtzeeSimError):
    """An unknown preset, a bad override or an inconsistent rule set."""


class RuleCheckError(RulesError):
    """A rule set that fails a check of :func:`~yahtzee_sim.checks.rule_sets.check_rules`;
    the message names the rule set, the check and a counterexample."""


class DiceError(YahtzeeSimError):
    """Dice that do not fit the rule set (wrong number of dice, face out of range)."""


class PlanOddsError(YahtzeeSimError):
    """Plan odds asked of a keep or a number of rerolls the rules do not allow."""


class StateError(YahtzeeSimError):
    """A turn-start state that the rules cannot produce (out of the state index)."""


class BoxNameError(YahtzeeSimError):
    """Text that names no open box, or more than one."""


class StrategyError(YahtzeeSimError):
    """An unknown strategy id, or a strategy that cannot be loaded or built."""


class _AtADecision:
    """What an error about one of a strategy's decisions records of it: the strategy's
    label, the ``file:line`` of its code, the game, the 1-based turn (``-1`` when
    unknown) and the dice; a base of :class:`IllegalMoveError` and
    :class:`StrategyRuntimeError`."""

    def __init__(
        self,
        message: str,
        *,
        strategy: str = "",
        where: str = "",
        game: int = -1,
        turn: int = -1,
        dice: tuple[int, ...] = (),
    ) -> None:
        super().__init__(message)
        self.strategy = strategy
        self.where = where
        self.game = game
        self.turn = turn
        self.dice = dice


class IllegalMoveError(_AtADecision, YahtzeeSimError):
    """A strategy returned a decision the rules do not allow.

    The message names the strategy, the ``file:line`` of the code that returned the
    decision, the game index, the turn, the dice and the action as the strategy returned
    it (before any conversion). Keyword arguments: ``action`` and the attributes of the
    decision (``strategy``, ``where``, ``game``, ``turn``, ``dice``).

    Attributes
    ----------
    strategy : str
        The strategy's label.
    game, turn : int
        The game and the 1-based turn (``-1`` when unknown: a whole batch, a position).
    dice : tuple of int
        The dice at that decision.
    action : object
        The decision, as the message quotes it.
    where : str
        ``file:line`` of the function or method that returned it (``""`` if unknown).
    """

    def __init__(self, message: str, *, action: object = None, **decision: Any) -> None:
        super().__init__(message, **decision)
        self.action = action


class StrategyRuntimeError(_AtADecision, StrategyError):
    """A strategy's own code raised an exception while preparing or deciding.

    The message is one line: the strategy's label, what raised (``keep()``,
    ``box()``, ``prepare()``) and the original exception, the file and line of the
    strategy's code, and the game, turn, rerolls left and dice. The original exception
    is chained as ``__cause__`` (in the process where it was raised; the message alone
    crosses to the parent of a worker process). Keyword arguments: ``rolls_left`` and
    the attributes of the decision (``strategy``, ``where``, ``game``, ``turn``,
    ``dice``).

    Attributes
    ----------
    strategy : str
        The strategy's label.
    where : str
        ``file:line`` of the innermost frame of the strategy's own code.
    game, turn, rolls_left : int
        The decision (``-1`` when unknown, e.g. in ``prepare()``; ``turn`` is 1-based).
    dice : tuple of int
        The dice at that decision.
    """

    def __init__(self, message: str, *, rolls_left: int = -1, **decision: Any) -> None:
        super().__init__(message, **decision)
        self.rolls_left = rolls_left


class StrategyCheckError(YahtzeeSimError):
    """A strategy failed a conformance check (the message says which and where)."""


class CardError(StrategyError):
    """A malformed rule card: the message names the line, the rule and what is wrong."""


class EnvironmentVariableError(YahtzeeSimError):
    """An environment variable the package reads holds a value it cannot use.

    The message names the variable, quotes its value and says what it accepts.

    Attributes
    ----------
    variable : str
        The variable's name (``"YAHTZEE_SIM_MEMORY"``).
    value : str
        Its value.
    """

    def __init__(self, message: str, *, variable: str = "", value: str = "") -> None:
        super().__init__(message)
        self.variable = variable
        self.value = value


class RecordError(YahtzeeSimError):
    """A game record that is malformed or that the rules cannot produce."""


class CheckpointError(YahtzeeSimError):
    """A checkpoint that is corrupted or belongs to another run."""


class MemoryBudgetError(YahtzeeSimError):
    """A run would need more memory than is available (raised before allocating)."""


class TableFileError(YahtzeeSimError):
    """A table file that cannot be used (wrong size, header or checksum)."""


class PositionError(YahtzeeSimError):
    """A position that the rules cannot produce, or bad advisor input."""


class TargetError(YahtzeeSimError):
    """Bad input to the target-score solver (a β or a cap out of range)."""


class UtilityError(YahtzeeSimError):
    """Bad input to the utility solver (a utility that is not a finite score array,
    a bad number of players or opponent law)."""


class RiskError(YahtzeeSimError):
    """Bad input to the risk-sensitive solver (a θ that is 0, not a number or too large)."""


class ExactEvaluationError(StrategyError):
    """The strategy cannot be evaluated exactly (random, or uses more than the position),
    or the game is out of the evaluator's reach (saved rolls, too many states)."""


class FutureError(YahtzeeSimError):
    """Bad input to :func:`~yahtzee_sim.exact.points_to_come.future_laws`."""


class PairError(YahtzeeSimError):
    """Bad input to :func:`~yahtzee_sim.exact.pairs.evaluate_pair`."""


class ScoreSheetError(YahtzeeSimError):
    """A score sheet the rules cannot produce, or score sheets that cannot occur in one match."""


class DuelError(ScoreSheetError):
    """Bad input to the two-player solver."""


class EndgameTooLarge(DuelError):
    """A position with more open boxes than the endgame solver takes."""


class SelectionError(YahtzeeSimError):
    """Bad parameters for a selection procedure."""


class TournamentError(YahtzeeSimError):
    """Bad tournament input (seats, players, games)."""


class DatasetError(YahtzeeSimError):
    """Bad arguments for a decision dataset (output path, format, sizes)."""


class AnalysisError(YahtzeeSimError):
    """Records that cannot be analyzed together (mixed rules, no decisions)."""


class TableMissingError(AnalysisError):
    """The optimal table of a large game is not solved yet (analysis does not start an
    hour-long solve on its own)."""


class DistillError(YahtzeeSimError):
    """Bad arguments for :func:`~yahtzee_sim.analysis.decisions.distill.distill` (sizes,
    games, seeds)."""


class ReportError(StrategyError):
    """Bad arguments for a report (strategies, games, output folder)."""


class ReproduceError(YahtzeeSimError):
    """Bad arguments for ``reproduce`` (sections, games, output folder)."""


class FigureFormatError(YahtzeeSimError):
    """A figure format that is not one of :data:`~yahtzee_sim.analysis.style.FIGURE_FORMATS`."""


class CliError(YahtzeeSimError):
    """A bad command-line argument."""


class MoveError(YahtzeeSimError):
    """A move the position does not allow (dice not held, a box not open, the game over)."""


class RequestError(YahtzeeSimError):
    """A request whose body is not what the endpoint takes."""


class EndOfInput(YahtzeeSimError):
    """The input ended before the game did."""
