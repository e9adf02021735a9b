"""win-target: the exact laws it reads, the law of the opponents' best final, its box
values, and its exact P(win) in a reduced game against the best response."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtr, ndtri

from yahtzee_sim import simulate
from yahtzee_sim._core.win_nodes import best_final_nodes, best_final_sizes
from yahtzee_sim._core.win_values import beat_probability
from yahtzee_sim._kernels.win_values import NODE_WEIGHT
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.exact.pairs import evaluate_pair
from yahtzee_sim.exact.points_to_come import FutureError, future_law, future_laws, future_moments
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import decode_state
from yahtzee_sim.multiplayer.duel import solve_duel
from yahtzee_sim.multiplayer.matches import play_matches, win_shares_of
from yahtzee_sim.strategies import get_strategy, strategy_class
from yahtzee_sim.strategies.win_seeking_visible import WinAware, WinTarget

#: The upper section alone, scaled down: its exact two-player values take a second.
SMALL = "upper-3d4f"


def _pad(a, n):
    return np.pad(a, (0, n - len(a)))


@pytest.mark.parametrize("rules_name", [SMALL, "yahtzee-6box"])
def test_future_laws_are_the_exact_law_of_each_state(rules_name):
    rules = get_rules(rules_name)
    laws = future_laws(rules, max_open=2)
    rng = np.random.default_rng(0)
    held = np.flatnonzero(laws.length > 1)
    assert len(held) > 0
    for s in rng.choice(held, min(25, len(held)), replace=False):
        got = laws.pool[laws.offset[s] : laws.offset[s] + laws.length[s]]
        want = future_law(rules, int(s))
        n = max(len(got), len(want))
        np.testing.assert_allclose(_pad(got, n), _pad(want, n), atol=1e-13)
        assert laws.support[s] == np.count_nonzero(got >= NODE_WEIGHT)
    used = decode_state(rules, np.arange(len(laws.length)))[0]
    open_boxes = np.array([rules.n_boxes - bin(int(u)).count("1") for u in used])
    assert np.all(laws.length[open_boxes > 2] == 0) and np.any(open_boxes > 2)


def test_laws_with_yahtzee_bonuses_are_exact():
    rules = get_rules("yahtzee")  # flags and bonuses: states with one open box
    laws = future_laws(rules, max_open=1)
    used, _, flag = decode_state(rules, np.flatnonzero(laws.length > 1))
    rng = np.random.default_rng(1)
    for s in rng.choice(np.flatnonzero(laws.length > 1)[flag > 0], 12, replace=False):
        got = laws.pool[laws.offset[s] : laws.offset[s] + laws.length[s]]
        want = future_law(rules, int(s))
        n = max(len(got), len(want))
        np.testing.assert_allclose(_pad(got, n), _pad(want, n), atol=1e-13)
    assert used.size > 0


def test_bad_max_open_is_a_value_error():
    with pytest.raises(FutureError, match="max_open"):
        future_laws(SMALL, max_open=-1)
    assert issubclass(FutureError, ValueError)


def _nodes(laws, moments, fb, ft, ost, osc, n_normal=5, n_q=7):
    """The kernel's nodes for one game (rows of one)."""
    opponents = (
        np.array([fb]),
        np.array([ft]),
        np.array([ost], dtype=np.int64),
        np.array([osc], dtype=np.int64),
        np.array([len(ost)]),
    )
    laws = (laws.pool, laws.offset, laws.length, laws.support)
    size = np.empty(1, dtype=np.int64)
    best_final_sizes(opponents, laws, n_normal, n_q, size)
    x, w, below = np.empty(size[0]), np.empty(size[0]), np.empty(size[0])
    nodes = (np.array([0, size[0]]), x, w, below, np.empty(1, dtype=np.int64))
    z = ndtri((np.arange(n_normal) + 0.5) / n_normal)
    best_final_nodes(
        opponents, laws, (moments.mean, moments.sd, z, np.full(n_normal, 1 / n_normal)), nodes
    )
    c = nodes[4][0]
    return x[:c], w[:c], below[:c]


@pytest.mark.parametrize("n_opponents,finished", [(1, None), (2, None), (2, 45), (3, 60)])
def test_exact_nodes_are_the_law_of_the_best_final(n_opponents, finished):
    rules = get_rules("yahtzee-6box")
    laws, moments = future_laws(rules, 3), future_moments(rules)
    rng = np.random.default_rng(n_opponents)
    held = np.flatnonzero(laws.length > 1)
    ost = rng.choice(held, n_opponents)
    osc = rng.integers(10, 60, n_opponents)
    x, w, below = _nodes(laws, moments, finished or 0, int(finished is not None), ost, osc)
    # brute force: the CDF of the best final is the product of the opponents' CDFs
    top = int(max(osc + laws.length[ost])) + 1
    cdf = np.ones(top)
    for s, sc in zip(ost, osc, strict=True):
        pmf = np.zeros(top)
        pmf[sc : sc + laws.length[s]] = laws.pool[laws.offset[s] : laws.offset[s] + laws.length[s]]
        cdf *= np.cumsum(pmf)
    if finished is not None:
        cdf[:finished] = 0.0
    assert np.all(np.diff(x) > 0) and w.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(below + w, cdf[x.astype(int)], atol=20 * NODE_WEIGHT)
    np.testing.assert_allclose(below[1:], np.cumsum(w)[:-1], atol=1e-14)
    assert w.min() >= NODE_WEIGHT * 0.999 or len(w) == 1


def test_normal_nodes_are_quantiles_of_the_best_final():
    rules = get_rules("yahtzee-6box")
    laws, moments = future_laws(rules, 1), future_moments(rules)
    start = 0  # the empty score sheet: no law, a normal final
    x, w, _ = _nodes(laws, moments, 0, 0, [start], [7], n_normal=5)
    mu, sd = 7 + moments.mean[start], moments.sd[start]
    np.testing.assert_allclose(x, mu + sd * ndtri((np.arange(5) + 0.5) / 5), atol=1e-12)
    np.testing.assert_allclose(w, 0.2)
    x, w, _ = _nodes(laws, moments, 0, 0, [start, start], [7, 15], n_q=7)
    g = ndtr((x - mu) / sd) * ndtr((x - 8 - mu) / sd)
    np.testing.assert_allclose(g, (np.arange(7) + 0.5) / 7, atol=1e-6)
    x, _, _ = _nodes(laws, moments, 10_000, 1, [start], [7], n_normal=5)  # a finished total
    assert np.all(x == 10_000)  # above every normal node


def _beat(row, x, base, share):
    """P(win) against an integer total ``x`` by brute force: P(more than ``x - base``
    more points) plus ``share`` of P(exactly that many), from the row's steps."""
    at = lambda t: 1.0 if t <= 0 else (row[t] if t < len(row) else 0.0)  # noqa: E731
    k = int(x - base)
    return at(k + 1) + share * (at(k) - at(k + 1))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=1, max_size=30),
    st.lists(st.integers(-40, 80), min_size=1, max_size=40, unique=True),
    st.integers(-10, 60),
    st.integers(0, 39),
    st.integers(1, 4),
)
def test_beat_probability_is_the_mean_chance_of_beating_each_node(row, nodes, base, tie, k):
    row = np.sort(np.asarray([1.0, *row]))[::-1].copy()  # P(at least t more), t = 0, 1, ..
    x = np.sort(np.asarray(nodes, dtype=np.float64))
    w = np.linspace(1, 2, len(x))
    w /= w.sum()
    tie_at = x[tie % len(x)]  # k finished opponents tied there: the win split k + 1 ways
    rival = (x, w, np.cumsum(w) - w, tie_at, 1.0 / (k + 1))
    probs = np.concatenate([np.zeros(3), row])  # the row at offset 3 of a pool
    got = beat_probability(probs, 3, len(row), rival, float(base))
    want = sum(
        wj * _beat(row, xj, base, 1.0 / (k + 1) if xj == tie_at else 0.5)
        for xj, wj in zip(x, w, strict=True)
    )
    assert got == pytest.approx(want, abs=1e-12)


def test_beat_probability_between_integer_totals_interpolates():
    row = np.array([1.0, 0.8, 0.5, 0.1])
    rival = (np.array([11.25]), np.array([1.0]), np.array([0.0]), -np.inf, 0.5)
    # need 11.25 - 10 + 0.5 = 1.75: three quarters of the way from row[1] to row[2]
    got = beat_probability(row, 0, 4, rival, 10.0)
    assert got == pytest.approx(0.8 + 0.75 * (0.5 - 0.8))


def _pair(seat, strategy):
    pair = ["optimal", "optimal"]
    pair[seat] = strategy
    return tuple(pair)


@pytest.mark.parametrize("seat", [0, 1])
def test_win_target_is_within_0_002_of_the_best_response(seat):
    policies = [None, None]
    policies[1 - seat] = "optimal"
    best = solve_duel(SMALL, policies=tuple(policies)).p_win(seat)
    got = evaluate_pair(SMALL, _pair(seat, "win-target")).p_win[seat]
    v1 = evaluate_pair(SMALL, _pair(seat, "win-aware")).p_win[seat]
    assert best - 0.002 <= got <= best + 1e-12
    assert got > v1 + 0.003 and got > 0.503


def test_simulated_matches_agree_with_its_exact_value():
    exact = evaluate_pair(SMALL, ("optimal", "win-target")).p_win[1]
    players = [get_strategy("optimal"), get_strategy("win-target")]
    shares = win_shares_of(play_matches(players, get_rules(SMALL), 40_000, seed=3))[:, 1]
    se = shares.std(ddof=1) / np.sqrt(len(shares))
    assert abs(shares.mean() - exact) < 4 * se


@pytest.mark.parametrize("seats", [2, 3])
def test_results_do_not_depend_on_jobs_or_chunks(seats):
    rules = get_rules(SMALL)
    players = [get_strategy("win-target")] + [get_strategy("optimal")] * (seats - 1)
    a = play_matches(players, rules, 3_000, seed=8)
    b = play_matches(players, rules, 3_000, seed=8, n_jobs=2, chunk_size=700)
    assert np.array_equal(a, b)


def test_without_a_match_it_plays_max_ev_and_loads_nothing():
    player = get_strategy("win-target")
    a = simulate(player, 2_000, seed=4, rules=SMALL)
    b = simulate("optimal", 2_000, seed=4, rules=SMALL)
    assert np.array_equal(a.total, b.total)
    assert player._tables is None


def test_ids_parameters_and_errors():
    assert strategy_class("win-aware") is WinAware  # the first version keeps its id
    assert strategy_class("win-target") is WinTarget
    assert repr(WinTarget(nodes=4)) == "WinTarget(nodes=4)"
    for bad in (dict(nodes=0), dict(quantiles=True), dict(exact_open=1.5), dict(cap=-3)):
        with pytest.raises(StrategyError, match="win-target"):
            WinTarget(**bad).prepare(get_rules(SMALL))
    assert issubclass(StrategyError, ValueError)
