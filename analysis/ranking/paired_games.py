"""Per-game scores on common random numbers, with the statistics of a streamed run.

A ranking needs each strategy's score game by game (the pairs are compared on the same
games); a report needs the exact running statistics of
:func:`~yahtzee_sim.engine.simulate.simulate_aggregate`. :func:`simulate_scores` gives
both from one pass: the games are played in slices of :data:`SLICE_GAMES` with
:func:`~yahtzee_sim.engine.simulate.simulate`, each slice folded into the aggregate and
only its final scores kept (2 bytes a game). The dice of game ``g`` depend only on the
seed and ``g``, so the scores and the aggregate are bit-identical for any ``n_jobs``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from yahtzee_sim.engine.aggregate import Aggregate
from yahtzee_sim.engine.simulate import simulate
from yahtzee_sim.errors import YahtzeeSimError
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.validation import Integer, check

#: Games per slice: the per-game arrays of one slice are held at once.
SLICE_GAMES = 65_536


@dataclass(eq=False)
class ScoredRun:
    """The games of one strategy: final scores in game order and their statistics.

    Attributes
    ----------
    scores : ndarray (n,) int16
        Final score of game ``first_game + i`` at position ``i``.
    aggregate : Aggregate
        What :func:`~yahtzee_sim.engine.simulate.simulate_aggregate` returns for the
        same arguments, bit for bit.
    """

    scores: np.ndarray
    aggregate: Aggregate


def simulate_scores(
    strategy,
    n_games: int,
    seed: int = 0,
    rules: str | RuleSet = "yahtzee",
    n_jobs: int = 1,
    bar=None,
) -> ScoredRun:
    """Play ``n_games`` games of ``strategy`` on seed ``seed``; keep the final scores and
    the aggregate.

    Parameters
    ----------
    strategy : str or Strategy
    n_games, seed, rules, n_jobs
        As :func:`~yahtzee_sim.engine.simulate.simulate` (checked there).
    bar : tqdm, optional
        A progress bar advanced by the games played.

    Returns
    -------
    ScoredRun
    """
    n_games = check("n_games", n_games, Integer(1), YahtzeeSimError)
    rules = get_rules(rules)
    scores = np.empty(n_games, dtype=np.int16)
    total = None
    for start in range(0, n_games, SLICE_GAMES):
        size = min(SLICE_GAMES, n_games - start)
        res = simulate(
            strategy, size, seed=seed, rules=rules, n_jobs=n_jobs, first_game=start, progress=False
        )
        scores[start : start + size] = res.total
        part = res.aggregate()
        total = part if total is None else total.merge(part)
        if bar is not None:
            bar.update(size)
    total.meta.update(first_game=0)
    return ScoredRun(scores=scores, aggregate=total)
