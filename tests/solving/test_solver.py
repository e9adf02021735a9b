"""The max-EV solver: pinned expected values, small games by hand, monotone values, the
table cache and its corruption check, and optimal play against its solved value."""

import itertools
import warnings

import numpy as np
import pytest

from yahtzee_sim import get_rules, simulate
from yahtzee_sim.game.state import encode_state
from yahtzee_sim.solving.cache import CacheWarning, cache_path
from yahtzee_sim.solving.solver import _MEMORY, solve, value_table

REFERENCE = {  # ../shared/docs/references.md
    "yahtzee": 254.5877287,
    "yahtzee-free-joker": 254.5896095,
    "yahtzee-no-joker": 253.9702412,
    "yahtzee-no-bonus": 245.8707745,
    "yatzy": 248.4399894,
    "yatzy-kth2012": 248.6328539,
}


@pytest.mark.parametrize(("rules", "ev"), REFERENCE.items())
def test_pinned_expected_values(rules, ev):
    assert value_table(rules).expected_value() == pytest.approx(ev, abs=5e-8)


def test_yatzy_without_bonus_and_toy_game():
    assert value_table("yatzy-no-bonus").expected_value() == pytest.approx(211.1487, abs=5e-5)
    assert value_table("2-yatzy").expected_value() == pytest.approx(5.0, abs=1e-12)


def test_two_yatzy_by_hand():
    """2 two-sided dice, Ones/Twos, 2 rolls: last turn values checked by hand."""
    vt = value_table("2-yatzy")
    # only Twos left: keep the 2s and reroll the 1s once, so each die ends a 2
    # with probability 1 - (1/2)**2 = 3/4: E[Twos] = 2 * 2 * 3/4 = 3
    assert vt.value(used=0b01) == pytest.approx(3.0)
    # only Ones left: E[Ones] = 2 * 3/4 = 1.5
    assert vt.value(used=0b10) == pytest.approx(1.5)


def test_four_rolls_score_more_and_full_card_is_zero():
    three = value_table("yahtzee")
    four = value_table(get_rules("yahtzee", rolls_per_turn=4))
    assert four.expected_value() > three.expected_value() + 50
    r = three.rules
    assert three.value(used=(1 << 13) - 1, upper=63, flag=1) == 0.0
    # with only Chance open the value is the expected best-effort sum (> 5 * 3.5)
    only_chance = ((1 << 13) - 1) & ~(1 << r.box_index("chance"))
    assert 23 < three.value(used=only_chance, upper=63) < 30


def test_value_monotone_in_upper_total():
    vt = value_table("yahtzee")
    used = 0b11  # ones and twos filled
    vals = [vt.value(used=used, upper=u) for u in range(0, 16)]
    assert all(b >= a - 1e-9 for a, b in itertools.pairwise(vals))


@pytest.mark.slow
def test_cache_roundtrip_and_corruption(monkeypatch, tmp_path):
    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path))
    rules = get_rules("yahtzee-no-bonus")
    _MEMORY.pop(rules.fingerprint(), None)
    first = value_table(rules)
    assert first.meta["source"] == "solved"
    path = cache_path("values", rules.fingerprint())
    assert path.exists()
    _MEMORY.pop(rules.fingerprint())
    again = value_table(rules)
    assert again.meta["source"] == "cache"
    np.testing.assert_array_equal(again.values, first.values)
    # flip one byte of the values: detected, warned, rebuilt
    raw = bytearray(path.read_bytes())
    raw[-100] ^= 0xFF
    path.write_bytes(bytes(raw))
    _MEMORY.pop(rules.fingerprint())
    with pytest.warns(CacheWarning, match="corrupted"):
        rebuilt = value_table(rules)
    assert rebuilt.meta["source"] == "solved"
    assert rebuilt.expected_value() == pytest.approx(REFERENCE["yahtzee-no-bonus"], abs=5e-8)
    # truncated file
    path.write_bytes(path.read_bytes()[:1000])
    _MEMORY.pop(rules.fingerprint())
    with pytest.warns(CacheWarning, match="truncated"):
        value_table(rules)
    _MEMORY.pop(rules.fingerprint())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert value_table(rules).meta["source"] == "cache"


def test_solve_matches_cached_table():
    a = solve("2-yatzy")
    np.testing.assert_array_equal(a.values, value_table("2-yatzy").values)
    assert a.values[encode_state(a.rules, 0, 0, 0)] == a.expected_value()


@pytest.mark.slow
def test_optimal_simulation_within_99_ci_of_solved_value():
    """Sample size: 250,000 games put the 99% half-width of the mean at 0.31 points, so a
    disagreement of one point between the engine and the solver is 8 SE away and fails
    with certainty; SD (SE ≈ 0.09) and bonus rate (SE ≈ 0.001) keep their tolerances at
    4 SE or more. (The exact law of optimal play is checked against the solved value
    without sampling error in ``test_exact.py``.)"""
    ev = value_table("yahtzee").expected_value()
    s = simulate("optimal", 250_000, seed=12, n_jobs=1).summary()
    half = 2.576 * s["sd"] / np.sqrt(s["games"])
    assert abs(s["mean"] - ev) <= half, (s["mean"], ev)
    assert abs(s["sd"] - 59.61) < 0.4
    assert abs(s["bonus_rate"] - 0.68) < 0.01


@pytest.mark.slow
def test_optimal_on_yatzy_and_free_joker():
    for rules in ("yatzy", "yahtzee-free-joker"):
        ev = value_table(rules).expected_value()
        s = simulate("optimal", 20_000, seed=3, rules=rules).summary()
        assert abs(s["mean"] - ev) < 4 * s["sd"] / np.sqrt(s["games"])


def test_hopeless_upper_totals_share_one_value():
    """With only Ones open in the upper section, totals below 58 cannot reach 63."""
    vt = value_table("yahtzee")
    used = 0b111110  # twos..sixes filled
    hopeless = {vt.value(used=used, upper=u) for u in (10, 30, 56, 57)}
    assert len(hopeless) == 1
    assert vt.value(used=used, upper=58) > vt.value(used=used, upper=57)  # five 1s needed
    assert vt.value(used=used, upper=62) > vt.value(used=used, upper=57) + 15  # one 1 needed
    # at 63 the bonus has been paid already: nothing more to gain from the upper total
    assert vt.value(used=used, upper=63) == vt.value(used=used, upper=57)
