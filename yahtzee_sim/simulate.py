"""Simulation API: many games of one strategy, in parallel blocks, reproducibly."""

from __future__ import annotations

import sys

import numpy as np
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from ._kernels.rng import keys_from_seed
from .engine import play_block
from .errors import YahtzeeSimError
from .results import Results
from .rules import RuleSet, get_rules

DEFAULT_CHUNK = 65_536

# strategies prepared in this process, reused across blocks (caches survive)
_PREPARED: dict[tuple, object] = {}


def _prepared(strategy, rules: RuleSet):
    key = (
        type(strategy).__module__,
        type(strategy).__qualname__,
        repr(strategy),
        rules.fingerprint(),
    )
    cached = _PREPARED.get(key)
    if cached is None:
        if len(_PREPARED) > 32:
            _PREPARED.clear()
        prepare = getattr(strategy, "prepare", None)
        if prepare is not None:
            prepare(rules)
        cached = _PREPARED[key] = strategy
    return cached


def _run_block(strategy, rules, first, n, dice_key, strategy_key):
    return play_block(_prepared(strategy, rules), rules, first, n, dice_key, strategy_key)


def _check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise YahtzeeSimError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def simulate(
    strategy,
    n_games: int,
    seed: int = 0,
    rules: str | RuleSet = "yahtzee",
    n_jobs: int = 1,
    chunk_size: int = DEFAULT_CHUNK,
    first_game: int = 0,
    progress: bool | None = None,
) -> Results:
    """Play ``n_games`` games of ``strategy`` and return per-game :class:`Results`.

    Parameters
    ----------
    strategy : str or Strategy
        A registry id (``"greedy"``) or a strategy instance.
    n_games : int
        Number of games (>= 1).
    seed : int
        Master seed (>= 0). The dice of game ``g`` depend only on ``seed`` and
        ``g``: results are bit-identical for any ``n_jobs`` and ``chunk_size``,
        and every strategy sees the same dice stream (common random numbers).
    rules : str or RuleSet
        A preset name (see :data:`yahtzee_sim.rules.PRESETS`) or a rule set.
    n_jobs : int
        Worker processes (joblib; ``-1`` = all cores).
    chunk_size : int
        Games per block played in lockstep.
    first_game : int
        Global index of the first game (to continue or split a run).
    progress : bool, optional
        Show a progress bar; default: when stderr is a terminal.

    Raises
    ------
    YahtzeeSimError
        For bad arguments (a ``ValueError``).
    IllegalMoveError
        When the strategy makes an illegal decision.
    """
    from yahtzee_sim.strategies import get_strategy

    n_games = _check_int("n_games", n_games, 1)
    seed = _check_int("seed", seed, 0)
    chunk_size = _check_int("chunk_size", chunk_size, 1)
    first_game = _check_int("first_game", first_game, 0)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise YahtzeeSimError(f"n_jobs must be a non-zero integer (-1 = all cores), got {n_jobs!r}")
    rules = get_rules(rules)
    strategy = get_strategy(strategy)
    keys = keys_from_seed(seed)
    dice_key, strategy_key = keys[:2], keys[2:]
    starts = list(range(first_game, first_game + n_games, chunk_size))
    sizes = [min(chunk_size, first_game + n_games - s) for s in starts]
    if progress is None:
        progress = sys.stderr.isatty()
    bar = tqdm(total=n_games, unit="game", disable=not progress, desc=getattr(strategy, "name", ""))
    if n_jobs == 1 or len(starts) == 1:
        prepared = _prepared(strategy, rules)
        parts = []
        for s, n in zip(starts, sizes, strict=True):
            parts.append(play_block(prepared, rules, s, n, dice_key, strategy_key))
            bar.update(n)
    else:
        if getattr(strategy, "parallel_backend", "processes") == "threads":
            prepared = _prepared(strategy, rules)
            jobs = (
                delayed(play_block)(prepared, rules, s, n, dice_key, strategy_key)
                for s, n in zip(starts, sizes, strict=True)
            )
            parallel = Parallel(n_jobs=n_jobs, return_as="generator", prefer="threads")
        else:
            jobs = (
                delayed(_run_block)(strategy, rules, s, n, dice_key, strategy_key)
                for s, n in zip(starts, sizes, strict=True)
            )
            parallel = Parallel(n_jobs=n_jobs, return_as="generator")
        parts = []
        for part, n in zip(parallel(jobs), sizes, strict=True):
            parts.append(part)
            bar.update(n)
    bar.close()
    return Results.concatenate(
        parts, strategy=repr(strategy), rules=rules, seed=seed, first_game=first_game
    )
