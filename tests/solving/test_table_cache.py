"""The one cache of solved tables (yahtzee_sim.solving.cache.TableCache): memory, disk, solve."""

from __future__ import annotations

import threading
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving.cache import REGISTRY, CacheWarning, TableCache, TableCaches, table_cache


@dataclass(eq=False)
class Table:
    values: np.ndarray
    seconds: float = 0.0
    meta: dict = field(default_factory=dict)


class Solver:
    """Counts solves; solves ``arange(n) * factor``."""

    def __init__(self, n=50, factor=1.5):
        self.n, self.factor, self.calls = n, factor, 0

    def solve(self):
        self.calls += 1
        return Table(np.arange(self.n) * self.factor)

    def restore(self, read):
        got = read(self.n)
        return None if got is None else Table(got[0])


def get(cache, key, solver, **kw):
    return cache.get(
        key,
        solve=solver.solve,
        arrays=lambda t: [t.values],
        restore=solver.restore,
        **kw,
    )


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path))
    return tmp_path


def test_memory_hit_returns_the_same_table(folder):
    cache, solver = TableCache("t-mem"), Solver()
    first = get(cache, "k", solver)
    assert first.meta["source"] == "solved"
    assert get(cache, "k", solver) is first
    assert solver.calls == 1


def test_disk_hit_after_forgetting(folder):
    cache, solver = TableCache("t-disk"), Solver()
    first = get(cache, "k", solver)
    assert first.meta["path"] == str(folder / "t-disk-k-v1.bin")
    cache.forget()
    again = get(cache, "k", solver)
    assert solver.calls == 1
    assert again.meta["source"] == "cache" and again is not first
    np.testing.assert_array_equal(again.values, first.values)


def test_corrupt_file_detected_by_checksum_and_resolved(folder):
    cache, solver = TableCache("t-bad"), Solver()
    get(cache, "k", solver)
    (path,) = cache.paths("k")
    raw = bytearray(path.read_bytes())
    raw[-3] ^= 0x10  # same length: only the checksum can tell
    path.write_bytes(bytes(raw))
    cache.forget("k")
    with pytest.warns(CacheWarning, match="checksum mismatch"):
        rebuilt = get(cache, "k", solver)
    assert rebuilt.meta["source"] == "solved" and solver.calls == 2
    np.testing.assert_array_equal(rebuilt.values, np.arange(50) * 1.5)
    cache.forget("k")
    with warnings.catch_warnings():  # the re-solved table was written again, intact
        warnings.simplefilter("error")
        assert get(cache, "k", solver).meta["source"] == "cache"


def test_a_file_of_another_size_is_resolved_not_misread(folder):
    cache = TableCache("t-size")
    get(cache, "k", Solver(n=50))
    cache.forget()
    bigger = Solver(n=60)
    with pytest.warns(CacheWarning, match="wrong size"):
        table = get(cache, "k", bigger)
    assert bigger.calls == 1 and len(table.values) == 60


def test_parts_are_stored_and_checked_together(folder):
    cache = TableCache("t-parts", parts=("mean", "sd"))
    calls = []

    def solve():
        calls.append(1)
        return (np.ones(5), np.full(5, 2.0))

    def restore(read):
        return read(5, 5)

    kw = dict(solve=solve, arrays=list, restore=restore)
    cache.get("k", **kw)
    assert [p.name for p in cache.paths("k")] == ["t-parts-mean-k-v1.bin", "t-parts-sd-k-v1.bin"]
    cache.forget()
    mean, sd = cache.get("k", **kw)
    assert len(calls) == 1 and mean[0] == 1.0 and sd[0] == 2.0
    cache.paths("k")[1].unlink()  # one part missing: solved again
    cache.forget()
    cache.get("k", **kw)
    assert len(calls) == 2


def test_use_cache_false_touches_nothing(folder):
    cache, solver = TableCache("t-off"), Solver()
    table = get(cache, "k", solver, use_cache=False)
    assert table.meta == {"source": "solved"}
    assert not cache.memory and not any(folder.iterdir())


def test_memory_only_cache_writes_no_file(folder):
    cache, solver = TableCache("t-ram", disk=False), Solver()
    assert cache.get("k", solve=solver.solve) is cache.get("k", solve=solver.solve)
    assert solver.calls == 1 and not any(folder.iterdir())


@settings(max_examples=30, deadline=None)
@given(bound=st.integers(1, 4), keys=st.lists(st.sampled_from("abcdef"), max_size=25))
def test_eviction_bound_and_least_recently_used_order(bound, keys):
    cache = TableCache("t-lru", max_entries=bound, disk=False)
    recent: list[str] = []
    for k in keys:
        cache.get(k, solve=lambda k=k: k.upper())
        recent = [*(r for r in recent if r != k), k]
        assert len(cache.memory) <= bound
    assert list(cache.memory) == recent[-bound:] if recent else not cache.memory


def test_threads_asking_at_once_solve_once(folder):
    cache, solver = TableCache("t-threads"), Solver()
    slow = solver.solve
    solver.solve = lambda: (time.sleep(0.05), slow())[1]  # long enough for all to wait
    got = []
    threads = [
        threading.Thread(target=lambda: got.append(get(cache, "k", solver))) for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert solver.calls == 1 and all(g is got[0] for g in got)


def test_key_is_the_rules_fingerprint_and_what_was_solved():
    rules = get_rules("2-yatzy")
    assert TableCache.key(rules) == rules.fingerprint()
    assert TableCache.key(rules, "all") == f"{rules.fingerprint()}-all"
    assert TableCache.key(get_rules("yatzy"), "all") != TableCache.key(rules, "all")


def test_bad_bound_is_a_value_error():
    with pytest.raises(ValueError, match="max_entries"):
        TableCache("t", max_entries=0)


class _SlowSolver(Solver):
    """Writes a line to ``log`` for every solve, and takes ``seconds``."""

    def __init__(self, log, seconds):
        super().__init__()
        self.log, self.seconds = log, seconds

    def solve(self):
        with open(self.log, "a") as fh:
            fh.write("solved\n")
        time.sleep(self.seconds)
        return super().solve()


def _get_in_process(log, out):
    table = get(TableCache("t-race"), "k", _SlowSolver(log, 1.0))
    np.save(out, table.values)


def test_processes_asking_at_once_solve_a_table_once(folder):
    """Two processes that need one table at the same time: one solves it, the other
    waits for its file and loads it."""
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("needs the fork start method")
    ctx = multiprocessing.get_context("fork")
    log = folder / "solves.log"
    procs = [
        ctx.Process(target=_get_in_process, args=(log, folder / f"out{k}.npy")) for k in range(2)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    assert log.read_text().splitlines() == ["solved"]
    for k in range(2):
        np.testing.assert_array_equal(np.load(folder / f"out{k}.npy"), np.arange(50) * 1.5)


def test_the_registry_holds_one_cache_per_kind():
    caches = TableCaches()
    first = caches.get("squares-test", max_entries=3, disk=False)
    assert caches.get("squares-test", max_entries=3, disk=False) is first
    assert caches.kinds() == ["squares-test"]
    with pytest.raises(ValueError, match="other options"):
        caches.get("squares-test", max_entries=4, disk=False)


def test_threads_asking_the_registry_at_once_get_one_cache():
    caches = TableCaches()
    got, start = [], threading.Barrier(8)

    def ask():
        start.wait()
        got.append(caches.get("threads-test", disk=False))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8 and all(c is got[0] for c in got)


def test_the_package_tables_are_registered():
    from yahtzee_sim.solving import solver, target

    assert table_cache("values", max_entries=16) is solver.TABLES
    assert table_cache("target", max_entries=2) is target.TABLES
    assert {"values", "target"} <= set(REGISTRY.kinds())


def test_forget_all_empties_every_cache_in_memory():
    caches = TableCaches()
    a = caches.get("a-test", disk=False)
    b = caches.get("b-test", disk=False)
    a.get("k", solve=lambda: np.zeros(2))
    b.get("k", solve=lambda: np.ones(2))
    caches.forget_all()
    assert not a.memory and not b.memory


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(0, 3 * 4096),
    spans=st.lists(st.tuples(st.integers(0, 3 * 4096), st.integers(1, 600)), max_size=4),
    negative_zero=st.booleans(),
)
def test_an_array_file_reads_back_bit_for_bit_with_zero_blocks_left_holes(
    tmp_path_factory, n, spans, negative_zero
):
    """``save_array``/``load_array``: the same bits back (-0.0 included), whatever runs of
    zeros the array holds; the blocks of zero bits are holes of the file."""
    from yahtzee_sim.engine import atomic
    from yahtzee_sim.solving.cache import load_array, save_array

    values = np.zeros(n)
    for start, length in spans:
        values[start : start + length] = np.arange(1, len(values[start : start + length]) + 1)
    if negative_zero and n:
        values[n // 2] = -0.0  # not zero bits: written
    path = tmp_path_factory.mktemp("arrays") / "a.bin"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(atomic, "ARRAY_BLOCK", 1024)  # small blocks: several per array
        assert save_array(path, values, {"what": "test"})
    got = load_array(path, n)
    assert got is not None and got.tobytes() == values.tobytes()
    with pytest.warns(CacheWarning, match="truncated or wrong size"):
        assert load_array(path, n + 1) is None  # another size: refused
    bits = values.view(np.uint64)
    written = sum(bool(bits[i : i + 1024].any()) for i in range(0, n, 1024))
    assert path.stat().st_blocks * 512 <= 8 * 1024 * written + 64 * 1024  # holes take no disk
