"""The plan of a report: its arguments checked and its strategies resolved once, before any work.

:func:`plan_report` checks every argument of
:func:`~yahtzee_sim.analysis.report.build.build_report`, resolves the strategies (each id
or plugin spec looked up once, the reference added), finds the deterministic ones (those
the exact stage takes) and reads the results kept for them (in the table cache or shipped
with the package, :mod:`~yahtzee_sim.analysis.report.exact_cache`). Every stage of the
report reads the :class:`ReportPlan` and looks none of it up again.
"""

from __future__ import annotations

from dataclasses import dataclass

from yahtzee_sim.analysis.report import exact_cache
from yahtzee_sim.analysis.report.tables import REFERENCE
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.errors import ReportError
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.validation import Boolean, Integer, validate_params

__all__ = [
    "DEFAULT_GAMES",
    "QUICK_GAMES",
    "ReportPlan",
    "is_deterministic",
    "plan_report",
    "resolve_strategies",
]

DEFAULT_GAMES = 100_000
QUICK_GAMES = 10_000


@dataclass(frozen=True, eq=False)
class ReportPlan:
    """What a report computes, resolved once: every stage reads it.

    Attributes
    ----------
    rules : RuleSet
    strategies : dict
        The strategy of each label, in the order asked, the reference last.
    deterministic : tuple of str
        The labels of the strategies the exact stage takes, in that order.
    keys : dict
        The table cache's key of each deterministic strategy's results (``None``: not
        kept, e.g. a strategy without a stable source).
    cached : dict
        ``(exact result, regret)`` of each deterministic strategy whose results are kept
        in the table cache or shipped with the package.
    games, seed, n_jobs, top : int
        Simulated games per strategy, master seed, parallel jobs, costliest situations
        listed per strategy.
    quick, simulate_all, progress : bool
        As :func:`~yahtzee_sim.analysis.report.build.build_report` takes them.
    """

    rules: RuleSet
    strategies: dict
    deterministic: tuple[str, ...]
    keys: dict
    cached: dict
    games: int
    seed: int
    n_jobs: int
    top: int
    quick: bool
    simulate_all: bool
    progress: bool

    @property
    def evaluations(self) -> int:
        """How many deterministic strategies the exact stage evaluates: those whose results
        are neither kept nor shipped."""
        return len(self.deterministic) - len(self.cached)


def resolve_strategies(strategies) -> dict:
    """``{label: strategy}`` in the order given (ids, plugin specs or instances, each
    looked up once), the reference last; results are keyed by
    :func:`~yahtzee_sim.engine.summary.strategy_label`."""
    from yahtzee_sim.engine.plugins import split_strategy_list
    from yahtzee_sim.strategies import default_strategy_ids, get_strategy

    if strategies in (None, "all"):
        ids = default_strategy_ids()
    else:
        ids = split_strategy_list(strategies) if isinstance(strategies, str) else list(strategies)
        ids = [s for s in ids if not isinstance(s, str) or s.strip()]
        if not ids:
            raise ReportError("strategies: give 'all' or at least one strategy id")
    # unknown ids fail here, with the list of known ones
    objs = [get_strategy(s) for s in ids]
    labels = [strategy_label(o) for o in objs]
    if len(set(labels)) != len(labels):
        raise ReportError(f"strategies must have distinct labels, got {labels}")
    resolved = dict(zip(labels, objs, strict=True))
    if REFERENCE not in resolved:
        resolved[REFERENCE] = get_strategy(REFERENCE)  # the reference of the per-box tables
    return resolved


@validate_params(
    {
        "n_games": Integer(100),
        "seed": Integer(0),
        "n_jobs": Integer(nonzero=True, description="a non-zero integer (-1 = all cores)"),
        "regret_top": Integer(0),
        "progress": Boolean(),
        "quick": Boolean(),
        "simulate_all": Boolean(),
    },
    ReportError,
)
def plan_report(
    rules: str | RuleSet = "yahtzee",
    strategies="all",
    n_games: int | None = None,
    seed: int = 0,
    n_jobs: int = 2,
    regret_top: int = 10,
    progress: bool = True,
    quick: bool = False,
    simulate_all: bool = False,
) -> ReportPlan:
    """The plan of :func:`~yahtzee_sim.analysis.report.build.build_report` with these
    arguments (the same, with the same defaults): every argument checked, the strategies
    resolved, the results kept for the deterministic ones read.

    Raises
    ------
    ReportError
        For a bad argument (``RulesError``, ``StrategyError`` for unknown rules or
        strategies).
    """
    rules = get_rules(rules)
    games = (QUICK_GAMES if quick else DEFAULT_GAMES) if n_games is None else n_games
    resolved = resolve_strategies(strategies)
    deterministic = tuple(s for s in resolved if is_deterministic(resolved[s]))
    keys = {s: exact_cache.result_key(resolved[s], rules, regret_top) for s in deterministic}
    cached = {}
    for sid in deterministic:
        got = exact_cache.lookup(resolved[sid], rules, regret_top)
        if got is not None:
            cached[sid] = got
    return ReportPlan(
        rules=rules,
        strategies=resolved,
        deterministic=deterministic,
        keys=keys,
        cached=cached,
        games=games,
        seed=seed,
        n_jobs=n_jobs,
        top=regret_top,
        quick=quick,
        simulate_all=simulate_all,
        progress=progress,
    )


def is_deterministic(strategy) -> bool:
    """Whether the strategy (an instance, or an id) is deterministic: one the exact
    evaluator can evaluate."""
    from yahtzee_sim.engine.strategy import Strategy, capabilities_of
    from yahtzee_sim.strategies import get_strategy, strategy_class

    if isinstance(strategy, Strategy):
        return capabilities_of(strategy).exact
    try:
        cls = strategy_class(strategy)
    except Exception:
        cls = get_strategy(strategy)  # a plugin: its instance's capabilities
    return capabilities_of(cls).exact
