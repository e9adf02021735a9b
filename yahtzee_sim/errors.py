"""Exception types. Every user-facing error is a :class:`ValueError` subclass."""

from __future__ import annotations


def quoted(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters: how an error quotes what it refuses."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class YahtzeeSimError(ValueError):
    """Base class of every error raised for bad input."""


class RulesError(YahtzeeSimError):
    """An unknown preset, a bad override or an inconsistent rule set."""


class StrategyError(YahtzeeSimError):
    """An unknown strategy id, or a strategy that cannot be loaded or built."""


class IllegalMoveError(YahtzeeSimError):
    """A strategy returned a decision the rules do not allow.

    The message names the strategy, the ``file:line`` of the code that returned the
    decision, the game index, the turn, the dice and the action as the strategy returned
    it (before any conversion).

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

    def __init__(
        self,
        message: str,
        *,
        strategy: str = "",
        game: int = -1,
        turn: int = -1,
        dice: tuple[int, ...] = (),
        action: object = None,
        where: str = "",
    ) -> None:
        super().__init__(message)
        self.strategy = strategy
        self.game = game
        self.turn = turn
        self.dice = dice
        self.action = action
        self.where = where


class StrategyRuntimeError(StrategyError):
    """A strategy's own code raised an exception while preparing or deciding.

    The message is one line: the strategy's label, what raised (``keep()``,
    ``box()``, ``prepare()``) and the original exception, the file and line of the
    strategy's code, and the game, turn, rerolls left and dice. The original exception
    is chained as ``__cause__`` (in the process where it was raised; the message alone
    crosses to the parent of a worker process).

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

    def __init__(
        self,
        message: str,
        *,
        strategy: str = "",
        where: str = "",
        game: int = -1,
        turn: int = -1,
        rolls_left: int = -1,
        dice: tuple[int, ...] = (),
    ) -> None:
        super().__init__(message)
        self.strategy = strategy
        self.where = where
        self.game = game
        self.turn = turn
        self.rolls_left = rolls_left
        self.dice = dice


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
