"""The compact state index of games with saved rolls and the level-by-level solver: in
memory, into a file (killed and resumed), on a dask LocalCluster — every value
bit-identical to the product-layout solve and equal to brute force on small games."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest
from brute_games import brute_value
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim import advise, get_rules, simulate
from yahtzee_sim._kernels.lanes import upper_total_lanes
from yahtzee_sim.engine.decision_cache import StateCache
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import (
    StateError,
    decode_state,
    encode_state,
    n_states,
    saved_rolls_of,
    state_layout,
)
from yahtzee_sim.solving import levels
from yahtzee_sim.solving.solver import TABLES, backward, solve, value_table

from helpers import dask_cluster, small_saved_game


def product_values(rules: RuleSet) -> np.ndarray:
    """The values of every state of the rules' layout, solved over the product of the
    axes (every saved count at every level; the layout games without saved rolls use)."""
    size = (1 << rules.n_boxes) * rules.flag_size * rules.saved_size * (rules.upper_cap + 1)
    V = np.zeros(size)
    backward(rules, upper_total_lanes(V))
    index = np.arange(n_states(rules))
    used, upper, flag = decode_state(rules, index)
    saved = saved_rolls_of(rules, index)
    flat = ((used * rules.flag_size + flag) * rules.saved_size + saved) * (rules.upper_cap + 1)
    return V[flat + upper]


@pytest.mark.parametrize("forced", [False, True], ids=["free-order", "forced-order"])
@pytest.mark.parametrize("cap", [1, 3, 5], ids=lambda c: f"cap{c}")
def test_compact_index_values_are_the_product_layouts_bit_for_bit(cap, forced):
    rules = small_saved_game(cap, forced)
    assert np.array_equal(solve(rules).values, product_values(rules))


@pytest.mark.parametrize("forced", [False, True], ids=["free-order", "forced-order"])
@pytest.mark.parametrize("cap", [1, 2, 5], ids=lambda c: f"cap{c}")
def test_every_saved_count_matches_brute_force(cap, forced):
    """Caps up to every unused roll saved (5), forced order too: states at every level
    with every saved count they can hold equal plain recursion over ordered dice."""
    rules = small_saved_game(cap, forced)
    table = solve(rules)
    assert table.expected_value() == pytest.approx(brute_value(rules), abs=1e-11)
    for used in (0b000011, 0b001111, 0b011111) if forced else (0b100001, 0b010110, 0b111011):
        k = bin(used).count("1")
        upper = 2 if used & 0b10 else (1 if used & 1 else 0)
        for saved in range(min(k, cap) + 1):
            ours = table.value(used, upper, 0, saved)
            assert ours == pytest.approx(brute_value(rules, used, upper, saved), abs=1e-11)


def test_the_layout_holds_what_occurs_and_refuses_the_rest():
    rules = small_saved_game(5)
    layout = state_layout(rules)
    assert layout.level_start[0] == 0 and layout.level_start[-1] == n_states(rules)
    assert list(layout.saved_count) == [1, 2, 3, 4, 5, 6, 6]
    with pytest.raises(StateError, match="0..1 saved rolls, got upper total 0 and 2 saved"):
        encode_state(rules, 0b1000, 0, 0, 2)  # one turn played: one roll saved at most
    with pytest.raises(StateError, match="upper totals 0..3"):
        encode_state(rules, 0b1, 4, 0, 0)  # ones filled: at most 3
    assert isinstance(StateError("x"), ValueError)


MAXI = get_rules("maxi-yatzy")


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**20 - 1), st.data())
def test_maxi_yatzy_index_round_trips(used, data):
    rules = MAXI
    layout = state_layout(rules)
    upper = data.draw(st.integers(0, int(layout.upper_count[used]) - 1))
    saved = data.draw(st.integers(0, min(2 * bin(used).count("1"), 38)))
    index = encode_state(rules, used, upper, 0, saved)
    assert 0 <= index < n_states(rules)
    assert decode_state(rules, index) == (used, upper, 0)
    assert saved_rolls_of(rules, index) == saved
    k = bin(used).count("1")
    assert layout.level_start[k] <= index < layout.level_start[k + 1]


def test_maxi_yatzy_counts_only_the_states_that_occur():
    rules = get_rules("maxi-yatzy")
    assert rules.saved_roll_cap == 38
    assert n_states(rules) == 1_373_699_926  # of 2**20 * 39 * 85 = 3,476,029,440


def test_solving_into_a_file_equals_the_solve_in_memory(tmp_path):
    rules = small_saved_game(5)
    path = tmp_path / "table.bin"
    seen = []
    report = levels.solve_to_file(rules, path, on_level=seen.append)
    assert seen == list(range(rules.n_boxes - 1, -1, -1))
    assert (report.solved_levels, report.resumed_levels) == (rules.n_boxes, 0)
    values = levels.open_table_file(rules, path, verify=True)
    assert np.array_equal(values, solve(rules).values)
    assert not any(p.exists() for p in levels.partial_paths(path))
    again = levels.solve_to_file(rules, tmp_path / "again.bin")
    assert (tmp_path / "again.bin").read_bytes() == path.read_bytes()  # byte-identical
    assert again.peak_rss_bytes > 0


_CHILD = """
import os, signal, sys
from pathlib import Path
sys.path[:0] = [{tests!r}, os.path.dirname({tests!r})]
from helpers import small_saved_game
from yahtzee_sim.solving import levels

mode, path = sys.argv[1], Path(sys.argv[2])
die = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
if mode == "after-level":  # killed once the third level is recorded
    levels.solve_to_file(small_saved_game(5), path, on_level=lambda k: k == 3 and die())
elif mode == "mid-write":  # killed half-way through writing the second level's values
    write = levels._write_level
    calls = []
    def half(partial, level, values):
        calls.append(1)
        if len(calls) == 2:
            with open(partial, "r+b") as fh:
                fh.seek(levels.HEADER_BYTES + 8 * level.start)
                fh.write(values[: len(values) // 2].tobytes())
            die()
        return write(partial, level, values)
    levels._write_level = half
    levels.solve_to_file(small_saved_game(5), path)
elif mode == "before-record":  # the level written, its progress record not
    record = levels._write_json
    calls = []
    def late(*args):
        calls.append(1)
        if len(calls) == 3:
            die()
        return record(*args)
    levels._write_json = late
    levels.solve_to_file(small_saved_game(5), path)
"""


@pytest.mark.parametrize(
    ("mode", "resumed"), [("after-level", 3), ("mid-write", 1), ("before-record", 1)]
)
def test_a_killed_solve_resumes_to_the_same_values(tmp_path, mode, resumed):
    """SIGKILL at a level boundary, half-way through writing a level and between writing
    a level and recording it: no table file appears, and running again finishes with
    the values of an uninterrupted solve."""
    rules = small_saved_game(5)
    path = tmp_path / "table.bin"
    script = tmp_path / "child.py"
    script.write_text(_CHILD.format(tests=os.path.dirname(__file__)))
    child = subprocess.run([sys.executable, str(script), mode, str(path)], check=False)
    assert child.returncode == -signal.SIGKILL
    assert not path.exists() and levels.partial_paths(path)[0].exists()
    report = levels.solve_to_file(rules, path)
    assert (report.resumed_levels, report.solved_levels) == (resumed, rules.n_boxes - resumed)
    assert np.array_equal(levels.open_table_file(rules, path, verify=True), solve(rules).values)


def test_a_damaged_recorded_level_is_solved_again(tmp_path):
    rules = small_saved_game(3)
    path = tmp_path / "table.bin"
    partial, _ = levels.partial_paths(path)
    levels.solve_to_file(rules, path, on_level=lambda k: None)
    # a partial solve whose recorded level was damaged after it was recorded
    seen = []

    def stop(k):
        seen.append(k)
        if k == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        levels.solve_to_file(rules, tmp_path / "b.bin", on_level=stop)
    bad_partial, _ = levels.partial_paths(tmp_path / "b.bin")
    start = int(state_layout(rules).level_start[3])
    with open(bad_partial, "r+b") as fh:
        fh.seek(levels.HEADER_BYTES + 8 * start)
        fh.write(b"\xff" * 8)
    report = levels.solve_to_file(rules, tmp_path / "b.bin")
    assert report.solved_levels == 3  # level 3 (damaged), then 1 and 0
    assert (tmp_path / "b.bin").read_bytes()[levels.HEADER_BYTES :] == path.read_bytes()[
        levels.HEADER_BYTES :
    ]
    assert not partial.exists()


def test_a_table_file_of_other_rules_is_refused(tmp_path):
    path = tmp_path / "table.bin"
    levels.solve_to_file(small_saved_game(2), path)
    with pytest.raises(levels.TableFileError, match="another table"):
        levels.open_table_file(small_saved_game(3), path)
    path.write_bytes(path.read_bytes()[:-8])
    with pytest.raises(levels.TableFileError, match="truncated"):
        levels.open_table_file(small_saved_game(2), path)


def test_a_dask_local_cluster_gives_bit_identical_values(tmp_path):
    rules = small_saved_game(5, forced=False)
    with dask_cluster() as client:
        levels.solve_to_file(rules, tmp_path / "cluster.bin", client=client)
    levels.solve_to_file(rules, tmp_path / "local.bin")
    assert (tmp_path / "cluster.bin").read_bytes() == (tmp_path / "local.bin").read_bytes()


def test_value_table_memory_maps_the_cached_file_and_play_reads_it():
    rules = small_saved_game(5)
    table = value_table(rules)
    assert table.meta["source"] in ("solved", "cache")
    assert isinstance(table.values.base, np.memmap) or table.values.base is not None
    assert table.expected_value() == pytest.approx(brute_value(rules), abs=1e-11)
    best = advise([1, 2, 2], 3, used=["ones", "pair"], upper=1, rules=rules, table=table)[0]
    assert best.value > 0
    one = simulate("optimal", rules=rules, n_games=20_000, seed=5, n_jobs=1)
    two = simulate("optimal", rules=rules, n_games=20_000, seed=5, n_jobs=2)
    assert np.array_equal(one.total, two.total)
    se = one.total.std() / np.sqrt(len(one.total))
    assert abs(one.total.mean() - table.expected_value()) < 3 * se


def test_a_sparse_state_cache_gives_the_dense_caches_slots(monkeypatch):
    """Above DENSE_LIMIT states the decision cache keeps its states sorted instead of a
    slot per state: the same slots, -1 for states not cached."""
    from yahtzee_sim.engine import decision_cache

    rules = small_saved_game(5)
    dense = StateCache(rules, {"x": ((1, 1), np.int16)})
    monkeypatch.setattr(decision_cache, "DENSE_LIMIT", 10)
    sparse = StateCache(rules, {"x": ((1, 1), np.int16)})
    assert dense.slot is not None and sparse.slot is None
    rng = np.random.default_rng(0)
    index = np.arange(n_states(rules))
    saved0 = index[saved_rolls_of(rules, index) == 0]
    for _ in range(5):
        states = rng.choice(saved0, 50)
        for c in (dense, sparse):
            c.fill_missing(states, lambda *a: None)
        assert np.array_equal(dense.slots(saved0), sparse.slots(saved0))
    assert (dense.slots(saved0) == -1).any() and dense.n == sparse.n


@pytest.fixture
def small_preset(monkeypatch):
    """``small-saved`` as a preset name the command line knows."""
    from yahtzee_sim.game.presets import PRESET_FIELDS

    rules = small_saved_game(5)
    fields = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    monkeypatch.setitem(PRESET_FIELDS, "small-saved", lambda: fields)
    return "small-saved"


def test_solve_command_reports_peak_memory_and_resumes(capsys, small_preset):
    from yahtzee_sim.cli import main

    assert main(["solve", "--rules", small_preset, "--json", "--force"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["expected_value"] == pytest.approx(brute_value(small_saved_game(5)), abs=1e-11)
    assert info["source"] == "solved" and info["peak_rss_bytes"] > 0
    assert info["states"] == n_states(small_saved_game(5))
    TABLES.forget()  # as a new process: the table from the cache folder
    assert main(["solve", "--rules", small_preset]) == 0
    assert "loaded from cache" in capsys.readouterr().out


def test_solve_command_on_a_scheduler_and_its_errors(capsys, small_preset):
    from yahtzee_sim.cli import main

    with dask_cluster() as client:
        address = client.scheduler.address
        assert main(["solve", "--rules", small_preset, "--force", "--json",
                     "--scheduler", address]) == 0  # fmt: skip
    info = json.loads(capsys.readouterr().out)
    assert info["expected_value"] == solve(small_saved_game(5)).expected_value()
    assert main(["solve", "--rules", "yatzy", "--scheduler", address]) == 2
    assert "saved rolls" in capsys.readouterr().err
    assert main(["solve", "--rules", small_preset, "--force", "--scheduler", "nowhere"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot reach the scheduler" in err


def test_a_damaged_table_file_in_the_cache_is_solved_again():
    rules = small_saved_game(4)
    table = value_table(rules)
    path = TABLES.paths(TABLES.key(rules))[0]
    expected = np.array(table.values)
    TABLES.forget()
    path.write_bytes(path.read_bytes()[:-8])  # truncated
    with pytest.warns(Warning, match="truncated or too long; solving it again"):
        again = value_table(rules)
    assert np.array_equal(again.values, expected)
