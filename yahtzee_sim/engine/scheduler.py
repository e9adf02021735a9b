"""The scheduler of :func:`~yahtzee_sim.engine.simulate.simulate`: which blocks of games run
where (this process, threads, worker processes or a configured joblib backend), their
outputs handed back in order.

Which process or thread plays a block never changes it: the dice of a game depend only on
the seed and the game's index (:mod:`yahtzee_sim.engine.lockstep`), so a run is
bit-identical for any ``n_jobs``, block size and backend. joblib is used through its public
names (:class:`joblib.Parallel`, :func:`joblib.effective_n_jobs`,
:class:`joblib.parallel_config`) and its pool of worker processes (:func:`worker_pool`).

Four ways to play the blocks, the first that applies:

* one job, or one block: in this process, one after the other;
* a strategy that is not ``parallel_backend = "threads"``, and no joblib backend chosen by
  the caller: shared between ``n_jobs - 1`` worker processes and a thread of this process,
  which starts at once (:func:`play_shared`);
* a ``"threads"`` strategy and no backend chosen: joblib threads, each block's compiled
  kernels on its share of the cores;
* otherwise the backend the caller chose (``joblib.parallel_config(backend="dask")``).
"""

from __future__ import annotations

import hashlib
import pickle
import threading
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, wait
from dataclasses import dataclass

from joblib import Parallel, ParallelBackendBase, delayed, effective_n_jobs, parallel_config
from joblib.executor import get_memmapping_executor

from yahtzee_sim.engine.aggregate import Aggregate
from yahtzee_sim.engine.decide import prepare
from yahtzee_sim.engine.lockstep import play_block
from yahtzee_sim.engine.threads import get_threads, set_threads
from yahtzee_sim.game.rules import RuleSet

#: The fewest games of a block shared between this process and its workers.
SHARED_CHUNK = 1024

#: joblib backends that count as "none chosen": the defaults joblib picks by itself.
DEFAULT_BACKENDS = ("LokyBackend", "SequentialBackend", "ThreadingBackend")

#: Most prepared strategies :func:`prepared_strategy` keeps (then it starts afresh).
PREPARED_LIMIT = 32


class PreparedStrategies:
    """Strategies prepared in this process, reused across blocks and runs (their caches
    survive), one per :meth:`key`; threads asking for one strategy prepare it once."""

    def __init__(self) -> None:
        self._strategies: dict[tuple, object] = {}
        self._lock = threading.RLock()

    @staticmethod
    def key(strategy, rules: RuleSet) -> tuple:
        """What makes two strategies the same: class, parameters (a digest of
        ``get_params()``), label and rules. A strategy whose parameters cannot be compared
        (no ``get_params``, or values that do not pickle) is only itself: it is keyed by
        its identity, kept alive while it is held here."""
        cls = type(strategy)
        try:
            params = pickle.dumps(sorted(strategy.get_params().items()), protocol=5)
            what = hashlib.sha256(params).hexdigest()
        except (AttributeError, TypeError, pickle.PicklingError):
            what = f"object-{id(strategy)}"
        label = getattr(strategy, "given_label", None)
        return (cls.__module__, cls.__qualname__, what, label, rules.fingerprint())

    def get(self, strategy, rules: RuleSet):
        """The strategy of this key prepared for ``rules``: ``strategy`` itself after
        ``prepare(rules)`` the first time."""
        key = self.key(strategy, rules)
        with self._lock:
            cached = self._strategies.get(key)
            if cached is None:
                if len(self._strategies) >= PREPARED_LIMIT:
                    self._strategies.clear()
                prepare(strategy, rules)
                cached = self._strategies[key] = strategy
            return cached

    def clear(self) -> None:
        """Forget every prepared strategy."""
        with self._lock:
            self._strategies.clear()


_PREPARED = PreparedStrategies()


def prepared_strategy(strategy, rules: RuleSet):
    """The strategy after ``prepare(rules)``, memoised per (class, parameters, label,
    rules) in this process (:class:`PreparedStrategies`), so that repeated simulations
    reuse its tables."""
    return _PREPARED.get(strategy, rules)


def forget_prepared_strategies() -> None:
    """Empty the memo of :func:`prepared_strategy` (the next run prepares afresh: timings
    of a first run)."""
    _PREPARED.clear()


@dataclass(frozen=True)
class Blocks:
    """The blocks of a run, ``(first game, games)`` each, computed as they are asked for:
    a run of any number of games holds none of them in a list (bounded memory).

    Parameters
    ----------
    starts : range
        The first game of every block; its step is the block size.
    n_games : int
        Games in all the blocks (the last block may be shorter than the step).
    """

    starts: range
    n_games: int

    def __len__(self) -> int:
        return len(self.starts)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        end = self.starts.start + self.n_games
        return ((s, min(self.starts.step, end - s)) for s in self.starts)

    def games_in(self, done: int) -> int:
        """Games in the first ``done`` blocks."""
        return min(done * self.starts.step, self.n_games)

    def after(self, done: int) -> Blocks:
        """The blocks after the first ``done``."""
        return Blocks(self.starts[done:], self.n_games - self.games_in(done))


@dataclass(frozen=True)
class BlockJob:
    """What every block of a run shares: the strategy, the rules, the dice and strategy
    keys of the seed, and whether a block returns per-game arrays or their aggregate."""

    strategy: object
    rules: RuleSet
    dice_key: object
    strategy_key: object
    aggregate: bool

    def play(self, first: int, n: int, prepared: bool = False):
        """Games ``first`` to ``first + n - 1``: their per-game arrays, or (``aggregate``)
        their exact :class:`~yahtzee_sim.engine.aggregate.Aggregate`. ``prepared``: the
        strategy is ready (else it is prepared, once per process)."""
        strategy = self.strategy if prepared else prepared_strategy(self.strategy, self.rules)
        block = play_block(strategy, self.rules, first, n, self.dice_key, self.strategy_key)
        return Aggregate.from_arrays(self.rules, block) if self.aggregate else block

    def ready(self) -> BlockJob:
        """The same job with its strategy prepared in this process."""
        strategy = prepared_strategy(self.strategy, self.rules)
        return BlockJob(strategy, self.rules, self.dice_key, self.strategy_key, self.aggregate)


def play_in_thread(job: BlockJob, threads: int, first: int, n: int):
    """:meth:`BlockJob.play` in a worker thread whose parallel kernels use ``threads``
    threads (the count is per calling thread): blocks running side by side share the
    cores instead of each spreading its kernels over all of them. The results do not
    depend on it."""
    set_threads(threads)
    return job.play(first, n, prepared=True)


def play_indexed(job: BlockJob, i: int, first: int, n: int) -> tuple[int, object]:
    """``(i, block i's output)``, for a worker process (:func:`play_shared`)."""
    return i, job.play(first, n)


def backend_configured() -> bool:
    """Whether the caller chose a joblib backend (e.g. ``parallel_config(backend="dask")``),
    rather than leaving joblib its defaults. ``parallel_config()`` without arguments
    changes nothing and hands back the configuration in force."""
    with parallel_config() as config:
        backend = config.get("backend")
    return isinstance(backend, ParallelBackendBase) and (
        type(backend).__name__ not in DEFAULT_BACKENDS
    )


def uses_threads(strategy) -> bool:
    """Whether the strategy asks for its blocks to run in threads (one shared cache)."""
    return getattr(strategy, "parallel_backend", "processes") == "threads"


def shares_blocks(strategy, n_jobs: int) -> bool:
    """Whether blocks run in worker processes and in this process (:func:`play_shared`)."""
    return n_jobs != 1 and not uses_threads(strategy) and not backend_configured()


def plan_blocks(
    strategy, n_games: int, first_game: int, n_jobs: int, chunk_size: int, fixed: bool
) -> Blocks:
    """The blocks of a run of ``n_games`` games from ``first_game``.

    ``chunk_size`` is the most games of a block. With several jobs and a size not
    ``fixed`` (a checkpoint fixes it), blocks shrink so that every worker gets one, and
    to at least 16 per worker (of :data:`SHARED_CHUNK` games or more) when this process
    and its workers share them (they take turns).
    """
    if n_jobs != 1 and not fixed:
        workers = max(1, effective_n_jobs(n_jobs))
        if shares_blocks(strategy, n_jobs):
            chunk_size = min(chunk_size, max(SHARED_CHUNK, -(-n_games // (16 * workers))))
        chunk_size = min(chunk_size, -(-n_games // workers))
    return Blocks(range(first_game, first_game + n_games, chunk_size), n_games)


def play_blocks(job: BlockJob, todo: Blocks, n_jobs: int) -> Iterator:
    """Yield each block's output in order, the blocks played as the module says."""
    if n_jobs == 1 or len(todo) <= 1:
        ready = job.ready()
        for first, n in todo:
            yield ready.play(first, n, prepared=True)
    elif shares_blocks(job.strategy, n_jobs):
        yield from play_shared(job, todo, n_jobs)
    elif uses_threads(job.strategy) and not backend_configured():
        ready = job.ready()
        share = max(1, get_threads() // min(effective_n_jobs(n_jobs), len(todo)))
        calls = (delayed(play_in_thread)(ready, share, first, n) for first, n in todo)
        yield from Parallel(n_jobs=n_jobs, return_as="generator", prefer="threads")(calls)
    else:
        calls = (delayed(BlockJob.play)(job, first, n) for first, n in todo)
        yield from Parallel(n_jobs=n_jobs, return_as="generator")(calls)


class _Failed:
    """A block that raised (in this process's thread): raised again in its turn."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


class _SharedRun:
    """The state :func:`play_shared` shares between its threads: the blocks not yet
    taken, the outputs not yet handed back, the first error of the workers."""

    def __init__(self, todo: Blocks) -> None:
        self.items = iter(enumerate(todo))
        self.lock = threading.Lock()
        self.arrived = threading.Condition()
        self.outputs: dict[int, object] = {}
        self.failed: list[BaseException] = []
        self.stop = threading.Event()
        self.pool: Executor | None = None  # the worker processes, once started
        self.interrupted = False

    def attach_pool(self, pool: Executor) -> bool:
        """Keep the worker processes' pool; ``False`` if the run was interrupted first
        (its caller then shuts it down itself)."""
        with self.lock:
            self.pool = pool
            return not self.interrupted

    def interrupt(self) -> None:
        """Ctrl-C: stop taking blocks and shut the worker processes down now, unwaited
        (the interpreter would wait at exit for their blocks in flight: seconds for a
        worker still starting)."""
        with self.lock:
            self.interrupted = True
            self.stop.set()
            pool = self.pool
        if pool is not None:
            pool.shutdown(wait=False, kill_workers=True)

    def take(self) -> tuple[int, tuple[int, int]] | None:
        """The next block ``(i, (first, n))``, or ``None`` when all are taken or the run
        stopped."""
        with self.lock:
            return None if self.stop.is_set() else next(self.items, None)

    def untaken(self) -> Iterator[tuple[int, tuple[int, int]]]:
        """The blocks still to take, each taken when asked for."""
        return iter(self.take, None)

    def put(self, i: int, out: object) -> None:
        """Hand back block ``i``'s output (or its :class:`_Failed`)."""
        with self.arrived:
            self.outputs[i] = out
            self.arrived.notify_all()

    def fail(self, exc: BaseException) -> None:
        """Record an error of the worker processes (raised again in the caller)."""
        with self.arrived:
            self.failed.append(exc)
            self.arrived.notify_all()

    def get(self, i: int) -> object:
        """Block ``i``'s output once it has arrived; a block's error is raised."""
        with self.arrived:
            while i not in self.outputs and not self.failed:
                self.arrived.wait(0.1)
            if i not in self.outputs:
                raise self.failed[0]
            out = self.outputs.pop(i)
        if isinstance(out, _Failed):
            raise out.exc
        return out


def _play_here(run: _SharedRun, job: BlockJob) -> None:
    """This process's share: take the next block while there is one."""
    ready = job.ready()
    for i, (first, n) in run.untaken():
        try:
            out = ready.play(first, n, prepared=True)
        except BaseException as exc:  # raised again in the caller, in its turn
            out = _Failed(exc)
        run.put(i, out)


def worker_pool(n_workers: int) -> Executor:
    """joblib's own pool of ``n_workers`` reusable worker processes (loky; shared with
    :class:`joblib.Parallel`, so a second run finds them started).

    Not ``Parallel(n_jobs=n_workers)``: with one worker it falls back to playing in the
    calling process, where this process's own thread already plays its share."""
    return get_memmapping_executor(n_workers)


def _play_in_workers(run: _SharedRun, job: BlockJob, n_workers: int) -> None:
    """The worker processes' share: one block per worker in flight until one has come
    back, then two (a worker still starting holds no more games than it must)."""
    try:
        pool = worker_pool(n_workers)
        if not run.attach_pool(pool):  # Ctrl-C came while the pool was starting
            pool.shutdown(wait=False, kill_workers=True)
            return
        pending: set = set()
        in_flight = n_workers
        while True:
            while len(pending) < in_flight and (item := run.take()) is not None:
                i, (first, n) = item
                pending.add(pool.submit(play_indexed, job, i, first, n))
            if not pending:
                return
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            in_flight = 2 * n_workers
            for future in finished:
                run.put(*future.result())  # a worker's error is raised here
    except BaseException as exc:  # raised again in the caller
        run.fail(exc)


def play_shared(job: BlockJob, todo: Blocks, n_jobs: int) -> Iterator:
    """Yield each block's output in order, the blocks played by ``n_jobs - 1`` worker
    processes and a thread of this process, each taking the next block when it is free.

    This process starts at once, with its kernels and its strategy already loaded, while
    a new worker spends seconds importing and loading them: a first run does not wait for
    the workers, and a short run may end before they join. Which process plays a block
    does not change it (its dice depend on the seed and its first game only)."""
    run = _SharedRun(todo)
    n_workers = effective_n_jobs(n_jobs) - 1
    roles = [(_play_here, (run, job))]
    if n_workers > 0:
        roles.append((_play_in_workers, (run, job, n_workers)))
    threads = [threading.Thread(target=f, args=a, daemon=True) for f, a in roles]
    for t in threads:
        t.start()
    try:
        for i in range(len(todo)):
            yield run.get(i)
    except BaseException as exc:
        # An error, Ctrl-C or a caller that stopped early: the threads stop after their
        # block, unwaited (daemons), so a strategy stuck in one (sleeping) holds no one.
        run.stop.set()
        if isinstance(exc, KeyboardInterrupt):  # nor do the worker processes
            run.interrupt()
        raise
    run.stop.set()
    for t in threads:
        t.join()
