"""``rank_strategies``: simulate strategies on common random numbers, evaluate the
deterministic ones exactly, and rank them all (:func:`~.pairwise.rank_scores`)."""

from __future__ import annotations

from collections.abc import Sequence

from tqdm.auto import tqdm

from yahtzee_sim.analysis.ranking.kim_nelson import SelectionError
from yahtzee_sim.analysis.ranking.paired_games import simulate_scores
from yahtzee_sim.analysis.ranking.pairwise import RankingResult, rank_scores
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.validation import Boolean, Integer, Real, validate_params

#: Games per strategy of :func:`rank_strategies` by default.
DEFAULT_RANK_GAMES = 10_000


@validate_params(
    {
        "n_games": Integer(2),
        "seed": Integer(0),
        "alpha": Real(0, 1, closed="neither"),
        "n_jobs": Integer(nonzero=True, description="a non-zero integer (-1 = all cores)"),
        "exact": Boolean(),
    },
    SelectionError,
)
def rank_strategies(
    strategies: Sequence,
    n_games: int = DEFAULT_RANK_GAMES,
    seed: int = 0,
    rules: str | RuleSet = "yahtzee",
    alpha: float = 0.05,
    exact: bool = True,
    n_jobs: int = 1,
    progress: bool | None = None,
) -> RankingResult:
    """Rank strategies on their mean final score, every pair with a simultaneous interval.

    Every strategy plays games ``0 .. n_games − 1`` of seed ``seed`` (common random
    numbers: the same dice for all); with ``exact``, each deterministic strategy is
    evaluated exactly (:func:`~yahtzee_sim.exact.laws.evaluate`, moments only) and
    enters with its exact mean. The procedure is
    :func:`~yahtzee_sim.analysis.ranking.pairwise.rank_scores`'s.

    Parameters
    ----------
    strategies : sequence of str or Strategy
        At least two, with distinct labels.
    n_games : int
        Games per strategy (>= 2); bit-identical results for any ``n_jobs``.
    seed : int
    rules : str or RuleSet
    alpha : float
        Family-wise error, in (0, 1).
    exact : bool
        Use exact means for the deterministic strategies (their games are then not
        played). ``False``: simulate every strategy.
    n_jobs : int
        Parallel blocks of games.
    progress : bool, optional
        A progress bar over the games; default: when stderr is a terminal.

    Returns
    -------
    RankingResult

    Raises
    ------
    SelectionError
        Bad arguments, fewer than two strategies or labels that repeat.

    Examples
    --------
    >>> res = rank_strategies(["greedy", "random", "optimal"], n_games=2_000)  # doctest: +SKIP
    >>> res.table[["mean", "low", "high", "tier"]]  # doctest: +SKIP
    """
    from yahtzee_sim.exact.laws import evaluate
    from yahtzee_sim.strategies import get_strategy

    rules = get_rules(rules)
    objs = {}
    for s in strategies:
        obj = get_strategy(s)
        objs[strategy_label(obj)] = obj
    if len(objs) != len(strategies):
        raise SelectionError("strategies must be at least 2, with distinct labels")
    if len(objs) < 2:
        raise SelectionError(f"a ranking needs at least 2 strategies, got {len(objs)}")
    exact_ids = [s for s, obj in objs.items() if exact and _is_exact(obj)]
    played = [s for s in objs if s not in exact_ids]
    bar = tqdm(
        total=n_games * len(played) + len(exact_ids),
        desc="rank",
        unit="game",
        disable=not _show(progress),
    )
    means = {}
    for sid in exact_ids:
        bar.set_postfix_str(f"exact {sid}")
        means[sid] = evaluate(objs[sid], rules, distribution=False).mean
        bar.update(1)
    scores = {}
    for sid in played:
        bar.set_postfix_str(f"simulate {sid}")
        scores[sid] = simulate_scores(objs[sid], n_games, seed, rules, n_jobs, bar).scores
    bar.close()
    return rank_scores(scores, means, alpha)


def _is_exact(strategy) -> bool:
    """Whether the exact evaluator can evaluate ``strategy`` (deterministic, position-only)."""
    from yahtzee_sim.engine.strategy import capabilities_of

    return bool(capabilities_of(strategy).exact)


def _show(progress: bool | None) -> bool:
    """Whether to show the progress bar (default: stderr is a terminal)."""
    import sys

    return sys.stderr.isatty() if progress is None else bool(progress)
