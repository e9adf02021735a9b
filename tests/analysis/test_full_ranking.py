"""The full ranking: family-wise error, agreement with statsmodels, exact pairs, tiers."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from yahtzee_sim.analysis import SelectionError, rank_scores
from yahtzee_sim.analysis.ranking.letters import letter_display
from yahtzee_sim.analysis.ranking.pairwise import PROCEDURE

TABLE_COLUMNS = [
    "mean",
    "low",
    "high",
    "tier",
    "exact",
    "games",
    "behind",
    "behind_low",
    "behind_high",
]


def paired_normal(rng, means, games, luck_sd=60.0, noise_sd=20.0) -> dict:
    """Scores of strategies on shared dice: a common luck term plus their own noise."""
    luck = rng.normal(0.0, luck_sd, games)
    return {f"s{i}": mu + luck + rng.normal(0.0, noise_sd, games) for i, mu in enumerate(means)}


def guarantee_failures(means: dict, exact: dict, reps: int, games: int, seed: int) -> float:
    """The share of ``reps`` simulated data sets on which the stated guarantee fails: a pair
    of equal means declared different, a pair declared in the wrong order, or an interval
    that misses its true difference. ``means``: the random strategies' true means (normal
    scores on shared dice, each with its own noise SD); ``exact``: deterministic ones."""
    names = list(means)
    rng = np.random.default_rng(seed)
    mu = np.array([means[s] for s in names])[None, :, None]
    noise_sd = np.linspace(10.0, 30.0, len(names))[None, :, None]
    luck = rng.normal(0.0, 60.0, (reps, 1, games))
    data = mu + luck + noise_sd * rng.normal(0.0, 1.0, (reps, len(names), games))
    truth = {**means, **exact}
    failures = 0
    for scores in data:
        res = rank_scores(dict(zip(names, scores, strict=True)), exact, alpha=0.05)
        pairs = res.pairs
        ends = zip(pairs["first"], pairs["second"], strict=True)
        true = np.array([truth[a] - truth[b] for a, b in ends])
        declared = pairs["significant"].to_numpy()
        false_declaration = declared & (true == 0)
        wrong_order = declared & (np.sign(pairs["difference"].to_numpy()) != np.sign(true))
        missed = (pairs["low"].to_numpy() > true) | (pairs["high"].to_numpy() < true)
        failures += bool((false_declaration | wrong_order | missed).any())
    return failures / reps


def test_the_stated_guarantee_holds_on_2000_simulated_data_sets():
    # two configurations of 1,000 data sets each, both with equal and unequal means: four
    # random strategies (6 pairs, s0 = s1), and three random ones beside an exact mean
    # equal to one of theirs (e = s0: a one-sample interval); the guarantee holds in each,
    # so the failure rate of the 2,000 is at most alpha too
    alpha, reps = 0.05, 1000
    rates = [
        guarantee_failures({"s0": 250.0, "s1": 250.0, "s2": 246.0, "s3": 238.0}, {}, reps, 40, 1),
        guarantee_failures({"s0": 250.0, "s1": 247.0, "s2": 240.0}, {"e": 250.0}, reps, 40, 2),
    ]
    rate = sum(rates) / 2
    assert rate <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / (2 * reps)), rates
    assert rate > alpha / 3, rates  # the event is not vacuous: Bonferroni spends most of α


def test_agrees_with_statsmodels_bonferroni():
    from statsmodels.sandbox.stats.multicomp import MultiComparison
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(11)
    scores = paired_normal(rng, [250.0, 247.5, 245.0, 242.5, 230.0], 500)
    res = rank_scores(scores, alpha=0.05)
    long = pd.DataFrame(
        [(name, g, x) for name, xs in scores.items() for g, x in enumerate(xs)],
        columns=["strategy", "game", "score"],
    )
    _, (_, reject, p_corrected, _, alpha_bonferroni), rows = MultiComparison(
        long["score"], long["strategy"]
    ).allpairtest(stats.ttest_rel, method="bonferroni")
    oracle = {
        frozenset((row[0], row[1])): (p, bool(r))
        for row, p, r in zip(rows, p_corrected, reject, strict=True)
    }
    assert len(oracle) == len(res.pairs) == 10
    for pair in res.pairs.itertuples():
        p_corr, rejected = oracle[frozenset((pair.first, pair.second))]
        assert pair.p_adjusted == pytest.approx(p_corr, rel=1e-9, abs=1e-15)
        assert pair.significant == rejected
    assert 0 < sum(r for _, r in oracle.values()) < 10  # a data set with both decisions
    # the intervals: the t interval at Bonferroni's level, as statsmodels states it
    assert alpha_bonferroni == pytest.approx(multipletests([0.5] * 10, method="bonferroni")[3])
    for pair in res.pairs.itertuples():
        d = scores[pair.first] - scores[pair.second]
        half = stats.t.isf(alpha_bonferroni / 2, len(d) - 1) * stats.sem(d)
        assert (pair.low, pair.high) == pytest.approx((d.mean() - half, d.mean() + half))
        # a pair is declared different exactly when its interval excludes 0
        assert pair.significant == (not pair.low <= 0 <= pair.high)
    # tiers: two strategies share a letter exactly when statsmodels does not reject
    tiers = res.table["tier"]
    assert len(set("".join(tiers))) > 1 and any(len(t) > 1 for t in tiers)  # overlapping tiers
    for (a, b), (_, rejected) in ((tuple(k), v) for k, v in oracle.items()):
        assert bool(set(tiers[a]) & set(tiers[b])) == (not rejected), (a, b)
    # the difference to the best is the pair (best, strategy)
    best = res.table.index[0]
    for sid, row in res.table.iloc[1:].iterrows():
        pair = res.pairs[(res.pairs["first"] == best) & (res.pairs["second"] == sid)].iloc[0]
        assert (row["behind"], row["behind_low"], row["behind_high"]) == (
            pair["difference"],
            pair["low"],
            pair["high"],
        )
    assert res.table.iloc[0][["behind", "behind_low", "behind_high"]].isna().all()


def test_table_contract_and_rank_order():
    rng = np.random.default_rng(0)
    scores = paired_normal(rng, [230.0, 250.0, 200.0], 1000)
    res = rank_scores(scores, {"exact-a": 254.5, "exact-b": 215.0})
    t = res.table
    assert list(t.columns) == TABLE_COLUMNS and t.index.name == "strategy"
    assert list(t.index) == ["exact-a", "s1", "s0", "exact-b", "s2"]
    assert t["mean"].is_monotonic_decreasing
    assert t["exact"].dtype == bool and t["games"].dtype == np.int64
    assert (
        t["mean"].dtype == float
        and t["low"].dtype == float
        and pd.api.types.is_string_dtype(t["tier"])
    )
    exact = t[t["exact"]]
    assert (exact["low"] == exact["mean"]).all() and (exact["high"] == exact["mean"]).all()
    assert (exact["games"] == 0).all() and (t.loc[~t["exact"], "games"] == 1000).all()
    assert ((t["low"] <= t["mean"]) & (t["mean"] <= t["high"])).all()
    assert res.games == 1000 and res.procedure == PROCEDURE and res.alpha == 0.05
    assert "at least 0.95" in res.guarantee and res.guarantee.endswith(".")
    first = json.loads(json.dumps(res.to_dict(), allow_nan=False))["table"][0]
    assert first["strategy"] == "exact-a" and first["behind"] is None


def test_two_deterministic_strategies_compare_by_exact_means():
    rng = np.random.default_rng(1)
    res = rank_scores(
        {"r": rng.normal(250, 60, 200)}, {"d1": 230.25, "d2": 230.0, "d3": 230.0}, alpha=0.05
    )
    pairs = res.pairs.set_index(["first", "second"])
    exact = pairs[pairs["exact"]]
    assert len(exact) == 3 and res.tested_pairs == 3
    row = pairs.loc[("d1", "d2")]
    assert row["difference"] == row["low"] == row["high"] == pytest.approx(0.25)
    assert row["significant"] and row["p_adjusted"] == 0.0 and row["games"] == 0
    tie = pairs.loc[("d2", "d3")]
    assert not tie["significant"] and tie["p_adjusted"] == 1.0
    t = res.table
    assert not set(t.loc["d1", "tier"]) & set(t.loc["d2", "tier"])
    assert set(t.loc["d2", "tier"]) & set(t.loc["d3", "tier"])
    assert "certain" in res.guarantee and "all 3 intervals" in res.guarantee


def test_mixed_pair_uses_the_random_strategys_games_against_the_exact_mean():
    x = np.random.default_rng(5).normal(240.0, 50.0, 400)
    res = rank_scores({"r": x, "d": x + 1.0}, {"d": 250.0})  # the scores of "d" are not used
    pair = res.pairs.iloc[0]
    assert (pair["first"], pair["second"], bool(pair["exact"])) == ("d", "r", False)
    assert pair["difference"] == pytest.approx(250.0 - x.mean())
    half = stats.t.isf(0.05 / 2, 399) * stats.sem(x)  # one pair: Bonferroni is the t interval
    assert (pair["low"], pair["high"]) == pytest.approx(
        (pair["difference"] - half,) * 1 + (pair["difference"] + half,)
    )
    assert pair["p_adjusted"] == pytest.approx(stats.ttest_1samp(x, 250.0).pvalue)


def test_identical_games_are_one_tier_without_a_division_by_zero():
    x = np.arange(100, dtype=float)
    res = rank_scores({"a": x, "b": x.copy()})
    assert res.pairs["p_adjusted"].tolist() == [1.0] and res.table["tier"].tolist() == ["a", "a"]
    shifted = rank_scores({"a": x + 1, "b": x})
    assert shifted.pairs["significant"].tolist() == [True]


@pytest.mark.parametrize(
    "scores, exact, alpha, needle",
    [
        ({"a": np.ones(5)}, None, 0.05, "at least 2 strategies"),
        ({"a": np.ones(5), "b": np.ones(6)}, None, 0.05, "as many games"),
        ({"a": np.ones(1), "b": np.ones(1)}, None, 0.05, "at least 2 games"),
        ({"a": np.ones(5), "b": np.ones(5)}, None, 1.0, "alpha"),
        ({"a": np.ones(5), "b": np.array([1, 2, np.nan, 4, 5])}, None, 0.05, "finite"),
        ({"a": np.ones(5)}, {"b": np.inf}, 0.05, "finite"),
    ],
)
def test_bad_input(scores, exact, alpha, needle):
    with pytest.raises(SelectionError, match=needle):
        rank_scores(scores, exact, alpha)


def test_letter_display_is_exact():
    rng = np.random.default_rng(4)
    names = [f"s{i}" for i in range(7)]
    for _ in range(50):
        different = [p for p in combinations(names, 2) if rng.random() < 0.5]
        tiers = letter_display(names, different)
        for a, b in combinations(names, 2):
            shares = bool(set(tiers[a]) & set(tiers[b]))
            assert shares == ((a, b) not in different), (a, b, tiers)
    assert letter_display(["x", "y", "z"], []) == {"x": "a", "y": "a", "z": "a"}
    assert letter_display(["x", "y", "z"], [("x", "y"), ("y", "z"), ("x", "z")]) == {
        "x": "a",
        "y": "b",
        "z": "c",
    }
