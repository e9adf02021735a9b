"""Argument checks, declared once.

A *constraint* says what an argument must be: :class:`Integer`, :class:`Real`,
:class:`Boolean`, :class:`OneOf` or :class:`InstanceOf`. :func:`check` holds one value to
a constraint and returns it normalised (a Python ``int``, ``float`` or ``bool``);
:func:`validate_params` declares the constraints of a function's arguments by name, and
checks them at every call before the function runs. Either raises the caller's own error
class (a :class:`~yahtzee_sim.errors.YahtzeeSimError` unless told otherwise) with a
one-line message naming the argument, what it must be and what it got::

    n_games must be an integer >= 1, got 0

:func:`renamed_arguments` keeps the old name of a renamed keyword argument working, with
a :class:`DeprecationWarning` naming the new one.

A ``bool`` is never an integer or a number here; NumPy integers and floats are.

Examples
--------
>>> import numpy as np
>>> from yahtzee_sim.validation import Integer, check, validate_params
>>> check("n_games", np.int64(5), Integer(1))
5
>>> @validate_params({"players": Integer(2)})
... def seats(players: int = 2) -> list[int]:
...     return list(range(players))
>>> seats(True)
Traceback (most recent call last):
    ...
yahtzee_sim.errors.YahtzeeSimError: players must be an integer >= 2, got True
"""

from __future__ import annotations

import functools
import inspect
import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass
from typing import Any, Literal, TypeVar

import numpy as np

from yahtzee_sim.errors import YahtzeeSimError, quoted

__all__ = [
    "Boolean",
    "Constraint",
    "InstanceOf",
    "Integer",
    "OneOf",
    "Real",
    "check",
    "renamed_arguments",
    "validate_params",
]

F = TypeVar("F", bound=Callable[..., Any])

#: The types an integer may have (``bool`` is refused separately).
INTEGER_TYPES = (int, np.integer)
#: The types a real number may have (``bool`` is refused separately).
REAL_TYPES = (int, float, np.integer, np.floating)


class Constraint:
    """What a value must be: the base class of every constraint.

    A subclass defines :meth:`accepts` and :meth:`what`, and :meth:`normalise` when an
    accepted value has a plainer form. Its ``description``, when set, replaces
    :meth:`what` in messages (``"in 0..2 with dice"``).
    """

    description: str | None = None

    def accepts(self, value: object) -> bool:
        """Whether ``value`` satisfies the constraint."""
        raise NotImplementedError

    def normalise(self, value: Any) -> Any:
        """An accepted value in its plain form (here: unchanged)."""
        return value

    def what(self) -> str:
        """What a value must be, as the message says it (``"an integer >= 1"``)."""
        raise NotImplementedError

    def describe(self) -> str:
        """``description`` if set, else :meth:`what`."""
        return self.description or self.what()


@dataclass(frozen=True)
class Integer(Constraint):
    """An integer (Python or NumPy, never a ``bool``) within optional bounds.

    Parameters
    ----------
    minimum, maximum : int, optional
        Inclusive bounds (``None``: unbounded on that side).
    nonzero : bool
        Refuse 0.
    description : str, optional
        What the message says the value must be, in place of the generated words.
    """

    minimum: int | None = None
    maximum: int | None = None
    _: KW_ONLY
    nonzero: bool = False
    description: str | None = None

    def accepts(self, value: object) -> bool:
        """Whether ``value`` is an integer (not a ``bool``) within the bounds."""
        if isinstance(value, bool) or not isinstance(value, INTEGER_TYPES):
            return False
        return (
            (self.minimum is None or value >= self.minimum)
            and (self.maximum is None or value <= self.maximum)
            and not (self.nonzero and value == 0)
        )

    def normalise(self, value: Any) -> int:
        """The value as a Python ``int``."""
        return int(value)

    def what(self) -> str:
        """``"an integer >= 1"``, ``"an integer from 1 to 10"``, ``"a non-zero integer"``."""
        noun = "a non-zero integer" if self.nonzero else "an integer"
        return noun + _bounds_words(self.minimum, self.maximum)


@dataclass(frozen=True)
class Real(Constraint):
    """A real number (Python or NumPy integer or float, never a ``bool``) within
    optional bounds.

    Parameters
    ----------
    minimum, maximum : float, optional
        Bounds (``None``: unbounded on that side).
    closed : {"both", "left", "right", "neither"}
        Which bounds are included.
    finite : bool
        Refuse infinities and NaN.
    description : str, optional
        What the message says the value must be, in place of the generated words.
    """

    minimum: float | None = None
    maximum: float | None = None
    _: KW_ONLY
    closed: Literal["both", "left", "right", "neither"] = "both"
    finite: bool = True
    description: str | None = None

    def accepts(self, value: object) -> bool:
        """Whether ``value`` is a number (not a ``bool``) within the bounds."""
        if isinstance(value, bool) or not isinstance(value, REAL_TYPES):
            return False
        try:
            x = float(value)
        except OverflowError:  # an int too large for a float
            return False
        if self.finite and not math.isfinite(x):
            return False
        low = self.minimum is None or (
            x >= self.minimum if self.closed in ("both", "left") else x > self.minimum
        )
        high = self.maximum is None or (
            x <= self.maximum if self.closed in ("both", "right") else x < self.maximum
        )
        return low and high

    def normalise(self, value: Any) -> float:
        """The value as a Python ``float``."""
        return float(value)

    def what(self) -> str:
        """``"a number in (0, 100)"``, ``"a finite number > 0"``, ``"a number"``."""
        lo, hi = self.minimum, self.maximum
        left = self.closed in ("both", "left")
        right = self.closed in ("both", "right")
        if lo is not None and hi is not None:
            return f"a number in {'[' if left else '('}{lo}, {hi}{']' if right else ')'}"
        noun = "a finite number" if self.finite else "a number"
        if lo is not None:
            return f"{noun} {'>=' if left else '>'} {lo}"
        if hi is not None:
            return f"{noun} {'<=' if right else '<'} {hi}"
        return noun


@dataclass(frozen=True)
class Boolean(Constraint):
    """``True`` or ``False`` (a Python or NumPy ``bool``; never 0 or 1).

    Parameters
    ----------
    description : str, optional
        What the message says the value must be (``"true or false"`` for JSON).
    """

    _: KW_ONLY
    description: str | None = None

    def accepts(self, value: object) -> bool:
        """Whether ``value`` is a ``bool``."""
        return isinstance(value, (bool, np.bool_))

    def normalise(self, value: Any) -> bool:
        """The value as a Python ``bool``."""
        return bool(value)

    def what(self) -> str:
        """``"True or False"``."""
        return "True or False"


@dataclass(frozen=True, init=False)
class OneOf(Constraint):
    """One of a few values (``OneOf("penalty", "raise")``).

    A value matches an option it equals and is of the kind of: a NumPy integer matches an
    ``int``, a ``bool`` only a ``bool`` (``OneOf(0, 1)`` refuses ``False``), anything else
    an instance of the option's type.
    """

    options: tuple[Any, ...]
    description: str | None

    def __init__(self, *options: Any, description: str | None = None) -> None:
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "description", description)

    def accepts(self, value: object) -> bool:
        """Whether ``value`` is one of the options."""
        return any(_same(value, option) for option in self.options)

    def what(self) -> str:
        """``"one of penalty, raise"``."""
        return "one of " + ", ".join(str(option) for option in self.options)


@dataclass(frozen=True)
class InstanceOf(Constraint):
    """An instance of a type (``InstanceOf(str, description="a string")``); use
    :class:`Integer`, :class:`Real` or :class:`Boolean` for numbers and truth values."""

    kind: type | tuple[type, ...]
    _: KW_ONLY
    description: str | None = None

    def accepts(self, value: object) -> bool:
        """Whether ``isinstance(value, kind)``."""
        return isinstance(value, self.kind)

    def what(self) -> str:
        """``"a str"``, or ``"a str or a list"`` for several types."""
        kinds = self.kind if isinstance(self.kind, tuple) else (self.kind,)
        return " or ".join(f"a {k.__name__}" for k in kinds)


def check(
    name: str,
    value: Any,
    constraint: Constraint,
    error: type[Exception] = YahtzeeSimError,
) -> Any:
    """``value`` normalised if it satisfies ``constraint``; else ``error`` with a one-line
    message.

    Parameters
    ----------
    name : str
        The argument as the message names it (``"n_games"``, ``"'rolls_left'"``).
    value : object
        The value to check.
    constraint : Constraint
        What the value must be.
    error : type of Exception
        The class raised (the caller's own, e.g. ``TargetError``); it takes the message
        as its one positional argument.

    Returns
    -------
    object
        The value in its plain form (``Integer``: ``int``; ``Real``: ``float``;
        ``Boolean``: ``bool``; otherwise unchanged).

    Raises
    ------
    error
        ``"{name} must be {what}, got {value!r}"`` (a long ``repr`` cut to 60 characters).
    """
    if not constraint.accepts(value):
        raise error(f"{name} must be {constraint.describe()}, got {quoted(value)}")
    return constraint.normalise(value)


def validate_params(
    constraints: Mapping[str, Constraint],
    error: type[Exception] = YahtzeeSimError,
) -> Callable[[F], F]:
    """Decorator: check the named arguments of every call with :func:`check`.

    The function receives each checked argument normalised. An argument left out, or
    given as its default object itself (``None`` for ``prune_to=None``), is not checked:
    the default is trusted.

    Parameters
    ----------
    constraints : mapping of str to Constraint
        Each argument's constraint, by parameter name.
    error : type of Exception
        The class raised for a refused argument.

    Raises
    ------
    TypeError
        At decoration, for a name that is not a parameter of the function.
    """

    def decorate(func: F) -> F:
        plan = _plan(func, constraints)

        @functools.wraps(func)
        def checked(*args: Any, **kwargs: Any) -> Any:
            if args:
                args = list(args)  # type: ignore[assignment]
            for name, index, constraint, default in plan:
                if index is not None and index < len(args):
                    value = args[index]
                    if value is not default:
                        args[index] = check(name, value, constraint, error)  # type: ignore[index]
                elif name in kwargs:
                    value = kwargs[name]
                    if value is not default:
                        kwargs[name] = check(name, value, constraint, error)
            return func(*args, **kwargs)

        return checked  # type: ignore[return-value]

    return decorate


def renamed_arguments(**old_to_new: str) -> Callable[[F], F]:
    """Decorator: accept each old keyword argument as its new name, with a
    :class:`DeprecationWarning` naming the new one.

    Parameters
    ----------
    **old_to_new : str
        The old keyword and the parameter it is now called.

    Returns
    -------
    callable
        A decorator that leaves the function's name, docstring and signature as they were.
        Both spellings at once are a :class:`TypeError`, as any argument given twice.

    Examples
    --------
    >>> import warnings
    >>> @renamed_arguments(simulate="n_playouts")
    ... def play(n_playouts: int = 0) -> int:
    ...     return n_playouts
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     play(simulate=3)
    3
    """

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def renamed(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old not in kwargs:
                    continue
                if new in kwargs:
                    raise TypeError(f"{func.__name__}() got both {old}= and {new}=; give {new}=")
                warnings.warn(
                    f"{func.__name__}(): {old}= is now called {new}=",
                    DeprecationWarning,
                    stacklevel=2,
                )
                kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return renamed  # type: ignore[return-value]

    return decorate


def _plan(
    func: Callable[..., Any], constraints: Mapping[str, Constraint]
) -> tuple[tuple[str, int | None, Constraint, Any], ...]:
    """``(name, position or None, constraint, default)`` of each declared argument."""
    params = list(inspect.signature(func).parameters.values())
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    plan = []
    for name, constraint in constraints.items():
        index = next((i for i, p in enumerate(params) if p.name == name), None)
        if index is None or params[index].kind in (
            inspect.Parameter.VAR_POSITIONAL,
            inspect.Parameter.VAR_KEYWORD,
        ):
            raise TypeError(f"{func.__qualname__} has no parameter {name!r} to check")
        param = params[index]
        position = index if param.kind in positional else None
        plan.append((name, position, constraint, param.default))
    return tuple(plan)


def _bounds_words(minimum: float | None, maximum: float | None) -> str:
    """``" >= 1"``, ``" <= 9"``, ``" from 1 to 9"`` or ``""``."""
    if minimum is not None and maximum is not None:
        return f" from {minimum} to {maximum}"
    if minimum is not None:
        return f" >= {minimum}"
    if maximum is not None:
        return f" <= {maximum}"
    return ""


def _family(x: object) -> type | None:
    """``bool``, ``int`` or ``float`` for a Python or NumPy bool, integer or float; else
    ``None``."""
    if isinstance(x, (bool, np.bool_)):
        return bool
    if isinstance(x, INTEGER_TYPES):
        return int
    if isinstance(x, (float, np.floating)):
        return float
    return None


def _same(value: object, option: object) -> bool:
    """``value`` equals ``option`` and is of its kind: the same family of numbers or
    truth values (a NumPy integer matches an ``int``, a ``bool`` only a ``bool``), else an
    instance of the option's type."""
    family = _family(option)
    if family is not None:
        return _family(value) is family and bool(value == option)
    return isinstance(value, type(option)) and bool(value == option)
