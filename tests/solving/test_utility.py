"""Play to win: the utility solver, win:N, risk:θ, exact laws of score-dependent play.

Every solver is checked against an independent brute-force recursion in exact
fractions on 2-Yatzy (and against the other solvers where they overlap: threshold
utilities = the target table, exponential utilities = the risk solver)."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim import cli
from yahtzee_sim.analysis import tournament
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving.risk import RiskError, solve_risk
from yahtzee_sim.solving.target import TargetError, best_percentile, solve_target
from yahtzee_sim.solving.utility import (
    UtilityError,
    solve_utility,
    threshold_utility,
    win_utility,
)
from yahtzee_sim.strategies import get_strategy
from yahtzee_sim.strategies.utility import UtilityPlay, lexicographic
from yahtzee_sim.strategies.win_seeking_blind import BlindWinSeeking

from helpers import bonus_limit_game, brute_upper_game


def _brute_expected_utility(rolls: int, u: list[Fraction]) -> Fraction:
    """max E[u(final)] on 2-Yatzy with ``rolls`` rolls per turn (two two-sided dice,
    boxes Ones and Twos; :func:`helpers.brute_upper_game`)."""
    return brute_upper_game(2, 2, rolls, lambda score: u[min(score, len(u) - 1)])


@pytest.mark.parametrize("rolls", [1, 2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_utility_solver_matches_brute_force_fractions(rolls, seed):
    rng = np.random.default_rng(seed)
    num = rng.integers(-5, 20, size=7)
    u = [Fraction(int(x), 7) for x in num]
    rules = get_rules("2-yatzy", rolls_per_turn=rolls)
    table = solve_utility(rules, [float(x) for x in u])
    assert table.expected_utility() == pytest.approx(float(_brute_expected_utility(rolls, u)))
    # the exact law of the play that attains it gives the same expectation
    play = UtilityPlay([float(x) for x in u])
    law = evaluate(play, rules)
    assert law.pmf.sum() == pytest.approx(1.0)
    assert float(law.pmf @ np.asarray(u, dtype=float)[: len(law.pmf)]) == pytest.approx(
        table.expected_utility()
    )


@pytest.mark.parametrize("limit", [0, 1])
def test_threshold_utilities_equal_the_target_table(limit):
    rules = bonus_limit_game(limit)
    curve = solve_target(rules).curve()
    for beta in range(1, len(curve)):
        table = solve_utility(rules, threshold_utility(rules, beta))
        assert table.expected_utility() == pytest.approx(curve[beta], abs=1e-12)


@pytest.mark.parametrize("limit", [0, 1])
def test_exponential_utility_two_ways(limit):
    """risk:θ (no score lanes) and the utility solver with u = -exp(-θ x) agree."""
    rules = bonus_limit_game(limit)
    for theta in (0.3, -0.2):
        risk = solve_risk(rules, theta)
        x = np.arange(200)
        u = -np.sign(theta) * np.exp(-theta * x)
        lanes = solve_utility(rules, u)
        assert float(risk.values[0]) == pytest.approx(lanes.expected_utility(), rel=1e-10)
        assert evaluate(f"risk:{theta}", rules).mean == pytest.approx(
            evaluate(UtilityPlay(u), rules).mean, rel=1e-12
        )


def test_risk_moves_the_law_the_right_way():
    rules = bonus_limit_game(0)
    opt = evaluate("optimal", rules)
    averse, seeking = evaluate("risk:0.5", rules), evaluate("risk:-0.3", rules)
    assert averse.mean <= opt.mean + 1e-12 and seeking.mean <= opt.mean + 1e-12
    assert averse.sd < opt.sd < seeking.sd
    assert solve_risk(rules, 1e-7).certainty_equivalent() == pytest.approx(opt.mean, rel=1e-5)


def _brute_win_share(pmf, x: int, n: int) -> float:
    """P(win | my score x) against n - 1 iid opponents, ties split, by enumeration."""
    scores = range(len(pmf))
    total = 0.0
    for opp in itertools.product(scores, repeat=n - 1):
        p = np.prod([pmf[s] for s in opp])
        if p == 0 or max(opp, default=-1) > x:
            continue
        total += p / (1 + sum(1 for s in opp if s == x))
    return total


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(0, 5), min_size=1, max_size=5),
    st.integers(2, 4),
)
def test_win_utility_formula(weights, n):
    if sum(weights) == 0:
        weights = [*weights[:-1], 1]
    pmf = np.asarray(weights, dtype=float) / sum(weights)
    u = win_utility(pmf, n)
    for x in range(len(pmf)):
        assert u[x] == pytest.approx(_brute_win_share(pmf, x, n), abs=1e-12)
    assert u[len(pmf)] == 1.0


@settings(max_examples=10, deadline=None)
@given(st.floats(0.1, 10), st.floats(-3, 3), st.integers(0, 10_000))
def test_affine_utilities_give_affine_values(scale, shift, seed):
    u = np.random.default_rng(seed).normal(size=7)
    a = solve_utility("2-yatzy", u).expected_utility()
    b = solve_utility("2-yatzy", scale * u + shift).expected_utility()
    assert b == pytest.approx(scale * a + shift, rel=1e-9, abs=1e-9)


def test_win_against_greedy_exact_and_simulated():
    rules = get_rules("2-yatzy")
    win = BlindWinSeeking(2, vs="greedy")
    p = win.win_probability(rules)
    # the exact law of win:2 against greedy's law gives the same P(win)
    mine, theirs = evaluate(win, rules).pmf, evaluate("greedy", rules).pmf
    u = win_utility(theirs, 2)
    assert float(mine @ u[: len(mine)]) == pytest.approx(p, abs=1e-12)
    assert p > 0.5
    res = tournament([win, "greedy"], players=2, n_games=100_000, seed=5, rules=rules)
    r = res.win_rates()
    assert r["win_lo"].iloc[0] <= p <= r["win_hi"].iloc[0]


def test_target_law_exact_and_tillius_tie_break():
    """2-Yatzy target:5: P(>= 5) = Tillius's 0.7734; the mean depends on ties between
    equally likely plays: Tillius's 4.7266 lies in the exact range of P-optimal plays."""
    rules = get_rules("2-yatzy")
    law = evaluate("target:5", rules)
    assert law.survival()[5] == pytest.approx(0.7734375, abs=1e-12)
    base = threshold_utility(rules, 5)
    hi = evaluate(UtilityPlay(lexicographic(base, +1)), rules)
    lo = evaluate(UtilityPlay(lexicographic(base, -1)), rules)
    for r in (hi, lo):
        assert r.survival()[5] == pytest.approx(0.7734375, abs=1e-12)
    assert lo.mean <= 4.7266 <= hi.mean
    assert lo.mean <= law.mean <= hi.mean
    res = np.asarray(
        __import__("yahtzee_sim").simulate("target:5", 100_000, seed=1, rules=rules).total
    )
    assert abs(res.mean() - law.mean) < 4 * law.sd / np.sqrt(len(res))


def test_best_percentile():
    curve = solve_target("2-yatzy").curve()  # 1, 1, 1, .97, .875, .773, .42
    assert best_percentile(curve, 10) == 3  # P(>= 3) = .97 > .9 > P(>= 4) = .875
    # recheck by definition: the q-th percentile of target:b's law
    for q in (5, 10, 25, 50):
        b = best_percentile(curve, q)
        assert evaluate(f"target:{max(b, 1)}", "2-yatzy").percentile(q) == b
        assert evaluate(f"target:{b + 1}", "2-yatzy").percentile(q) <= b
    with pytest.raises(TargetError, match="percentile"):
        best_percentile(curve, 100)


def test_utility_refuses_bad_inputs():
    with pytest.raises(UtilityError, match="players"):
        win_utility([1.0], 1)
    with pytest.raises(UtilityError, match="1-d array"):
        solve_utility("2-yatzy", [[1.0]])
    with pytest.raises(RiskError, match="theta"):
        solve_risk("yatzy", 5.0)
    with pytest.raises(StrategyError, match="no exact score law"):
        BlindWinSeeking(2, vs="random").win_probability("2-yatzy")
    with pytest.raises(StrategyError, match="players"):
        get_strategy("win:1").win_probability("2-yatzy")
    assert get_strategy("risk:-0.02").theta == -0.02


def test_cli_win_and_risk(capsys):
    assert cli.main(["win", "--rules", "2-yatzy", "--vs", "greedy", "--law", "--json"]) == 0
    out = __import__("json").loads(capsys.readouterr().out)
    assert out["win_probability"] > out["baseline"] == 0.5
    assert {"mean", "sd", "seconds"} <= set(out)
    assert cli.main(["win", "--rules", "2-yatzy", "--players", "1"]) == 2
    assert cli.main(["win", "--rules", "2-yatzy", "--vs", "random"]) == 2
    assert cli.main(["risk", "--rules", "yatzy", "--theta", "9"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 3 and "theta" in err
    assert cli.main(["risk", "--rules", "2-yatzy", "--theta", "0.5,-0.5", "--json"]) == 0
    rows = __import__("json").loads(capsys.readouterr().out)["rows"]
    assert [r["theta"] for r in rows] == [0.5, -0.5]


def test_regret_refuses_score_dependent_play():
    from yahtzee_sim.analysis import regret
    from yahtzee_sim.exact.laws import ExactEvaluationError

    with pytest.raises(ExactEvaluationError, match="running score"):
        regret("target:5", rules="2-yatzy")


def test_cli_best_percentile(capsys):
    assert cli.main(["target", "--rules", "2-yatzy", "--percentile", "10", "--json"]) == 0
    out = __import__("json").loads(capsys.readouterr().out)
    assert out["percentile"]["best"] == 3 and out["percentile"]["strategy"] == "target:3"
    assert out["percentile"]["optimal"] <= 3


def test_win_utility_in_the_far_tails():
    """Scores far in the opponents' tail: winning there is (almost) sure, not 0, and
    large tables do not overflow."""
    pmf = np.array([0.5, 0.5 - 1e-20, 1e-20])
    u = win_utility(pmf, 2)
    assert u[2] == pytest.approx(1.0 - 0.5e-20, abs=1e-15)
    assert u[1] == pytest.approx(0.5 + (0.5 - 1e-20) / 2)
    big = win_utility(np.full(50, 1 / 50), 1000)
    assert np.all(np.isfinite(big)) and big[-1] == 1.0 and big[10] == 0.0
    assert np.all(np.diff(big) >= 0)


def test_table_decisions_match_the_target_tables():
    """A threshold utility's decisions are the target table's (same lanes, same ties)."""
    from yahtzee_sim.solving.target import decisions

    rules = get_rules("2-yatzy", rolls_per_turn=3)
    target = solve_target(rules)
    n_rolls = rules.tables.n_rolls
    for beta in (3, 4, 5):
        table = solve_utility(rules, threshold_utility(rules, beta))
        for rolls_left in (0, 1, 2):
            z = np.zeros(n_rolls, dtype=np.int64)
            left = np.full(n_rolls, rolls_left)
            roll = np.arange(n_rolls)
            got = table.decisions(z, z, z, z, left, roll)
            want = decisions(target, z, z, z, np.full(n_rolls, beta), left, roll)
            np.testing.assert_array_equal(got, want)
