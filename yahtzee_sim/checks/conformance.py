"""The conformance checks of a strategy: one function per property a strategy must have.

Every check is a public function ``check_NAME(strategy, rules, ...)`` that returns one line
saying what it verified, or raises :class:`StrategyCheckError` naming the check, the
strategy and where it failed. They are declared once, in :data:`CHECK_FUNCTIONS` (name →
function, in order); :data:`CHECKS` is their names. :mod:`yahtzee_sim.checks.running` runs
them.

The checks (:data:`CHECKS`, in order):

``legal_moves``
    Complete games with only legal moves (the engine validates every answer).
``reproducible``
    The same seed gives bit-identical games whatever the block size and the number of jobs.
``batch_independent``
    Decisions on random positions equal those made one game at a time.
``clone_and_repr``
    The constructor stores its parameters only: ``clone()`` and a new instance from
    ``get_params()`` have the same parameters, the same ``repr`` (which starts with the class
    name) and the same decisions.
``picklable``
    A pickle round trip keeps the parameters, the label and the decisions.
``declared_deterministic``
    A strategy that declares ``deterministic = True`` decides the same twice, and
    whatever its random stream (``TurnView.uniform``) holds.
``declared_uses_total``
    A strategy that declares ``uses_total = False`` decides the same whatever the score
    so far.
``refuses_unsupported_rules``
    On a rule preset its ``supports`` rejects, the strategy is refused before play with a
    one-line ``StrategyError``, not with an error from inside its code.

Examples
--------
>>> from yahtzee_sim.checks import CHECKS, check_strategy
>>> CHECKS[:3]
('legal_moves', 'reproducible', 'batch_independent')
>>> lines = check_strategy("greedy", rules="2-yatzy", n_games=50, n_positions=20)
>>> len(lines) == len(CHECKS)
True
"""

from __future__ import annotations

import functools
import pickle
from collections.abc import Callable

import numpy as np

from yahtzee_sim.checks.positions import random_views
from yahtzee_sim.engine.decide import decide, take_rows
from yahtzee_sim.engine.simulate import simulate
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import (
    StrategyCheckError,
    StrategyError,
    StrategyRuntimeError,
    YahtzeeSimError,
)
from yahtzee_sim.game.rules import PRESETS, RuleSet, get_rules


def _fail(check: str, strategy, what: str) -> StrategyCheckError:
    return StrategyCheckError(f"check_strategy({strategy_label(strategy)}): {check}: {what}")


def _layers(rules: RuleSet) -> range:
    """Every ``rolls_left`` of a turn, the box decision (0) last."""
    return range(rules.rolls_per_turn - 1, -1, -1)


def _decisions(strategy, view: TurnView) -> np.ndarray:
    return np.asarray(decide(strategy, view))


def _compare_on_positions(
    check: str, strategy, other, rules, n_positions: int, seed: int, what: str, **view_args
) -> None:
    """Raise unless ``strategy`` on the positions equals ``other(rolls_left)``'s answer."""
    for rolls_left in _layers(rules):
        view = random_views(rules, n_positions, seed + rolls_left, rolls_left)
        mine = _decisions(strategy, view)
        theirs = other(view)
        if not np.array_equal(mine, theirs):
            row = int(np.argmax((mine != theirs).reshape(len(mine), -1).any(axis=1)))
            raise _fail(check, strategy, f"{what} (rolls_left={rolls_left}, position {row})")


def _same_decisions(
    check: str, strategy, twin, rules, n_positions: int, seed: int, what: str
) -> None:
    """Raise unless ``twin`` decides as ``strategy`` on the random positions."""
    _compare_on_positions(
        check, strategy, functools.partial(_decisions, twin), rules, n_positions, seed, what
    )


def _play(check: str, strategy, rules, n_games: int, seed: int, **kwargs):
    """Simulated games; an engine error (an illegal move, a bad shape) fails ``check``."""
    try:
        return simulate(strategy, n_games, seed=seed, rules=rules, progress=False, **kwargs)
    except StrategyRuntimeError:
        raise
    except YahtzeeSimError as exc:
        raise _fail(check, strategy, f"could not play legal games: {exc}") from exc


# ------------------------------------------------------------------ the checks
def check_legal_moves(strategy, rules, *, n_games: int = 300, seed: int = 0, **_) -> str:
    """Play ``n_games`` complete games; the engine validates every move.

    Returns
    -------
    str
        What was verified.

    Raises
    ------
    StrategyCheckError
        An illegal keep or box, or an answer of the wrong shape or type.
    StrategyRuntimeError
        The strategy's own code raised.
    """
    res = _play("legal_moves", strategy, rules, n_games, seed)
    if not (res.filled_turn >= 0).all():
        raise _fail("legal_moves", strategy, "a game ended with an open box")
    return f"legal moves: {n_games} complete games on rules {rules.name}"


def check_reproducible(
    strategy, rules, *, n_games: int = 300, seed: int = 0, n_jobs: int = 2, **_
) -> str:
    """The same seed gives bit-identical games in blocks of 97 games, in one block, and
    with ``n_jobs`` workers (processes or threads, as the strategy's
    ``parallel_backend``); the one block by a ``clone()``."""
    runs = {
        "blocks of 97": dict(chunk_size=97),
        f"one block of {n_games}": dict(chunk_size=n_games),
        f"{n_jobs} jobs": dict(n_jobs=n_jobs, chunk_size=max(1, n_games // (2 * n_jobs))),
    }
    first = None
    for k, (how, kwargs) in enumerate(runs.items()):
        played = strategy.clone() if k == 1 else strategy
        try:
            res = _play("reproducible", played, rules, n_games, seed, **kwargs)
        except (StrategyCheckError, StrategyRuntimeError):
            raise
        except Exception as exc:  # e.g. the strategy cannot travel to worker processes
            raise _fail(
                "reproducible", strategy, f"could not play in {how}: {type(exc).__name__}: {exc}"
            ) from exc
        got = (res.total, res.filled_turn)
        if first is None:
            first, first_how = got, how
        elif not all(np.array_equal(a, b) for a, b in zip(first, got, strict=True)):
            raise _fail(
                "reproducible",
                strategy,
                f"the same seed gave different games in {first_how} and in {how} "
                "(randomness outside TurnView.uniform, or state kept between calls?)",
            )
    return f"reproducible: seed {seed} gave bit-identical games in {', '.join(runs)}"


def check_batch_independent(strategy, rules, *, n_positions: int = 200, seed: int = 0, **_) -> str:
    """Decisions on ``n_positions`` random positions (50 of them one at a time) equal the
    batched decisions, at every ``rolls_left``."""
    singles = min(n_positions, 50)
    for rolls_left in _layers(rules):
        view = random_views(rules, n_positions, seed + rolls_left, rolls_left)
        batched = _decisions(strategy, view)[:singles]
        single = np.concatenate(
            [_decisions(strategy, take_rows(view, slice(i, i + 1))) for i in range(singles)]
        )
        if not np.array_equal(single, batched):
            row = int(np.argmax((single != batched).reshape(singles, -1).any(axis=1)))
            raise _fail(
                "batch_independent",
                strategy,
                f"batched decisions differ from one-game decisions "
                f"(rolls_left={rolls_left}, position {row})",
            )
    return f"batch-independent: {singles} positions decided one at a time agree with the batch"


def _same_params(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(repr(a[k]) == repr(b[k]) for k in a)


def check_clone_and_repr(strategy, rules, *, n_positions: int = 200, seed: int = 0, **_) -> str:
    """``clone()`` and ``type(s)(**s.get_params())`` have the same parameters, ``repr``
    and decisions as the strategy, and the ``repr`` starts with the class name."""
    text = repr(strategy)
    if not text.startswith(type(strategy).__name__):
        raise _fail("clone_and_repr", strategy, f"repr should start with the class name: {text!r}")
    params = strategy.get_params()
    for how, twin in (
        ("clone()", strategy.clone()),
        ("a new instance from get_params()", type(strategy)(**params)),
    ):
        if not _same_params(twin.get_params(), params):
            raise _fail(
                "clone_and_repr",
                strategy,
                f"{how} has parameters {twin.get_params()!r}, not {params!r} (does the "
                "constructor store each parameter unchanged, as an attribute of its name?)",
            )
        if repr(twin) != text:
            raise _fail("clone_and_repr", strategy, f"{how} has repr {repr(twin)!r}, not {text!r}")
        what = f"{how} decides differently"
        _same_decisions("clone_and_repr", strategy, twin, rules, n_positions, seed, what)
    return f"clone and repr from the parameters: {text[:60]}"


def check_picklable(strategy, rules, *, n_positions: int = 200, seed: int = 0, **_) -> str:
    """A pickle round trip keeps the parameters, the label and the decisions."""
    try:
        copy = pickle.loads(pickle.dumps(strategy))
    except Exception as exc:
        raise _fail(
            "picklable", strategy, f"cannot be pickled: {type(exc).__name__}: {exc}"
        ) from exc
    if not _same_params(copy.get_params(), strategy.get_params()):
        raise _fail("picklable", strategy, "the parameters changed in a pickle round trip")
    if strategy_label(copy) != strategy_label(strategy):
        raise _fail("picklable", strategy, f"the label became {strategy_label(copy)!r}")
    what = "decisions changed after a pickle round trip"
    _same_decisions("picklable", strategy, copy, rules, n_positions, seed, what)
    return "picklable: the same parameters, label and decisions after a pickle round trip"


def check_declared_deterministic(
    strategy, rules, *, n_positions: int = 200, seed: int = 0, **_
) -> str:
    """``deterministic = True``: the same decisions twice on random positions, and with
    another random stream. A strategy that declares randomness passes (nothing to check)."""
    if not strategy.deterministic:
        return "declared deterministic: no (decisions may use TurnView.uniform)"
    for rolls_left in _layers(rules):
        view = random_views(rules, n_positions, seed + rolls_left, rolls_left)
        first = _decisions(strategy, view)
        again = _decisions(strategy, view)
        if not np.array_equal(first, again):
            raise _fail(
                "declared_deterministic",
                strategy,
                f"a deterministic strategy changed its decisions (rolls_left={rolls_left})",
            )
        other = random_views(rules, n_positions, seed + rolls_left, rolls_left, (7, 11))
        if not np.array_equal(first, _decisions(strategy, other)):
            raise _fail(
                "declared_deterministic",
                strategy,
                "a deterministic strategy decided differently with another random stream "
                f"(rolls_left={rolls_left})",
            )
    return (
        "declared deterministic: the same decisions twice and on another random stream, "
        f"on {n_positions} positions per rolls_left"
    )


def check_declared_uses_total(
    strategy, rules, *, n_positions: int = 200, seed: int = 0, **_
) -> str:
    """``uses_total = False``: the same decisions whatever the score so far. A strategy
    that declares ``uses_total = True`` passes (nothing to check)."""
    if strategy.uses_total:
        return "declared uses_total: yes (decisions may read the score)"
    scores = np.random.default_rng(seed + 99).integers(0, 400, n_positions)

    def with_score(view: TurnView) -> np.ndarray:
        shifted = random_views(rules, n_positions, seed + view.rolls_left, view.rolls_left)
        shifted = TurnView(
            rules,
            shifted.games,
            shifted.dice,
            shifted.roll_index,
            shifted.rolls_left,
            shifted.turn,
            shifted.used,
            shifted.upper_total,
            shifted.flag,
            scores,
            shifted.box_scores,
            shifted.strategy_key,
        )
        return _decisions(strategy, shifted)

    _compare_on_positions(
        "declared_uses_total",
        strategy,
        with_score,
        rules,
        n_positions,
        seed,
        "declares uses_total = False but decides differently with other scores so far",
    )
    return "declared uses_total: no, and the decisions ignore the score so far"


def check_refuses_unsupported_rules(strategy, rules=None, **_) -> str:
    """On every rule preset ``strategy.supports`` rejects, playing raises a one-line
    :class:`~yahtzee_sim.errors.StrategyError` (not an error from inside its code)."""
    refused = [name for name in PRESETS if not strategy.supports(get_rules(name))]
    for name in refused:
        try:
            simulate(strategy.clone(), 5, rules=name, progress=False)
        except StrategyRuntimeError as exc:
            raise _fail(
                "refuses_unsupported_rules",
                strategy,
                f"rules {name!r}: its code raised instead of a refusal: {exc}",
            ) from exc
        except StrategyError as exc:
            if "\n" in str(exc):
                raise _fail(
                    "refuses_unsupported_rules",
                    strategy,
                    f"rules {name!r}: the refusal should be one line: {str(exc)!r}",
                ) from exc
        else:
            raise _fail(
                "refuses_unsupported_rules",
                strategy,
                f"supports() rejects rules {name!r}, but it played them",
            )
    if not refused:
        return "refuses unsupported rules: it supports every preset"
    return f"refuses unsupported rules: {', '.join(refused)}, each in one line"


#: Every check by name, in the order :func:`~yahtzee_sim.checks.running.strategy_checks`
#: yields them: ``check_NAME`` under ``NAME``.
CHECK_FUNCTIONS: dict[str, Callable[..., str]] = {
    check.__name__.removeprefix("check_"): check
    for check in (
        check_legal_moves,
        check_reproducible,
        check_batch_independent,
        check_clone_and_repr,
        check_picklable,
        check_declared_deterministic,
        check_declared_uses_total,
        check_refuses_unsupported_rules,
    )
}
#: The names of the checks, in order.
CHECKS: tuple[str, ...] = tuple(CHECK_FUNCTIONS)
