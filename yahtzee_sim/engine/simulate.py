"""Simulation API: many games of one strategy, in parallel blocks, reproducibly.

:func:`simulate` keeps every game, :func:`simulate_aggregate` their exact running
statistics. Both check their arguments, refuse a run that cannot fit in memory, plan the
blocks, resume from and save to a checkpoint, show progress and turn Ctrl-C into
:class:`RunInterrupted`; which process or thread plays a block is the business of
:mod:`yahtzee_sim.engine.scheduler`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from yahtzee_sim._core.rng import keys_from_seed
from yahtzee_sim.engine.aggregate import Aggregate
from yahtzee_sim.engine.checkpoint import load_checkpoint, save_checkpoint
from yahtzee_sim.engine.memory_budget import check_memory, results_bytes
from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.engine.results import Results
from yahtzee_sim.engine.scheduler import BlockJob, Blocks, plan_blocks, play_blocks
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.errors import YahtzeeSimError
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.validation import Integer, validate_params

DEFAULT_CHUNK = 65_536


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`simulate` or :func:`simulate_aggregate`; the message says what
    was saved and how to resume."""


def simulate(
    strategy,
    n_games: int,
    seed: int = 0,
    rules: str | RuleSet = "yahtzee",
    n_jobs: int = 1,
    chunk_size: int = DEFAULT_CHUNK,
    first_game: int = 0,
    progress: bool | None = None,
    checkpoint: str | os.PathLike | None = None,
) -> Results:
    """Play ``n_games`` games of ``strategy`` and keep every game.

    :func:`simulate_aggregate` plays the same games and keeps only their exact running
    statistics (bounded memory, the same ``summary()``).

    Parameters
    ----------
    strategy : str or Strategy
        A registry id (``"greedy"``) or a strategy instance.
    n_games : int
        Number of games (>= 1).
    seed : int
        Master seed (>= 0). The dice of game ``g`` depend only on ``seed`` and
        ``g``: results are bit-identical for any ``n_jobs``, ``chunk_size`` and
        joblib backend, and every strategy sees the same dice stream (common
        random numbers).
    rules : str or RuleSet
        A preset name (see :data:`yahtzee_sim.game.rules.PRESETS`) or a rule set.
    n_jobs : int
        Parallel blocks (joblib; ``-1`` = all cores or all workers of an active
        ``joblib.parallel_config`` backend such as dask). Built-in strategies run
        in threads unless a backend is configured; others in ``n_jobs - 1`` worker
        processes and this process, which starts at once (each takes the next block).
    chunk_size : int
        Games per block played in lockstep (the most: with ``n_jobs > 1`` and no
        checkpoint, blocks shrink so that every worker gets one).
    first_game : int
        Global index of the first game (to continue or split a run).
    progress : bool, optional
        Show a progress bar; default: when stderr is a terminal.
    checkpoint : path, optional
        Save completed blocks to this file (atomically, after each block) and, if
        it exists, resume from it; the final result is bit-identical to an
        uninterrupted run. Ctrl-C raises :class:`RunInterrupted` saying how to resume.
        The file is kept after a complete run (running again returns at once). Every
        save rewrites all games played so far: long runs checkpoint best with
        :func:`simulate_aggregate`.

    Returns
    -------
    Results
        The per-game arrays of games ``first_game`` to ``first_game + n_games - 1``.

    Raises
    ------
    YahtzeeSimError
        For bad arguments (a ``ValueError``); ``CheckpointError`` for a damaged
        checkpoint or one of another run.
    IllegalMoveError
        When the strategy makes an illegal decision.
    """
    played = _play(
        strategy,
        n_games,
        seed,
        rules,
        n_jobs,
        chunk_size,
        first_game,
        progress,
        checkpoint,
        aggregate=False,
    )
    return Results.concatenate(
        played.parts,
        strategy=played.label,
        rules=played.rules,
        seed=played.seed,
        first_game=played.first_game,
    )


def simulate_aggregate(
    strategy,
    n_games: int,
    seed: int = 0,
    rules: str | RuleSet = "yahtzee",
    n_jobs: int = 1,
    chunk_size: int = DEFAULT_CHUNK,
    first_game: int = 0,
    progress: bool | None = None,
    checkpoint: str | os.PathLike | None = None,
) -> Aggregate:
    """Play the games of :func:`simulate` and keep only their exact running statistics.

    Every block of games is folded into an
    :class:`~yahtzee_sim.engine.aggregate.Aggregate` (an integer histogram of totals,
    per-box sums, zero counts and fill-turn sums, bonus and Yahtzee counters) as it
    finishes, so memory stays bounded for any number of games. Its ``summary()`` equals
    the one of ``simulate(...)`` with the same arguments.

    Parameters
    ----------
    strategy, n_games, seed, rules, n_jobs, chunk_size, first_game, progress
        As :func:`simulate`: the same games, bit-identical for any ``n_jobs``,
        ``chunk_size`` and joblib backend.
    checkpoint : path, optional
        Save the statistics of the completed blocks to this file (atomically, after
        each block) and, if it exists, resume from it; the final result is
        bit-identical to an uninterrupted run. Ctrl-C raises :class:`RunInterrupted`
        saying how to resume. The file is kept after a complete run (running again
        returns at once).

    Returns
    -------
    Aggregate
        Exact statistics of the games; ``meta`` holds ``strategy``, ``seed`` and
        ``first_game``.

    Raises
    ------
    YahtzeeSimError, CheckpointError, IllegalMoveError
        As :func:`simulate`.
    """
    played = _play(
        strategy,
        n_games,
        seed,
        rules,
        n_jobs,
        chunk_size,
        first_game,
        progress,
        checkpoint,
        aggregate=True,
    )
    agg = played.parts
    agg.meta.update(strategy=played.label, seed=played.seed, first_game=played.first_game)
    return agg


@dataclass(frozen=True)
class _Played:
    """What :func:`_play` hands back: the checked arguments and the blocks' output."""

    label: str
    rules: RuleSet
    seed: int
    first_game: int
    parts: list[dict] | Aggregate


@validate_params(
    {
        "n_games": Integer(1),
        "seed": Integer(0),
        "chunk_size": Integer(1),
        "first_game": Integer(0),
        "n_jobs": Integer(nonzero=True, description="a non-zero integer (-1 = all cores)"),
    }
)
def _play(
    strategy, n_games, seed, rules, n_jobs, chunk_size, first_game, progress, checkpoint, aggregate
) -> _Played:
    """Check the arguments, then play (and checkpoint) the blocks of :func:`simulate`
    (``aggregate=False``: a list of per-game arrays, one per block) or of
    :func:`simulate_aggregate` (``aggregate=True``: one merged aggregate)."""
    rules = get_rules(rules)
    strategy = get_strategy(strategy)
    if not aggregate:
        _check_results_fit(rules, n_games)
    checkpoint = _checkpoint_path(checkpoint)
    blocks = plan_blocks(strategy, n_games, first_game, n_jobs, chunk_size, checkpoint is not None)
    keys = keys_from_seed(seed)
    job = BlockJob(strategy, rules, keys[:2], keys[2:], aggregate)
    run = _run_description(job, seed, blocks)
    done, parts = _resume(checkpoint, run, rules, aggregate)
    bar = _progress_bar(progress, blocks, done, strategy)
    todo = blocks.after(done)
    try:
        for out, (_, n) in zip(play_blocks(job, todo, n_jobs), todo, strict=False):
            parts = _add(parts, out)
            done += 1
            if checkpoint is not None:
                save_checkpoint(checkpoint, run, done, parts)
            bar.update(n)
    except KeyboardInterrupt:
        bar.close()
        if checkpoint is not None:
            save_checkpoint(checkpoint, run, done, parts)
        raise _interrupted(blocks.games_in(done), n_games, checkpoint) from None
    bar.close()
    return _Played(strategy_label(strategy), rules, seed, first_game, parts)


def _check_results_fit(rules: RuleSet, n_games: int) -> None:
    """Every game kept: refuse what cannot fit, before playing."""
    check_memory(
        results_bytes(rules, n_games),
        f"{n_games:,} games with every game kept",
        "a summary alone streams any number of games in bounded memory "
        "(simulate_aggregate; on the command line: leave out --out)",
    )


def _checkpoint_path(checkpoint: str | os.PathLike | None) -> Path | None:
    """The checkpoint file as a path, its folder checked; ``None`` without one."""
    if checkpoint is None:
        return None
    checkpoint = Path(checkpoint)
    if not checkpoint.parent.is_dir():
        raise YahtzeeSimError(f"checkpoint folder {str(checkpoint.parent)!r} does not exist")
    return checkpoint


def _run_description(job: BlockJob, seed: int, blocks: Blocks) -> dict:
    """What a checkpoint must match to be resumed by this run."""
    return {
        "strategy": repr(job.strategy),
        "rules": job.rules.fingerprint(),
        "seed": seed,
        "n_games": blocks.n_games,
        "chunk_size": blocks.starts.step,
        "first_game": blocks.starts.start,
        "output": "aggregate" if job.aggregate else "results",
    }


def _resume(checkpoint: Path | None, run: dict, rules: RuleSet, aggregate: bool):
    """``(blocks done, their output)``: from the checkpoint if it exists, else nothing."""
    if checkpoint is not None and checkpoint.exists():
        return load_checkpoint(checkpoint, run, rules)
    return 0, (Aggregate.empty(rules) if aggregate else [])


def _add(parts: list[dict] | Aggregate, out) -> list[dict] | Aggregate:
    """The output so far with one more block's."""
    if isinstance(parts, Aggregate):
        parts.merge(out)
    else:
        parts.append(out)
    return parts


def _progress_bar(progress: bool | None, blocks: Blocks, done: int, strategy) -> tqdm:
    """A progress bar in games (shown by default when stderr is a terminal)."""
    if progress is None:
        progress = sys.stderr.isatty()
    return tqdm(
        total=blocks.n_games,
        initial=blocks.games_in(done),
        unit="game",
        disable=not progress,
        desc=strategy_label(strategy),
    )


def _interrupted(played: int, n_games: int, checkpoint: Path | None) -> RunInterrupted:
    """The error of Ctrl-C: what was saved and how to resume."""
    if checkpoint is not None:
        return RunInterrupted(
            f"interrupted after {played:,} of {n_games:,} games; progress is saved in "
            f"{checkpoint}: run the same command again to resume"
        )
    return RunInterrupted(
        f"interrupted after {played:,} of {n_games:,} games; nothing was saved "
        "(give a checkpoint file to make long runs resumable)"
    )
