"""Asking a strategy for a decision, with a clear error when the strategy's own code fails.

The engine (solitaire and visible matches), the exact evaluator and
:func:`~yahtzee_sim.strategies.check_strategy` ask strategies through :func:`decide`
and prepare them through :func:`prepare`. An exception raised inside a strategy
becomes a one-line :class:`~yahtzee_sim.errors.StrategyRuntimeError` naming the
strategy, the game, turn, rerolls left and dice, and the file and line of the
strategy's code that raised; the original exception is chained (``__cause__``).
Errors the library raises on purpose (:class:`~yahtzee_sim.errors.YahtzeeSimError`)
pass through unchanged.

A strategy that forks (``os.fork``) while it decides gets the same kind of error, naming
the line that forked; the child process stops as soon as the strategy returns in it, so
it never plays on nor prints (a strategy may still start programs with :mod:`subprocess`).
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import os
import sysconfig
import threading
import traceback
from pathlib import Path

import numpy as np

from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import StrategyRuntimeError, YahtzeeSimError
from yahtzee_sim.game.dice import DiceTables

#: Rows tried one at a time to find the game whose decision raised.
SEARCH_ROWS = 256


#: The sub-packages of yahtzee_sim kept outside the package's folder in a source checkout
#: (``package-dir`` of ``pyproject.toml``); every other sub-package lives inside it.
#: (Named by their last part: the engine names no package above it, even in a string.)
OUTSIDE_SUBPACKAGES = tuple(f"yahtzee_sim.{part}" for part in ("strategies", "analysis"))


@functools.cache
def package_roots() -> tuple[str, ...]:
    """Folders of yahtzee_sim's own code, each ending in ``/``: the package and the
    sub-packages of :data:`OUTSIDE_SUBPACKAGES` (found where Python would import them
    from, without importing them), computed once.

    Nothing here walks ``sys.modules``: another thread may import while an error is being
    reported, and iterating a dict that grows raises ``RuntimeError: dictionary changed
    size during iteration``."""
    roots = {Path(__file__).resolve().parents[1]}
    for name in OUTSIDE_SUBPACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):  # pragma: no cover - a broken install
            spec = None
        roots.update(Path(p).resolve() for p in (spec and spec.submodule_search_locations) or ())
    return tuple(sorted(str(r) + "/" for r in roots))


@functools.cache
def library_roots() -> tuple[str, ...]:
    """Folders of installed libraries and the standard library, each ending in ``/``
    (computed once: ``sysconfig`` fills its tables lazily, unguarded before Python 3.12)."""
    paths = sysconfig.get_paths()
    return tuple(
        sorted({str(Path(paths[k]).resolve()) + "/" for k in ("stdlib", "purelib", "platlib")})
    )


#: The file name cloudpickle gives code it ships to worker processes by value.
DYNAMIC_CODE = "<dynamic-code>"


def user_frame(exc: BaseException, source: str | None = None) -> str:
    """``file:line`` of the innermost frame of ``exc``'s traceback in the user's code:
    outside yahtzee_sim and installed libraries (else outside yahtzee_sim, else the
    innermost frame); ``""`` without a traceback.

    ``source`` names the file of code shipped to a worker process by value (whose
    frames cloudpickle names ``<dynamic-code>``)."""
    return user_location(traceback.extract_tb(exc.__traceback__), source)


def user_location(frames, source: str | None = None) -> str:
    """``file:line`` of the innermost of ``frames`` (``traceback.FrameSummary``, outermost
    first) in the user's code, as :func:`user_frame` picks it; ``""`` without frames."""
    if not frames:
        return ""
    ours, libraries = package_roots(), library_roots()

    def resolved(frame) -> str:
        try:
            return str(Path(frame.filename).resolve())
        except (OSError, ValueError):  # pragma: no cover - odd file names
            return frame.filename

    outside = [f for f in frames if not resolved(f).startswith(ours)]
    users = [f for f in outside if not resolved(f).startswith(libraries)]
    frame = (users or outside or frames)[-1]
    filename = source if frame.filename == DYNAMIC_CODE and source else frame.filename
    return f"{filename}:{frame.lineno}"


def answer_source(strategy, method: str) -> str:
    """``file:line`` where the code that answers ``method`` (``"keep"``, ``"box"``) of
    ``strategy`` is defined: the function a
    :class:`~yahtzee_sim.strategies.FunctionStrategy` was built from (``keep_fn``,
    ``box_fn``), else the class's method; ``""`` when it has no Python code.

    Errors about what a strategy *returned* name this line (no traceback says where a
    value came from)."""
    fn = getattr(strategy, f"{method}_fn", None)
    if not callable(fn):
        fn = getattr(type(strategy), method, None)
    try:
        code = inspect.unwrap(fn).__code__
    except (AttributeError, ValueError, TypeError):
        return ""
    filename = code.co_filename
    if filename == DYNAMIC_CODE:
        filename = getattr(type(strategy), "source_file", None) or filename
    return f"{filename}:{code.co_firstlineno}"


def describe(exc: BaseException) -> str:
    """``"ZeroDivisionError: division by zero"``, on one line."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def take_rows(view: TurnView, rows) -> TurnView:
    """The same decision for the games ``rows`` of the batch only."""
    return TurnView(
        view.rules,
        view.games[rows],
        view.dice[rows],
        view.roll_index[rows],
        view.rolls_left,
        view.turn,
        view.used[rows],
        view.upper_total[rows],
        view.flag[rows],
        view.score[rows],
        view.box_scores[rows],
        view.strategy_key,
        view.active[rows],
        None if view.match is None else view.match.take(rows),
    )


def _failing_row(strategy, method: str, view: TurnView) -> int | None:
    """The first row (of the first :data:`SEARCH_ROWS`) whose decision alone raises."""
    for i in range(min(len(view), SEARCH_ROWS)):
        try:
            getattr(strategy, method)(take_rows(view, slice(i, i + 1)))
        except Exception:
            return i
    return None


def runtime_error(strategy, what: str, exc: Exception, view: TurnView | None = None):
    """The :class:`StrategyRuntimeError` for ``exc`` raised by ``strategy``'s ``what``
    (``"keep()"``, ``"box()"``, ``"prepare()"``) at ``view`` (if any)."""
    name = strategy_label(strategy)
    where = user_frame(exc, getattr(type(strategy), "source_file", None))
    msg = f"strategy {name!r}: {what} raised {describe(exc)}" + (f" at {where}" if where else "")
    context: dict = {}
    if view is not None and len(view):
        method = "keep" if view.rolls_left else "box"
        i = _failing_row(strategy, method, view)
        context = {"turn": view.turn + 1, "rolls_left": view.rolls_left}
        if i is None:  # only the whole batch fails
            first, last = int(view.games[0]), int(view.games[-1])
            msg += f", in the batch of games {first}..{last}"
        else:
            dice = tuple(int(f) for f in DiceTables.faces_from_counts(view.dice[i]))
            context.update(game=int(view.games[i]), dice=dice)
            msg += f", in game {context['game']}"
        msg += f", turn {view.turn + 1}, rolls left {view.rolls_left}"
        if "dice" in context:
            msg += f": dice {list(context['dice'])}"
    return StrategyRuntimeError(msg, strategy=name, where=where, **context)


class _Calls(threading.local):
    """This thread's calls into a strategy: how deep, and the lines that forked in them."""

    depth = 0
    forked: list | None = None
    in_child = False


_CALLS = _Calls()


def _forked_in_parent() -> None:
    """``os.fork`` returned in the parent: note where, if a strategy was deciding."""
    if _CALLS.depth:
        _CALLS.forked = [*(_CALLS.forked or []), user_location(traceback.extract_stack()[:-1])]


def _forked_in_child() -> None:
    if _CALLS.depth:
        _CALLS.in_child = True


os.register_at_fork(after_in_parent=_forked_in_parent, after_in_child=_forked_in_child)

#: Exit status of a child process a strategy forked, stopped when the strategy returns.
FORKED_CHILD_EXIT = 2


def _call(strategy, method: str, what: str, view: TurnView | None, *args):
    """``strategy.<method>(*args)``; an exception becomes :func:`runtime_error`, a fork a
    :class:`StrategyRuntimeError` (the child process stops here, silently)."""
    _CALLS.depth += 1
    try:
        return getattr(strategy, method)(*args)
    except YahtzeeSimError:
        raise
    except Exception as exc:
        raise runtime_error(strategy, what, exc, view) from exc
    finally:
        _CALLS.depth -= 1
        if _CALLS.in_child:
            os._exit(FORKED_CHILD_EXIT)  # no flush, no atexit: the parent's output stays its own
        if _CALLS.forked and not _CALLS.depth:
            where, _CALLS.forked = _CALLS.forked[0], None
            raise forked_error(strategy, what, where, view)


def forked_error(strategy, what: str, where: str, view: TurnView | None) -> StrategyRuntimeError:
    """The error for a strategy whose ``what`` (``"keep()"``) forked at ``where`` (a
    line of code shipped to a worker process by value names the strategy's file)."""
    source = getattr(type(strategy), "source_file", None)
    if source and where.startswith(DYNAMIC_CODE + ":"):
        where = source + where[len(DYNAMIC_CODE) :]
    name = strategy_label(strategy)
    msg = f"strategy {name!r}: {what} forked a child process (os.fork)"
    msg += f" at {where}" if where else ""
    context: dict = {}
    if view is not None and len(view):
        context = {"turn": view.turn + 1, "rolls_left": view.rolls_left}
        first, last = int(view.games[0]), int(view.games[-1])
        msg += f", in the batch of games {first}..{last}, turn {view.turn + 1}"
        msg += f", rolls left {view.rolls_left}"
    msg += "; a strategy must not fork (the child was stopped)"
    return StrategyRuntimeError(msg, strategy=name, where=where, **context)


def decide(strategy, view: TurnView) -> np.ndarray:
    """``strategy.keep(view)`` when ``view.rolls_left > 0``, else
    ``strategy.box(view)``, as returned (callers check the shape and legality).

    Raises
    ------
    StrategyRuntimeError
        If the strategy's code raised (the original exception is the ``__cause__``) or
        forked.
    """
    method = "keep" if view.rolls_left else "box"
    return _call(strategy, method, f"{method}()", view, view)


def prepare(strategy, rules) -> None:
    """``strategy.prepare(rules)`` (if it has one); its errors as in :func:`decide`."""
    if getattr(strategy, "prepare", None) is None:
        return
    _call(strategy, "prepare", "prepare()", None, rules)
