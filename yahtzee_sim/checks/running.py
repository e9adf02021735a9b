"""Running the conformance checks: one :class:`StrategyCheck` per named check,
:func:`strategy_checks`, :func:`check_strategy` and the pytest decorator
:func:`parametrize_with_checks`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from yahtzee_sim.checks.conformance import CHECK_FUNCTIONS, CHECKS
from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.engine.strategy import Strategy
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.game.rules import RuleSet, get_rules


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
        if name not in CHECK_FUNCTIONS:
            raise StrategyError(f"unknown check {name!r}; expected one of: {', '.join(CHECKS)}")
        self.name = name
        self.rules = rules
        self.settings = settings

    def __call__(self, strategy: str | Strategy) -> str:
        return CHECK_FUNCTIONS[self.name](get_strategy(strategy), self.rules, **self.settings)

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

        from yahtzee_sim.checks import parametrize_with_checks

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
