"""The compiled core's batched decision kernels and win values (:mod:`yahtzee_sim._core.batched`,
``upper_lane_fill``, ``win_values``, ``win_nodes``): the same decisions, nodes, games and
matches, byte for byte, as the numba kernels they replaced (digests recorded by
``tools/batched_digests.py`` before the port), whatever the number of threads, and clear
errors for arguments they do not take."""

from __future__ import annotations

import importlib.util
import json
import math
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim import simulate
from yahtzee_sim._core.batched import decision_buffers, lane_order, need_lane_decisions
from yahtzee_sim._core.upper_lane_fill import upper_lane_chunks, upper_lane_decisions
from yahtzee_sim._core.win_nodes import best_final_nodes, best_final_sizes, normal_cdf
from yahtzee_sim._core.win_values import beat_probability, win_aware_decisions

ROOT = Path(__file__).resolve().parents[2]
DIGESTS = json.loads((ROOT / "tests" / "golden" / "batched_digests.json").read_text())
_spec = importlib.util.spec_from_file_location(
    "batched_digests", ROOT / "tools" / "batched_digests.py"
)
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)
#: Presets whose cases take a second or two: the quick loop's.
QUICK = ("2-yatzy", "upper-3d4f", "yahtzee-6box", "yahtzee", "yahtzee-single-bonus")


def _cases(prefix: str) -> list:
    out = []
    for key in sorted(DIGESTS):
        if not key.startswith(prefix + ":"):
            continue
        name = key.rpartition("|")[2] if "|" in key else key.partition(":")[2]
        quick = prefix in ("fill", "need") and name in QUICK
        quick |= prefix in ("simulate", "match") and name in QUICK[:3] and "win|" not in key
        marks = () if quick else (pytest.mark.slow,)
        out.append(pytest.param(key, marks=marks, id=key))
    return out


@pytest.mark.parametrize("key", _cases("fill"))
def test_max_ev_decision_fills_are_the_numba_kernels_byte_for_byte(key):
    name = key.partition(":")[2]
    assert tool.fill_case(name) == DIGESTS[key]
    args = tool.fill_inputs(name)
    for first in range(3):  # the serial chunks shared out among three callers
        upper_lane_chunks(*args, first, 3)
    assert tool.digest(args[6], args[7]) == DIGESTS[key]


@pytest.mark.parametrize("key", _cases("need"))
def test_need_lane_decisions_are_the_numba_kernels_byte_for_byte(key):
    assert tool.need_case(key.partition(":")[2]) == DIGESTS[key]


@pytest.mark.parametrize("key", _cases("nodes"))
def test_best_final_nodes_are_the_numba_kernels_byte_for_byte(key):
    assert tool.nodes_case(key.partition(":")[2]) == DIGESTS[key]


@pytest.mark.parametrize("key", _cases("simulate"))
def test_games_of_the_strategies_playing_by_these_kernels_are_the_numba_games(key):
    sid, _, name = key.partition(":")[2].partition("|")
    games = next(g for s, n, g in tool.SIMULATIONS if (s, n) == (sid, name))
    rules = tool.rules_named(name)
    assert simulate(sid, games, seed=7, rules=rules, progress=False).digest() == DIGESTS[key]


@pytest.mark.parametrize("key", _cases("match"))
def test_visible_matches_of_the_win_seeking_strategies_are_the_numba_matches(key):
    seats, _, name = key.partition(":")[2].partition("|")
    seats = tuple(seats.split(","))
    games = next(g for s, n, g in tool.MATCHES if (s, n) == (seats, name))
    assert tool.match_case(seats, name, games) == DIGESTS[key]


@pytest.mark.parametrize("name", ["yahtzee-single-bonus", "yahtzee"])
def test_the_decisions_do_not_depend_on_the_number_of_threads(name):
    args = tool.fill_inputs(name)
    upper_lane_decisions(*args, 1)
    one = args[6].copy(), args[7].copy()
    args[6][:], args[7][:] = -7, -7
    upper_lane_decisions(*args, 2)
    assert np.array_equal(one[0], args[6]) and np.array_equal(one[1], args[7])
    rules, kr, table, states, used, upper, flag, lane = tool.need_inputs(name)
    order, none = lane_order(states), np.zeros(0, dtype=np.int64)
    outs = []
    for threads in (1, 2):
        keep, cat = decision_buffers(threading.local(), len(states), rules)
        keep[:], cat[:] = 0, 0
        need_lane_decisions(
            kr, table, order, used, upper, flag, lane, none, none, keep, cat, none, threads
        )
        outs.append((keep, cat))
    assert np.array_equal(outs[0][0], outs[1][0]) and np.array_equal(outs[0][1], outs[1][1])


@pytest.mark.slow
def test_the_nodes_do_not_depend_on_the_number_of_threads():
    opponents, laws, normal, n_normal, n_quantiles = tool.nodes_inputs("yahtzee-6box", 4)
    m = len(opponents[0])
    got = []
    for threads in (1, 2):
        size = np.empty(m, dtype=np.int64)
        best_final_sizes(opponents, laws, n_normal, n_quantiles, size, threads)
        ptr = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(size, out=ptr[1:])
        nodes = (ptr, *(np.zeros(int(ptr[-1])) for _ in range(3)), np.empty(m, dtype=np.int64))
        best_final_nodes(opponents, laws, normal, nodes, threads)
        got.append(nodes)
    for a, b in zip(*got, strict=True):
        assert np.array_equal(a, b)


@given(st.floats(-12.0, 12.0))
@settings(max_examples=300, deadline=None)
def test_the_kernels_normal_cdf_is_within_1e_11_of_erfc(x):
    assert abs(normal_cdf(x) - 0.5 * math.erfc(-x / math.sqrt(2.0))) < 1e-11


def test_arguments_they_do_not_take_are_refused_with_a_clear_error():
    args = list(tool.fill_inputs("2-yatzy"))
    with pytest.raises(ValueError, match="used-masks"):
        upper_lane_decisions(*args[:2], args[2] + 64, *args[3:])
    with pytest.raises(ValueError, match="out_rows"):
        upper_lane_decisions(*args[:5], args[5] + len(args[5]), *args[6:])
    with pytest.raises(ValueError, match="dtype|type"):
        upper_lane_decisions(*args[:6], args[6].astype(np.int32), args[7])
    with pytest.raises(ValueError, match="step"):
        upper_lane_chunks(*args, 0, 0)
    rules, kr, table, states, used, upper, flag, lane = tool.need_inputs("2-yatzy")
    keep, cat = decision_buffers(threading.local(), len(states), rules)
    none = np.zeros(0, dtype=np.int64)
    order = lane_order(states)
    with pytest.raises(ValueError, match="need lanes"):
        need_lane_decisions(
            kr, args[1], order, used, upper, flag, lane, none, none, keep, cat, none
        )
    with pytest.raises(ValueError, match="order"):
        need_lane_decisions(
            kr, table, order + 5, used, upper, flag, lane, none, none, keep, cat, none
        )
    with pytest.raises(ValueError, match="keep must have shape"):
        need_lane_decisions(
            kr, table, order, used, upper, flag, lane, none, none, keep[:, :, :1], cat, none
        )
    with pytest.raises(ValueError, match="keep must have shape"):  # a tile short
        need_lane_decisions(
            kr, table, order, used, upper, flag, lane, none, none, keep[:-1], cat, none
        )
    bad_ptr = np.zeros(len(order) + 1, dtype=np.int64) + 3
    with pytest.raises(ValueError, match="first_roll"):
        need_lane_decisions(
            kr, table, order, used, upper, flag, lane, bad_ptr, none, keep, cat, none
        )
    with pytest.raises(ValueError, match="outside probs"):
        beat_probability(
            np.zeros(3), 2, 4, (np.zeros(1), np.ones(1), np.zeros(1), -np.inf, 0.5), 1.0
        )
    n = 1
    with pytest.raises(ValueError, match="mean and sd"):
        win_aware_decisions(
            kr, none[:0], used[:n], upper[:n], flag[:n], upper[:n], np.zeros(1), np.zeros(1),
            upper[:n], upper[:n], np.zeros((n, 1)), np.zeros((n, 1)), upper[:n], np.zeros(2),
            np.ones(2) / 2, keep, cat,
        )  # fmt: skip
    opponents, laws, normal, _, _ = tool.nodes_inputs("upper-3d4f", 2)
    m = len(opponents[0])
    tight = (np.arange(m + 1, dtype=np.int64), np.zeros(m), np.zeros(m), np.zeros(m), none[:0])
    with pytest.raises(ValueError, match="count|needed"):
        best_final_nodes(opponents, laws, normal, tight)
