"""`simulate`: bit-identical for any `n_jobs`, its argument errors, the summary keys, the
data frame, and a threaded strategy sharing one cache."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim import YahtzeeSimError, get_rules, simulate
from yahtzee_sim.engine.results import PERCENTILES
from yahtzee_sim.engine.summary import SIMULATION_KEYS, SUMMARY_KEYS
from yahtzee_sim.game.state import decode_state, encode_state, n_states


def test_bit_identical_for_any_n_jobs():
    a = simulate("greedy", 3000, seed=11, n_jobs=1, chunk_size=1000)
    b = simulate("greedy", 3000, seed=11, n_jobs=2, chunk_size=700)
    c = simulate("random", 3000, seed=11, n_jobs=1)
    d = simulate("random", 3000, seed=11, n_jobs=2, chunk_size=512)
    for x, y in ((a, b), (c, d)):
        np.testing.assert_array_equal(x.total, y.total)
        np.testing.assert_array_equal(x.box_scores, y.box_scores)
        np.testing.assert_array_equal(x.filled_turn, y.filled_turn)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_games": 0}, "n_games must be an integer >= 1"),
        ({"n_games": 2.5}, "n_games"),
        ({"seed": -1}, "seed must be an integer >= 0"),
        ({"n_jobs": 0}, "n_jobs must be a non-zero integer"),
        ({"chunk_size": 0}, "chunk_size"),
        ({"rules": "kniffel"}, "unknown rules"),
        ({"strategy": "nope"}, "unknown strategy"),
    ],
)
def test_bad_arguments_raise_value_errors(kwargs, match):
    args = {"strategy": "random", "n_games": 10} | kwargs
    with pytest.raises(YahtzeeSimError, match=match):
        simulate(**args)


def test_summary_keys_and_values():
    res = simulate("greedy", 5000, seed=1)
    s = res.summary()
    assert set(s) == {*SUMMARY_KEYS, *SIMULATION_KEYS}
    assert list(s["percentiles"]) == [f"p{p}" for p in PERCENTILES]
    assert s["min"] <= s["percentiles"]["p1"] <= s["percentiles"]["p50"] <= s["max"]
    assert s["ci95"][0] < s["mean"] < s["ci95"][1]
    assert s["mean"] == pytest.approx(res.total.mean())
    assert s["bonus_rate"] == pytest.approx((res.upper_bonus > 0).mean())


def test_to_frame_columns():
    res = simulate("random", 100, seed=1, first_game=40)
    df = res.to_frame()
    assert len(df) == 100 and df["game"].iloc[0] == 40
    assert "score_yahtzee" in df and "turn_chance" in df
    assert (df["total"] == res.total).all()


def test_four_rolls_per_turn_scores_more():
    three = simulate("greedy", 4000, seed=3).summary()["mean"]
    four = simulate("greedy", 4000, seed=3, rules=get_rules("yahtzee", rolls_per_turn=4))
    assert four.summary()["mean"] > three + 10


@settings(max_examples=200)
@given(
    st.sampled_from(["yahtzee", "yatzy", "2-yatzy", "yahtzee-no-bonus"]),
    st.integers(0, 2**15 - 1),
    st.integers(0, 200),
    st.integers(0, 1),
)
def test_state_encoding_roundtrip(rules, used, upper, flag):
    r = get_rules(rules)
    used &= (1 << r.n_boxes) - 1
    if not r.has_yahtzee_flag:
        flag = 0
    idx = encode_state(r, used, upper, flag)
    assert 0 <= idx < n_states(r)
    assert decode_state(r, idx) == (used, min(upper, r.upper_cap), flag)


def test_state_counts():
    assert n_states(get_rules("yahtzee")) == 2**13 * 2 * 64
    assert n_states(get_rules("yatzy")) == 2**15 * 64
    assert n_states(get_rules("2-yatzy")) == 4


def test_threaded_strategy_bit_identical_and_shares_one_cache():
    from yahtzee_sim.strategies import get_strategy

    a = simulate("optimal", 3000, seed=5, n_jobs=1, chunk_size=3000)
    s = get_strategy("optimal")
    assert s.parallel_backend == "threads"
    b = simulate(s, 3000, seed=5, n_jobs=2, chunk_size=250)
    np.testing.assert_array_equal(a.total, b.total)
    np.testing.assert_array_equal(a.filled_turn, b.filled_turn)
