"""Selecting the best strategy: Kim–Nelson constants and elimination, the probability of
correct selection, common random numbers, multiple comparisons with the best, summaries
and paired differences, and `yahtzee-sim select`."""

import json
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from yahtzee_sim import simulate
from yahtzee_sim.analysis import (
    SelectionError,
    WinMetric,
    kim_nelson,
    kn_constants,
    mcb,
    paired_difference,
    select_best,
    summarize,
)
from yahtzee_sim.cli import main


# ------------------------------------------------------------------ constants
def test_kn_constants_published_value():
    eta, h2 = kn_constants(0.05, 10, 10)
    assert eta == pytest.approx(0.8591, abs=5e-5)
    assert h2 == pytest.approx(15.464, abs=5e-4)


@pytest.mark.parametrize("n0", [10, 20])
@pytest.mark.parametrize("k", [2, 5, 10, 25, 100])
def test_kn_constants_closed_form(k, n0):
    eta, h2 = kn_constants(0.05, k, n0)
    expected = 0.5 * (math.pow(2 * 0.05 / (k - 1), -2 / (n0 - 1)) - 1)
    assert eta == pytest.approx(expected, rel=1e-12)
    assert h2 == pytest.approx(2 * expected * (n0 - 1), rel=1e-12)
    assert eta > 0
    if k > 2:
        assert eta > kn_constants(0.05, k - 1, n0)[0]  # more systems, wider continuation


def test_bad_parameters():
    with pytest.raises(SelectionError, match="alpha"):
        kn_constants(1.5, 3, 10)
    with pytest.raises(SelectionError, match="n0"):
        kn_constants(0.05, 3, 1)
    with pytest.raises(SelectionError, match="delta"):
        kim_nelson(lambda s, a, b: np.zeros((len(s), b - a)), ["a", "b"], delta=0)
    with pytest.raises(SelectionError, match="m must be"):
        kim_nelson(lambda s, a, b: np.zeros((len(s), b - a)), ["a", "b"], delta=1, m=2)


# ------------------------------------------------------- synthetic systems
def normal_source(means, rng, sd=1.0, common=0.0):
    """Observation j of system i: mu_i + common * Z_j + noise; Z_j shared (CRN) if common > 0."""
    means = np.asarray(means, dtype=float)
    cache_z = {}

    def draw(systems, start, stop):
        z = np.array([cache_z.setdefault(j, rng.standard_normal()) for j in range(start, stop)])
        noise = rng.standard_normal((len(systems), stop - start)) * sd
        return means[systems][:, None] + common * z[None, :] + noise

    return draw


def pcs(means, delta, reps, seed, n0=10):
    rng = np.random.default_rng(seed)
    names = [f"s{i}" for i in range(len(means))]
    best = names[int(np.argmax(means))]
    hits = sum(
        kim_nelson(normal_source(means, rng), names, delta, n0=n0).winners == [best]
        for _ in range(reps)
    )
    return hits


def assert_pcs_not_below(hits, reps, target=0.95):
    """One-sided binomial test of H0: PCS >= target, rejected at the 1% level."""
    p_value = stats.binom.cdf(hits, reps, target)
    assert p_value > 0.01, f"PCS {hits}/{reps} is significantly below {target}"


@pytest.mark.slow
@pytest.mark.parametrize("k", [2, 5, 10])
def test_pcs_slippage_configuration(k):
    delta, reps = 0.5, 300
    means = [delta] + [0.0] * (k - 1)
    hits = pcs(means, delta, reps, seed=k)
    assert_pcs_not_below(hits, reps)


@pytest.mark.slow
def test_pcs_monotone_decreasing_means():
    delta, reps = 0.5, 300
    means = [-delta * i for i in range(6)]
    assert_pcs_not_below(pcs(means, delta, reps, seed=99), reps)


def test_common_random_numbers_need_fewer_observations():
    delta, names = 0.5, ["a", "b", "c", "d"]
    means = [0.5, 0.0, 0.0, 0.0]
    rng = np.random.default_rng(3)
    crn = [
        kim_nelson(normal_source(means, rng, sd=0.5, common=2.0), names, delta).total_observations
        for _ in range(60)
    ]
    ind = [
        kim_nelson(
            normal_source(means, rng, sd=math.sqrt(0.25 + 4.0)), names, delta
        ).total_observations
        for _ in range(60)
    ]
    assert np.mean(crn) < 0.5 * np.mean(ind)


def assert_sample_best_never_eliminated(results) -> None:
    """At the stage a system is eliminated, another has a larger sample mean; at least one
    elimination among ``results`` (otherwise nothing was checked)."""
    checked = 0
    for res in results:
        for name, stage in res.eliminated:
            at = res.trace[res.trace["stage"] == stage]
            assert at["mean"].max() > at.loc[at["system"] == name, "mean"].iloc[0], (name, stage)
            checked += 1
    assert checked > 0, "no system was eliminated: the property was not checked"


@pytest.mark.slow
def test_sample_best_is_never_eliminated():
    rng = np.random.default_rng(7)
    names = [f"s{i}" for i in range(6)]
    assert_sample_best_never_eliminated(
        kim_nelson(normal_source(np.zeros(6), rng), names, 0.3, n0=10, m=1) for _ in range(50)
    )


@pytest.mark.parametrize("broken", ["nothing eliminated", "the best eliminated"])
def test_the_elimination_check_fails_on_broken_results(broken):
    trace = pd.DataFrame({"stage": [10, 10], "system": ["a", "b"], "mean": [1.0, 0.5]})
    eliminated = [] if broken == "nothing eliminated" else [("a", 10)]
    with pytest.raises(AssertionError):
        assert_sample_best_never_eliminated([SimpleNamespace(eliminated=eliminated, trace=trace)])


def test_identical_systems_offset_by_constant_decide_at_n0():
    rng = np.random.default_rng(0)
    y = rng.standard_normal(1000)

    def draw(systems, start, stop):
        return np.stack([y[start:stop] + (1.0 if i == 0 else 0.0) for i in systems])

    res = kim_nelson(draw, ["plus-one", "base"], delta=0.5, n0=10)
    assert res.winners == ["plus-one"]
    assert res.observations == {"plus-one": 10, "base": 10}
    assert res.eliminated == [("base", 10)]


def test_minimize_and_stop_at_m():
    rng = np.random.default_rng(5)
    names = ["low", "mid", "high", "higher"]
    res = kim_nelson(normal_source([0, 1, 2, 3], rng), names, 0.5, maximize=False, m=2)
    assert set(res.winners) == {"low", "mid"} and len(res.eliminated) == 2


# ---------------------------------------------------------------- engine
def test_select_best_among_builtins_picks_optimal_and_is_reproducible():
    ids = ["random", "tiered-random", "greedy", "optimal"]
    a = select_best(ids, delta=1.0, seed=4)
    b = select_best(ids, delta=1.0, seed=4)
    assert a.winners == ["optimal"]
    assert a.observations == b.observations and a.eliminated == b.eliminated
    assert a.parameters["games"] == a.total_observations * a.parameters["batch"]
    assert all(r >= 20 for r in a.observations.values())


def test_select_uses_common_random_numbers():
    """Observation j of every strategy is the batch mean over the same games."""
    res = select_best(["greedy", "optimal"], delta=1.0, seed=2, n0=10, batch=5)
    g = simulate("greedy", 50, seed=2).total.reshape(10, 5).mean(axis=1)
    o = simulate("optimal", 50, seed=2).total.reshape(10, 5).mean(axis=1)
    np.testing.assert_allclose(res.data[0, :10], g)
    np.testing.assert_allclose(res.data[1, :10], o)


def test_select_drawing_on_games_played_takes_the_same_observations():
    """Observations read from games already played are those played again, bit for bit;
    the games past them (here: greedy's after its first 100) are played."""
    ids = ["random", "greedy", "tiered-random"]
    played = {"random": simulate("random", 1000, seed=3).total}
    played["greedy"] = simulate("greedy", 100, seed=3).total
    fresh = select_best(ids, delta=1.0, seed=3)
    reused = select_best(ids, delta=1.0, seed=3, played=played)
    np.testing.assert_array_equal(reused.data, fresh.data)
    assert reused.observations == fresh.observations and reused.winners == fresh.winners
    assert reused.parameters == fresh.parameters
    with pytest.raises(SelectionError, match="'total' metric"):
        select_best(ids, metric="bonus", played=played)


def test_select_errors():
    with pytest.raises(SelectionError, match="unknown metric"):
        select_best(["greedy", "optimal"], metric="fun")
    with pytest.raises(SelectionError, match="distinct"):
        select_best(["greedy", "greedy"])
    with pytest.raises(SelectionError, match="batch"):
        select_best(["greedy", "optimal"], batch=0)
    with pytest.raises(SelectionError, match="players"):
        select_best(["greedy", "optimal"], metric=WinMetric(players=1))


# ------------------------------------------------------------ MCB and stats
def test_mcb_separates_the_clear_best_and_keeps_ties():
    rng = np.random.default_rng(1)
    z = rng.standard_normal(400)
    obs = np.stack([z + 5, z + rng.normal(0, 0.1, 400), z + 5 + rng.normal(0, 0.1, 400)])
    out = mcb(obs, ["a", "b", "c"]).set_index("system")
    assert not out.loc["b", "possibly_best"]
    assert out.loc["a", "possibly_best"] and out.loc["c", "possibly_best"]
    assert (out["lower"] <= 0).all() and (out["upper"] >= 0).all()


@pytest.mark.slow
def test_summarize_and_paired_difference():
    a = simulate("greedy", 20_000, seed=3)
    b = simulate("optimal", 20_000, seed=3)
    table = summarize([a, b])
    assert list(table["strategy"]) == [a.strategy, b.strategy]
    row = table.iloc[1]
    assert row.mean_lo < row["mean"] < row.mean_hi
    assert row.bonus_lo < row.bonus_rate < row.bonus_hi
    assert row.p10_lo <= row.p10 <= row.p10_hi
    d = paired_difference(b, a)
    assert d["lo"] < d["mean"] < d["hi"] and d["correlation"] > 0.2
    unpaired_se = math.sqrt(row.sd**2 + table.iloc[0].sd ** 2) / math.sqrt(20_000)
    assert d["se"] < unpaired_se  # CRN removes the shared luck
    with pytest.raises(SelectionError, match="same seed"):
        paired_difference(b, simulate("greedy", 20_000, seed=4))


def test_cli_select_json(capsys):
    code = main(["select", "--strategies", "greedy,optimal,random", "--seed", "1", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {"winners", "observations", "games", "eliminated", "parameters"} <= set(data)
    assert data["winners"] == ["optimal"]
    assert all(isinstance(e, list) and len(e) == 2 for e in data["eliminated"])
    assert data["parameters"]["delta"] == 1.0 and data["parameters"]["n0"] == 20


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--strategies", "greedy,nope"], "unknown strategy 'nope'"),
        (["--strategies", "greedy"], "at least 2"),
        (["--alpha", "2"], "alpha"),
        (["--delta", "0"], "delta"),
        (["--metric", "fun"], "invalid choice"),
    ],
)
def test_cli_select_errors(capsys, args, needle):
    with pytest.raises(SystemExit) as info:
        raise SystemExit(main(["select", *args]))
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_pcs_with_batch_means_of_real_scores():
    """PCS of KN when observations are batch means (b = 10) of skewed, multimodal game scores.

    Each system resamples games from a pool of optimal-play totals; the best is shifted by delta.
    """
    pool = simulate("optimal", 200_000, seed=21).total.astype(float)
    rng = np.random.default_rng(8)
    delta, k, reps, b = 10.0, 5, 200, 10
    shift = np.array([delta] + [0.0] * (k - 1))
    names = [f"s{i}" for i in range(k)]

    def draw(systems, start, stop):
        games = rng.choice(pool, size=(len(systems), stop - start, b))
        return games.mean(axis=2) + shift[systems][:, None]

    hits = sum(kim_nelson(draw, names, delta, n0=20).winners == ["s0"] for _ in range(reps))
    assert_pcs_not_below(hits, reps)
