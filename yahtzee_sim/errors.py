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

    The message names the strategy, the game index, the turn, the dice and the action.
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
    ) -> None:
        super().__init__(message)
        self.strategy = strategy
        self.game = game
        self.turn = turn
        self.dice = dice
        self.action = action
