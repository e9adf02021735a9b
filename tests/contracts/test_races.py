"""Stress tests: state shared between threads stays consistent when threads reach it at once.

Each test starts many threads together (a barrier), lets each run a fixed number of
rounds of one path, and checks that every thread got what a single thread gets: no
exception, the same values. Nothing sleeps to order the threads; every test ends in a
few seconds whatever the interleaving. The interleavings are made likely rather than
waited for: during these tests Python switches threads every microsecond, the garbage
collector runs after every 50 new objects, and each collection runs a little Python code
(a ``gc.callbacks`` hook), as finalizers of collected garbage do in a real run. That is
how a C-level walk of a dict such as ``list(sys.modules.items())`` is interrupted: the
items' tuples are new objects (beyond the 2,000 spare pairs CPython keeps, so the test
puts 3,000 more modules in ``sys.modules``, as a large application imports), allocating
them starts a collection, the collection runs Python code, and the interpreter may hand
itself to another thread there, which may import a module.

The paths (issue 55):

- a strategy's error turned into one line (:func:`~yahtzee_sim.engine.decide.user_frame`
  and the folders of the package it compares frames with) while another thread keeps
  putting new modules into ``sys.modules`` and taking them out (the failure once seen:
  ``RuntimeError: dictionary changed size during iteration`` in ``_package_roots``);
- the registry's first look at the ids installed packages declare;
- the first load of one plugin file, and of plugin modules found in the current
  directory, by many threads;
- the per-state decision cache of a table strategy (greedy), prepared, filled and grown
  by many threads at once;
- :class:`~yahtzee_sim.solving.cache.TableCache` asked, filled and emptied by many threads.

``--stress-seed N`` draws another schedule (switch interval, collection threshold, the
states and keys the threads share); CI runs this file with several seeds.
"""

from __future__ import annotations

import gc
import importlib
import sys
import textwrap
import threading
import types
from collections.abc import Callable

import numpy as np
import pytest

import yahtzee_sim.engine.registry as registry
from yahtzee_sim import get_rules
from yahtzee_sim.engine.decide import prepare, user_frame
from yahtzee_sim.engine.plugins import load_plugin
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import StrategyRuntimeError
from yahtzee_sim.game.state import decode_state, n_states
from yahtzee_sim.solving.cache import TableCache
from yahtzee_sim.strategies import Strategy
from yahtzee_sim.strategies.greedy import Greedy

THREADS = 12
JOIN_SECONDS = 60  # a hung thread fails the test instead of hanging the suite


def python_code_in_collections(phase: str, info: dict) -> None:
    """A ``gc.callbacks`` hook: Python code run at each collection (where the
    interpreter may switch threads)."""
    for _ in range(2):
        pass


@pytest.fixture(autouse=True)
def busy_interpreter(stress_rng):
    """Switch threads every microsecond and collect garbage after every 50 new objects,
    running Python code at each collection, during the test (with ``--stress-seed N``:
    every 1 to 10 microseconds and every 10 to 200 objects, drawn from the seed)."""
    interval, thresholds = sys.getswitchinterval(), gc.get_threshold()
    switch, collect = 1e-6, 50
    if stress_rng is not None:
        switch = float(stress_rng.choice([1e-6, 2e-6, 5e-6, 1e-5]))
        collect = int(stress_rng.integers(10, 201))
    sys.setswitchinterval(switch)
    gc.set_threshold(collect, 5, 5)
    gc.callbacks.append(python_code_in_collections)
    yield
    gc.callbacks.remove(python_code_in_collections)
    sys.setswitchinterval(interval)
    gc.set_threshold(*thresholds)


def hammer(rounds: int, work: Callable[[int, int], object], threads: int = THREADS) -> list:
    """Run ``work(thread, round)`` for every round in each of ``threads`` threads started
    together; return the results (``[thread][round]``), raising the first exception."""
    barrier = threading.Barrier(threads)
    results: list[list] = [[] for _ in range(threads)]
    errors: list[BaseException] = []

    def run(t: int) -> None:
        try:
            barrier.wait()
            for r in range(rounds):
                results[t].append(work(t, r))
        except BaseException as exc:  # reported by the caller
            errors.append(exc)
            barrier.abort()

    pool = [threading.Thread(target=run, args=(t,), daemon=True) for t in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join(JOIN_SECONDS)
    assert not any(thread.is_alive() for thread in pool), "a thread did not finish"
    if errors:
        raise errors[0]
    return results


class ModuleChurn:
    """A thread that keeps putting new modules into ``sys.modules`` and taking them out
    (as imports in other threads do)."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.count = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        names: list[str] = []
        while not self.stop.is_set():
            name = f"yahtzee_sim_race_probe_{id(self)}_{self.count}"
            sys.modules[name] = types.ModuleType(name)
            names.append(name)
            if len(names) > 20:
                del sys.modules[names.pop(0)]
            self.count += 1
        for name in names:
            sys.modules.pop(name, None)

    def __enter__(self) -> ModuleChurn:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(JOIN_SECONDS)


class Broken(Strategy):
    """A strategy whose ``prepare()`` raises."""

    name = "broken-for-races"

    def prepare(self, rules) -> None:
        raise ZeroDivisionError("prepared badly")

    def keep(self, view):  # pragma: no cover - never reached
        raise NotImplementedError

    def box(self, view):  # pragma: no cover - never reached
        raise NotImplementedError


def test_error_wrapping_while_modules_are_imported():
    rules = get_rules("yahtzee")
    try:
        Broken().prepare(rules)
    except ZeroDivisionError as exc:
        raised = exc
    expected = user_frame(raised)
    assert expected.startswith(__file__)

    def work(t: int, r: int) -> str:
        assert user_frame(raised) == expected
        with pytest.raises(StrategyRuntimeError) as info:
            prepare(Broken(), rules)
        return info.value.where

    # as many modules as a large application imports: more than the 2,000 spare pairs
    # CPython keeps, so that listing sys.modules' items allocates (and collects garbage)
    padding = {f"yahtzee_sim_race_pad_{i}": types.ModuleType("pad") for i in range(3000)}
    sys.modules.update(padding)
    try:
        with ModuleChurn() as a, ModuleChurn() as b:
            results = hammer(40, work, threads=4)
    finally:
        for name in padding:
            sys.modules.pop(name, None)
    assert min(churn.count for churn in (a, b)) > 0
    assert {where for per_thread in results for where in per_thread} == {
        f"{__file__}:{Broken.prepare.__code__.co_firstlineno + 1}"
    }


def test_registry_first_discovery(monkeypatch):
    for _ in range(15):  # each round: a process that has not read the entry points yet
        monkeypatch.setattr(registry, "_DISCOVERED", False)
        monkeypatch.setattr(registry, "_ENTRIES", {})
        monkeypatch.setattr(registry, "_LATEST", {})
        results = hammer(1, lambda t, r: registry.strategy_class("greedy"))
        assert {cls for per_thread in results for cls in per_thread} == {Greedy}
        assert "optimal" in registry.strategy_ids()


def test_strategy_names_read_by_threads_at_once():
    """A strategy's name and parameters read by many threads at once, each round a new
    class without a constructor of its own: ``inspect.signature`` of such a class parses
    a text signature, and CPython 3.11's parser fails when two threads parse together
    (``SystemError: AST constructor recursion depth mismatch``); each class's
    constructor parameters are read once, under a lock."""
    for k in range(100):
        cls = type(f"Nameless{k}", (Broken,), {"name": f"nameless-{k}"})
        results = hammer(20, lambda t, r, cls=cls: (repr(cls()), strategy_label(cls())))
        assert {x for per_thread in results for x in per_thread} == {
            (f"Nameless{k}()", f"nameless-{k}")
        }


PLUGIN = textwrap.dedent(
    """
    from yahtzee_sim.strategies import Strategy

    WORK = sum(i * i for i in range(5_000))  # an import that takes a while


    class Keep(Strategy):
        def keep(self, view):
            return view.dice

        def box(self, view):
            return view.box_points.argmax(axis=1)
    """
)


def test_first_load_of_a_plugin_file(tmp_path):
    for k in range(20):
        path = tmp_path / f"race_plugin_{k}.py"
        path.write_text(PLUGIN)
        results = hammer(1, lambda t, r, path=path: type(load_plugin(f"{path}:Keep")))
        classes = {cls for per_thread in results for cls in per_thread}
        assert len(classes) == 1 and classes.pop().__name__ == "Keep"


def test_plugin_modules_from_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = [p for p in sys.path if p not in ("", str(tmp_path))]
    monkeypatch.setattr(sys, "path", path)
    for k in range(10):
        names = [f"race_module_{k}_{t}" for t in range(THREADS)]
        for name in names:
            (tmp_path / f"{name}.py").write_text(PLUGIN)
        importlib.invalidate_caches()
        results = hammer(1, lambda t, r, names=names: type(load_plugin(f"{names[t]}:Keep")))
        assert [per_thread[0].__module__ for per_thread in results] == names
        for name in names:
            sys.modules.pop(name, None)
    assert sys.path == path  # the folder was taken off the path again


def views_of(rules, states: np.ndarray, rolls_left: int, seed: int) -> TurnView:
    """One game at each turn-start state of ``states``, at a random roll."""
    t = rules.tables
    n = len(states)
    rng = np.random.default_rng(seed)
    used, upper, flag = decode_state(rules, states)
    rolls = rng.integers(0, t.n_rolls, size=n)
    turn = int(np.median([bin(int(u)).count("1") for u in used]))
    return TurnView(
        rules,
        games=np.arange(n, dtype=np.int64),
        dice=t.roll_counts[rolls],
        roll_index=rolls.astype(np.int32),
        rolls_left=rolls_left,
        turn=turn,
        used=np.asarray(used, dtype=np.int64),
        upper_total=np.asarray(upper, dtype=np.int64),
        flag=np.asarray(flag, dtype=np.int64),
        score=np.zeros(n, dtype=np.int64),
        box_scores=np.zeros((n, rules.n_boxes), dtype=np.int16),
    )


def test_decision_cache_prepared_filled_and_grown_by_threads(stress_seed):
    rules = get_rules("yahtzee")
    full = (1 << rules.n_boxes) - 1
    rng = np.random.default_rng(55 + 1000 * stress_seed)
    candidates = rng.choice(n_states(rules), size=40_000, replace=False)
    used, _, _ = decode_state(rules, candidates)
    states = np.sort(candidates[np.asarray(used) != full])[: THREADS * 400]
    parts = np.array_split(rng.permutation(states), THREADS)  # 12 x 400 states: it grows
    views = [(views_of(rules, p, 2, t), views_of(rules, p, 0, t)) for t, p in enumerate(parts)]
    alone = Greedy()
    expected = [(alone.keep(k), alone.box(b)) for k, b in views]
    for _ in range(3):
        shared = Greedy()  # prepared by the threads, at once
        results = hammer(1, lambda t, r, s=shared: (s.keep(views[t][0]), s.box(views[t][1])))
        for t, ((keep, box),) in enumerate(results):
            np.testing.assert_array_equal(keep, expected[t][0])
            np.testing.assert_array_equal(box, expected[t][1])


def test_table_cache_from_threads(stress_seed):
    cache = TableCache("races-doc", max_entries=3, disk=False)
    solved = []

    def solve(key: str) -> np.ndarray:
        solved.append(key)
        return np.full(4, float(len(key)))

    def work(t: int, r: int) -> bool:
        key = "k" * (1 + (t + r + stress_seed) % 5)
        table = cache.get(key, solve=lambda: solve(key))
        if r % 7 == 0:
            cache.forget(key if t % 2 else None)
        return bool((table == len(key)).all()) and len(cache.memory) <= 3

    results = hammer(200, work)
    assert all(ok for per_thread in results for ok in per_thread)
    assert set(solved) == {"k" * n for n in range(1, 6)}


def test_package_roots_cover_every_subpackage_kept_outside_the_package():
    """The roots are computed from a list of names, not from what is imported: the list
    must be the sub-packages ``pyproject.toml`` maps to folders outside the package."""
    tomllib = pytest.importorskip("tomllib")
    from pathlib import Path

    import yahtzee_sim.analysis
    import yahtzee_sim.strategies
    from yahtzee_sim.engine.decide import OUTSIDE_SUBPACKAGES, package_roots

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    if not pyproject.exists():  # pragma: no cover - tests run outside a checkout
        pytest.skip("no pyproject.toml")
    mapped = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]["package-dir"]
    assert set(OUTSIDE_SUBPACKAGES) == set(mapped) - {"yahtzee_sim"}
    for package in (yahtzee_sim.strategies, yahtzee_sim.analysis):
        folder = str(Path(package.__file__).resolve().parent) + "/"
        assert folder in package_roots()
