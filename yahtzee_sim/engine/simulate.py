"""Simulation API: many games of one strategy, in parallel blocks, reproducibly."""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass
from pathlib import Path

import numba
from joblib import Parallel, delayed, effective_n_jobs
from joblib.executor import get_memmapping_executor
from tqdm.auto import tqdm

from yahtzee_sim._kernels.rng import keys_from_seed
from yahtzee_sim.engine.aggregate import Aggregate
from yahtzee_sim.engine.budget import check_memory, results_bytes
from yahtzee_sim.engine.checkpoint import load as load_checkpoint
from yahtzee_sim.engine.checkpoint import save as save_checkpoint
from yahtzee_sim.engine.decide import prepare
from yahtzee_sim.engine.lockstep import play_block
from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.engine.results import Results
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.errors import YahtzeeSimError
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.validation import Integer, validate_params

DEFAULT_CHUNK = 65_536

# strategies prepared in this process, reused across blocks (caches survive)
_PREPARED: dict[tuple, object] = {}


def prepared_strategy(strategy, rules: RuleSet):
    """The strategy after ``prepare(rules)``, memoised per (class, parameters, rules) in
    this process, so that repeated simulations reuse its tables."""
    key = (
        type(strategy).__module__,
        type(strategy).__qualname__,
        repr(strategy),
        getattr(strategy, "given_label", None),
        rules.fingerprint(),
    )
    cached = _PREPARED.get(key)
    if cached is None:
        if len(_PREPARED) > 32:
            _PREPARED.clear()
        prepare(strategy, rules)
        cached = _PREPARED[key] = strategy
    return cached


def _run_block(strategy, rules, first, n, dice_key, strategy_key, aggregate=False, prepare=True):
    """One block: its per-game arrays, or (``aggregate=True``) their exact aggregate."""
    played = prepared_strategy(strategy, rules) if prepare else strategy
    block = play_block(played, rules, first, n, dice_key, strategy_key)
    return Aggregate.from_arrays(rules, block) if aggregate else block


def _run_threaded_block(threads, strategy, rules, first, n, dice_key, strategy_key, aggregate):
    """:func:`_run_block` in a worker thread whose parallel kernels use ``threads``
    threads (numba's count is per calling thread): blocks running side by side share
    the cores instead of each spreading its kernels over all of them. The results do not
    depend on it."""
    numba.set_num_threads(threads)
    return _run_block(strategy, rules, first, n, dice_key, strategy_key, aggregate, False)


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
    keys = keys_from_seed(seed)
    dice_key, strategy_key = keys[:2], keys[2:]
    if not aggregate:  # every game kept: refuse what cannot fit, before playing
        check_memory(
            results_bytes(rules, n_games),
            f"{n_games:,} games with every game kept",
            "a summary alone streams any number of games in bounded memory "
            "(simulate_aggregate; on the command line: leave out --out)",
        )
    if n_jobs != 1 and checkpoint is None:  # one block at least per worker
        workers = max(1, effective_n_jobs(n_jobs))
        if _shares_blocks(strategy, n_jobs):  # several per worker: they take turns
            chunk_size = min(chunk_size, max(SHARED_CHUNK, -(-n_games // (16 * workers))))
        chunk_size = min(chunk_size, -(-n_games // workers))
    blocks = _Blocks(range(first_game, first_game + n_games, chunk_size), n_games)
    run = {
        "strategy": repr(strategy),
        "rules": rules.fingerprint(),
        "seed": seed,
        "n_games": n_games,
        "chunk_size": chunk_size,
        "first_game": first_game,
        "output": "aggregate" if aggregate else "results",
    }
    done, parts = 0, (Aggregate.empty(rules) if aggregate else [])
    if checkpoint is not None:
        checkpoint = Path(checkpoint)
        if not checkpoint.parent.is_dir():
            raise YahtzeeSimError(f"checkpoint folder {str(checkpoint.parent)!r} does not exist")
        if checkpoint.exists():
            done, parts = load_checkpoint(checkpoint, run, rules)
    if progress is None:
        progress = sys.stderr.isatty()
    bar = tqdm(
        total=n_games,
        initial=blocks.games_in(done),
        unit="game",
        disable=not progress,
        desc=strategy_label(strategy),
    )
    todo = blocks.after(done)
    try:
        for out, (_, n) in zip(
            _blocks(strategy, rules, todo, n_jobs, dice_key, strategy_key, aggregate),
            todo,
            strict=False,
        ):
            if aggregate:
                parts.merge(out)
            else:
                parts.append(out)
            done += 1
            if checkpoint is not None:
                save_checkpoint(checkpoint, run, done, parts)
            bar.update(n)
    except KeyboardInterrupt:
        bar.close()
        played = blocks.games_in(done)
        if checkpoint is not None:
            save_checkpoint(checkpoint, run, done, parts)
            raise RunInterrupted(
                f"interrupted after {played:,} of {n_games:,} games; progress is saved in "
                f"{checkpoint}: run the same command again to resume"
            ) from None
        raise RunInterrupted(
            f"interrupted after {played:,} of {n_games:,} games; nothing was saved "
            "(give a checkpoint file to make long runs resumable)"
        ) from None
    bar.close()
    return _Played(strategy_label(strategy), rules, seed, first_game, parts)


@dataclass(frozen=True)
class _Blocks:
    """The blocks of a run, ``(first game, games)`` each, computed as they are asked for:
    a run of any number of games holds none of them in a list (bounded memory)."""

    starts: range
    n_games: int

    def __len__(self) -> int:
        return len(self.starts)

    def __iter__(self):
        end = self.starts.start + self.n_games
        return ((s, min(self.starts.step, end - s)) for s in self.starts)

    def games_in(self, done: int) -> int:
        """Games in the first ``done`` blocks."""
        return min(done * self.starts.step, self.n_games)

    def after(self, done: int) -> _Blocks:
        """The blocks after the first ``done``."""
        return _Blocks(self.starts[done:], self.n_games - self.games_in(done))


def _backend_configured() -> bool:
    """Whether the caller chose a joblib backend (e.g. ``parallel_config(backend="dask")``)."""
    from joblib.parallel import _get_active_backend

    try:
        backend, _ = _get_active_backend()
    except Exception:  # pragma: no cover - joblib internals changed
        return False
    return type(backend).__name__ not in ("LokyBackend", "SequentialBackend", "ThreadingBackend")


def _shares_blocks(strategy, n_jobs) -> bool:
    """Whether blocks run in worker processes and in this process (:func:`_shared_blocks`)."""
    return (
        n_jobs != 1
        and getattr(strategy, "parallel_backend", "processes") != "threads"
        and not _backend_configured()
    )


#: The fewest games of a block shared between this process and its workers.
SHARED_CHUNK = 1024


class _Failed:
    """A block that raised (in this process's thread): raised again in its turn."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _run_indexed(i, strategy, rules, first, n, dice_key, strategy_key, aggregate):
    return i, _run_block(strategy, rules, first, n, dice_key, strategy_key, aggregate)


def _shared_blocks(strategy, rules, todo, n_jobs, dice_key, strategy_key, aggregate):
    """Yield each block's output in order, the blocks played by ``n_jobs - 1`` worker
    processes and a thread of this process, each taking the next block when it is free.

    This process starts at once, with its kernels and its strategy already loaded, while
    a new worker spends seconds importing and loading them: a first run does not wait for
    the workers, and a short run may end before they join. Which process plays a block
    does not change it (its dice depend on the seed and its first game only)."""
    items = iter(enumerate(todo))
    lock = threading.Lock()
    done = threading.Condition()
    results: dict[int, object] = {}
    failed: list[BaseException] = []
    stop = threading.Event()

    def take():
        with lock:
            return None if stop.is_set() else next(items, None)

    def here() -> None:
        prepared = prepared_strategy(strategy, rules)
        while (item := take()) is not None:
            i, (s, n) = item
            try:
                out = _run_block(prepared, rules, s, n, dice_key, strategy_key, aggregate, False)
            except BaseException as exc:  # raised again in the caller, in its turn
                out = _Failed(exc)
            with done:
                results[i] = out
                done.notify_all()

    n_workers = effective_n_jobs(n_jobs) - 1

    def workers() -> None:
        """Keep one block per worker process in flight until one has come back, then
        two (a worker still starting holds no more games than it must; loky's reusable
        workers: a second run finds them started)."""
        try:
            pool = get_memmapping_executor(n_workers)  # joblib's own (shared) executor
            pending: set = set()
            in_flight = n_workers
            while True:
                while len(pending) < in_flight and (item := take()) is not None:
                    i, (s, n) = item
                    pending.add(
                        pool.submit(
                            _run_indexed,
                            i,
                            strategy,
                            rules,
                            s,
                            n,
                            dice_key,
                            strategy_key,
                            aggregate,
                        )
                    )
                if not pending:
                    return
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                in_flight = 2 * n_workers
                for future in finished:
                    i, out = future.result()  # a worker's error is raised here
                    with done:
                        results[i] = out
                        done.notify_all()
        except BaseException as exc:  # raised again in the caller
            with done:
                failed.append(exc)
                done.notify_all()

    roles = (here, workers) if n_workers > 0 else (here,)
    threads = [threading.Thread(target=f, daemon=True) for f in roles]
    for t in threads:
        t.start()
    try:
        for i in range(len(todo)):
            with done:
                while i not in results and not failed:
                    done.wait(0.1)
                if i not in results:
                    raise failed[0]
                out = results.pop(i)
            if isinstance(out, _Failed):
                raise out.exc
            yield out
    except BaseException:
        # An error, Ctrl-C or a caller that stopped early: the threads stop after their
        # block, unwaited (daemons), so a strategy stuck in one (sleeping) holds no one.
        stop.set()
        raise
    stop.set()
    for t in threads:
        t.join()


def _blocks(strategy, rules, todo, n_jobs, dice_key, strategy_key, aggregate):
    """Yield each block's output in order."""
    if n_jobs != 1 and len(todo) > 1 and _shares_blocks(strategy, n_jobs):
        yield from _shared_blocks(strategy, rules, todo, n_jobs, dice_key, strategy_key, aggregate)
        return
    if n_jobs == 1 or len(todo) <= 1:
        prepared = prepared_strategy(strategy, rules)
        for s, n in todo:
            yield _run_block(prepared, rules, s, n, dice_key, strategy_key, aggregate, False)
        return
    if getattr(strategy, "parallel_backend", "processes") == "threads" and not (
        _backend_configured()
    ):
        prepared = prepared_strategy(strategy, rules)
        share = max(1, numba.get_num_threads() // min(effective_n_jobs(n_jobs), len(todo)))
        jobs = (
            delayed(_run_threaded_block)(
                share, prepared, rules, s, n, dice_key, strategy_key, aggregate
            )
            for s, n in todo
        )
        yield from Parallel(n_jobs=n_jobs, return_as="generator", prefer="threads")(jobs)
        return
    jobs = (
        delayed(_run_block)(strategy, rules, s, n, dice_key, strategy_key, aggregate)
        for s, n in todo
    )
    yield from Parallel(n_jobs=n_jobs, return_as="generator")(jobs)
