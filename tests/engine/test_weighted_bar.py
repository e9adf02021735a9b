"""A weighted progress bar advances by each step's weight: its total is the weighted sum of
the steps and each step moves it by its own weight (never by one)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yahtzee_sim.engine.weighted_bar import WeightedBar

weights_st = st.dictionaries(
    st.sampled_from(["level 0", "level 1", "pmf", "table"]),
    st.floats(0.0, 100.0, allow_nan=False),
    min_size=1,
)


@given(weights_st, st.data())
def test_the_total_and_each_increment_follow_the_weights(weights, data):
    counts = {k: data.draw(st.integers(0, 4), label=k) for k in weights}
    bar = WeightedBar(weights, counts, disable=True)
    assert bar.total == pytest.approx(sum(weights[k] * n for k, n in counts.items()))
    done = 0.0
    for kind, n in counts.items():
        for _ in range(n):
            before = bar.done
            bar.step(kind)
            assert bar.done - before == pytest.approx(weights[kind])
            done += weights[kind]
    assert bar.done == pytest.approx(bar.total)
    assert bar.taken == counts
    bar.close()


def test_the_bar_shows_times_not_units_and_ends_at_100_percent():
    out = io.StringIO()
    with WeightedBar({"a": 2.5, "b": 0.5}, {"a": 1, "b": 2}, desc="solve", file=out) as bar:
        bar.step("a")
        bar.step("b", 2)
    text = out.getvalue()
    assert "solve: 100%" in text and "<" in text and "it/s" not in text
