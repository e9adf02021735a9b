"""Target-score solver and strategy: Tillius's 2-Yatzy figures, an independent
brute-force recursion, dominance over max-EV play, simulation, errors and the CLI.

The Yatzy checks against Tillius Table 13 need the full table (about 10 minutes on
2 cores) and are run by ``benchmarks/bench_target.py`` instead.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from yahtzee_sim import simulate
from yahtzee_sim.cli import main
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving.target import TargetError, solve_target, target_table
from yahtzee_sim.strategies import get_strategy

from helpers import brute_upper_game


def _brute_curve(n_dice: int, n_faces: int, rolls: int) -> list[Fraction]:
    """max P(total >= β) for an upper-section-only game, β = 0 .. the top score
    (:func:`helpers.brute_upper_game` of the indicator of reaching β)."""
    top = n_dice * n_faces * (n_faces + 1) // 2
    return [
        brute_upper_game(n_dice, n_faces, rolls, lambda s, b=beta: Fraction(int(s >= b)))
        for beta in range(top + 1)
    ]


def test_two_yatzy_matches_tillius():
    curve = solve_target("2-yatzy").curve()
    assert curve[5] == pytest.approx(0.7734, abs=5e-5)  # Tillius Tables 4-5
    assert evaluate("optimal", "2-yatzy").survival()[5] == pytest.approx(0.75)


@pytest.mark.parametrize("rolls", [1, 2, 3])
def test_curve_equals_brute_force_recursion(rolls):
    rules = get_rules("2-yatzy", rolls_per_turn=rolls)
    curve = solve_target(rules).curve()
    expected = [float(p) for p in _brute_curve(2, 2, rolls)]
    np.testing.assert_allclose(curve, expected, atol=1e-12)


@pytest.mark.parametrize("rolls", [1, 2, 3])
def test_target_play_dominates_max_ev_play_at_every_beta(rolls):
    rules = get_rules("2-yatzy", rolls_per_turn=rolls)
    curve = solve_target(rules).curve()
    opt = evaluate("optimal", rules).survival()
    assert np.all(np.diff(curve) <= 1e-15) and curve[0] == 1.0
    assert np.all(curve >= opt[: len(curve)] - 1e-12)


def test_max_beta_cap_is_exact_below_the_cap():
    full = solve_target("2-yatzy").curve()
    capped = solve_target("2-yatzy", max_beta=4)
    assert capped.max_beta == 4
    np.testing.assert_array_equal(capped.curve(), full[:5])


def test_target_strategy_reaches_beta_as_often_as_the_table_says():
    beta, n = 5, 200_000
    res = simulate(f"target:{beta}", n, seed=4, rules="2-yatzy", progress=False)
    hit = (res.total >= beta).mean()
    p = solve_target("2-yatzy").curve()[beta]
    assert abs(hit - p) < 4 * np.sqrt(p * (1 - p) / n)
    # it gives up expected score for it, but less than Tillius's record strategy (EV
    # 4.7266): once the target is reached or lost it plays max-EV (see the README)
    se = res.total.std(ddof=1) / np.sqrt(n)
    assert 4.7266 + 4 * se < res.total.mean() < evaluate("optimal", "2-yatzy").mean


def test_exact_law_of_target_play_gives_the_curve():
    """Score-augmented exact evaluation: P(final >= β) of target:β's law is the curve's."""
    curve = solve_target("2-yatzy").curve()
    for beta in range(1, len(curve)):
        law = evaluate(f"target:{beta}", "2-yatzy")
        assert law.survival()[beta] == pytest.approx(curve[beta], abs=1e-12)


def test_probability_from_a_position():
    table = solve_target("2-yatzy")
    assert table.probability(5) == table.curve()[5]
    assert table.probability(5, score=5) == 1.0
    with pytest.raises(TargetError, match="beta 7 is above 6"):
        table.probability(7)
    with pytest.raises(TargetError, match="integer"):
        table.probability(2.5)


def test_bad_inputs_are_clear_errors():
    with pytest.raises(TargetError, match="max_beta must be an integer >= 1"):
        solve_target("2-yatzy", max_beta=0)
    assert get_strategy("target:250").beta == 250
    with pytest.raises(StrategyError, match="beta must be an integer >= 1"):
        simulate("target:-3", 10, rules="2-yatzy", progress=False)


def test_table_cache_round_trip(tmp_path, monkeypatch):
    import yahtzee_sim.solving.target as target

    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path))
    target.TABLES.forget()
    first = target_table("2-yatzy")
    assert first.meta["source"] == "solved"
    target.TABLES.forget()
    again = target_table("2-yatzy")
    assert again.meta["source"] == "cache"
    np.testing.assert_array_equal(first.probs, again.probs)


def test_cli_target(capsys, tmp_path):
    assert main(["target", "--rules", "2-yatzy", "--beta", "5", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["probability"] == pytest.approx(0.7734375)
    assert out["optimal_probability"] == pytest.approx(0.75)
    plot = tmp_path / "curve.png"
    assert main(["target", "--rules", "2-yatzy", "--curve", "--plot", str(plot), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["curve"]) == 7 and plot.stat().st_size > 0
    for argv, msg in (
        (["target", "--rules", "2-yatzy"], "give --beta"),
        (["target", "--rules", "2-yatzy", "--beta", "9"], "above 6"),
        (["target", "--rules", "2-yatzy", "--beta", "5", "--plot", "x.png"], "add --curve"),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert msg in err and len(err.strip().splitlines()) == 1
