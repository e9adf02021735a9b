"""Conformance checks of a strategy, one named check at a time.

Every check is a public function ``check_NAME(strategy, rules, ...)`` that returns one line
saying what it verified, or raises :class:`StrategyCheckError` naming the check, the
strategy and where it failed. :func:`strategy_checks` yields them ready to run;
:func:`parametrize_with_checks` turns them into one pytest test per (strategy, check), for a
user's own test suite; :func:`check_strategy` runs them all.

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
>>> from yahtzee_sim.strategies.checks import CHECKS, check_strategy
>>> CHECKS[:3]
('legal_moves', 'reproducible', 'batch_independent')
>>> lines = check_strategy("greedy", rules="2-yatzy", n_games=50, n_positions=20)
>>> len(lines) == len(CHECKS)
True
"""

from __future__ import annotations

import functools
import pickle
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from yahtzee_sim.engine.decide import decide, take_rows
from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.engine.simulate import simulate
from yahtzee_sim.engine.strategy import Strategy
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import StrategyError, StrategyRuntimeError, YahtzeeSimError
from yahtzee_sim.game.rules import PRESETS, RuleSet, get_rules
from yahtzee_sim.game.state import flag_size

#: The names of the checks, in the order :func:`strategy_checks` yields them.
CHECKS = (
    "legal_moves",
    "reproducible",
    "batch_independent",
    "clone_and_repr",
    "picklable",
    "declared_deterministic",
    "declared_uses_total",
    "refuses_unsupported_rules",
)


class StrategyCheckError(YahtzeeSimError):
    """A strategy failed a conformance check (the message says which and where)."""


def _fail(check: str, strategy, what: str) -> StrategyCheckError:
    return StrategyCheckError(f"check_strategy({strategy_label(strategy)}): {check}: {what}")


# ------------------------------------------------------------------ positions
def random_views(
    rules: RuleSet, n: int, seed: int, rolls_left: int, strategy_key=(1, 2), score=None
) -> TurnView:
    """``n`` random but legal positions with ``rolls_left`` rerolls left.

    Random filled boxes and upper totals consistent with them, a random roll, the
    Yahtzee-bonus flag where the Yahtzee box is filled.

    Parameters
    ----------
    rules : RuleSet
    n : int
        Positions.
    seed : int
        The same seed gives the same positions.
    rolls_left : int
    strategy_key : tuple of two int
        Key of the strategy's random stream (:meth:`TurnView.uniform`).
    score : ndarray, optional
        Points so far of each position (default: 0).

    Returns
    -------
    TurnView
        Games numbered ``0..n-1``; the turn is the largest number of filled boxes.
    """
    rng = np.random.default_rng(seed)
    t = rules.tables
    C = rules.n_boxes
    used = np.zeros(n, dtype=np.int64)
    upper = np.zeros(n, dtype=np.int64)
    flag = np.zeros(n, dtype=np.int64)
    turns = rng.integers(0, C, n)
    for i in range(n):
        filled = rng.choice(C, size=turns[i], replace=False)
        for c in filled:
            used[i] |= 1 << int(c)
            box = rules.boxes[c]
            if box.is_upper:
                upper[i] += box.param * int(rng.integers(0, rules.n_dice + 1))
        yi = rules.yahtzee_index
        if rules.has_yahtzee_flag and yi is not None and (used[i] >> yi) & 1:
            flag[i] = int(rng.integers(0, flag_size(rules)))
    rolls = rng.integers(0, t.n_rolls, n).astype(np.int32)
    return TurnView(
        rules,
        np.arange(n, dtype=np.int64),
        t.roll_counts[rolls],
        rolls,
        rolls_left,
        int(turns.max()),
        used,
        upper,
        flag,
        np.zeros(n, dtype=np.int64) if score is None else np.asarray(score, dtype=np.int64),
        np.zeros((n, C), dtype=np.int16),
        tuple(np.uint64(k) for k in strategy_key),
    )


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
        _compare_on_positions(
            "clone_and_repr",
            strategy,
            functools.partial(_decisions, twin),
            rules,
            n_positions,
            seed,
            f"{how} decides differently",
        )
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
    _compare_on_positions(
        "picklable",
        strategy,
        functools.partial(_decisions, copy),
        rules,
        n_positions,
        seed,
        "decisions changed after a pickle round trip",
    )
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


_FUNCTIONS: dict[str, Callable[..., str]] = {
    "legal_moves": check_legal_moves,
    "reproducible": check_reproducible,
    "batch_independent": check_batch_independent,
    "clone_and_repr": check_clone_and_repr,
    "picklable": check_picklable,
    "declared_deterministic": check_declared_deterministic,
    "declared_uses_total": check_declared_uses_total,
    "refuses_unsupported_rules": check_refuses_unsupported_rules,
}


# ------------------------------------------------------------------ running them
class StrategyCheck:
    """One named check with its settings, called with the strategy to check.

    ``check(strategy)`` returns the line saying what was verified, or raises
    :class:`StrategyCheckError` (or :class:`~yahtzee_sim.errors.StrategyRuntimeError` when the
    strategy's own code raised).

    Attributes
    ----------
    name : str
        One of :data:`CHECKS`.
    rules : RuleSet
        The rules the check plays.
    settings : dict
        ``n_games``, ``n_positions``, ``seed`` and ``n_jobs``.
    """

    def __init__(self, name: str, rules: RuleSet, **settings) -> None:
        if name not in _FUNCTIONS:
            raise StrategyError(f"unknown check {name!r}; expected one of: {', '.join(CHECKS)}")
        self.name = name
        self.rules = rules
        self.settings = settings

    def __call__(self, strategy: str | Strategy) -> str:
        return _FUNCTIONS[self.name](get_strategy(strategy), self.rules, **self.settings)

    def __repr__(self) -> str:
        return f"check_{self.name}"


def strategy_checks(
    rules="yahtzee",
    n_games: int = 300,
    n_positions: int = 200,
    seed: int = 0,
    n_jobs: int = 2,
    checks: Iterable[str] = CHECKS,
) -> Iterator[StrategyCheck]:
    """The checks of :data:`CHECKS` (or of ``checks``), one :class:`StrategyCheck` each.

    Parameters
    ----------
    rules : str or RuleSet
        The rules the checks play.
    n_games : int
        Games played by ``legal_moves`` and ``reproducible``.
    n_positions : int
        Random positions per ``rolls_left`` of the decision checks.
    seed : int
    n_jobs : int
        Workers of the ``reproducible`` check's parallel run.
    checks : iterable of str
        Names of the checks to yield (default: all, in order).

    Yields
    ------
    StrategyCheck
        Call it with a strategy (an instance, an id or ``FILE.py:CLASS``).
    """
    rules = get_rules(rules)
    for name in checks:
        yield StrategyCheck(
            name, rules, n_games=n_games, n_positions=n_positions, seed=seed, n_jobs=n_jobs
        )


def check_strategy(
    strategy: str | Strategy,
    rules="yahtzee",
    n_games: int = 300,
    n_positions: int = 200,
    seed: int = 0,
    n_jobs: int = 2,
) -> list[str]:
    """Run every check of :data:`CHECKS` on ``strategy``; stop at the first failure.

    Parameters
    ----------
    strategy : str or Strategy
        An instance, a registry id or ``FILE.py:CLASS``.
    rules : str or RuleSet
    n_games, n_positions, seed, n_jobs
        As :func:`strategy_checks`.

    Returns
    -------
    list of str
        One line per check passed, saying what was verified.

    Raises
    ------
    StrategyCheckError
        Naming the check that failed, the strategy's label and where.
    StrategyRuntimeError
        If the strategy's own code raised.
    """
    strategy = get_strategy(strategy)
    return [check(strategy) for check in strategy_checks(rules, n_games, n_positions, seed, n_jobs)]


def parametrize_with_checks(
    strategies: Iterable[str | Strategy],
    rules: str | RuleSet | Callable[[Strategy], str | RuleSet] = "yahtzee",
    **settings,
):
    """A pytest decorator giving one test per (strategy, check).

    The decorated test takes the arguments ``strategy`` and ``check`` and calls
    ``check(strategy)``; test ids read ``STRATEGY-check_NAME``.

    Parameters
    ----------
    strategies : iterable of str or Strategy
        Instances, registry ids or ``FILE.py:CLASS`` specs.
    rules : str, RuleSet or callable
        The rules the checks play, or a function of the strategy giving them.
    **settings
        ``n_games``, ``n_positions``, ``seed``, ``n_jobs``, ``checks`` (as
        :func:`strategy_checks`).

    Returns
    -------
    pytest.MarkDecorator

    Examples
    --------
    In a test module of your own project::

        from yahtzee_sim.strategies.checks import parametrize_with_checks

        @parametrize_with_checks([MyStrategy(), MyStrategy(depth=3)])
        def test_my_strategy(strategy, check):
            check(strategy)
    """
    import pytest

    params = []
    for item in strategies:
        strategy = get_strategy(item)
        label = item if isinstance(item, str) else repr(strategy)
        chosen = rules(strategy) if callable(rules) else rules
        for check in strategy_checks(chosen, **settings):
            params.append(pytest.param(strategy, check, id=f"{label}-{check!r}"))
    return pytest.mark.parametrize(("strategy", "check"), params)
