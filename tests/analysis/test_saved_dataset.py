"""Decision datasets on games with saved rolls: every option valued as the advisor values
it (a stop scores now and saves the rolls left)."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim.analysis.decisions.dataset import decision_dataset
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving.advisor import advise
from yahtzee_sim.solving.solver import value_table

from helpers import small_saved_game

MAXI = "maxi-yatzy+forced+cap2"


def _advised(rules, table, columns, i):
    """The advisor's options at decision ``i`` of a dataset's ``columns``."""
    t = rules.tables
    used = [n for k, n in enumerate(rules.box_names) if (int(columns["used"][i]) >> k) & 1]
    j = int(columns["rolls_left"][i])
    return advise(
        t.faces_from_counts(t.roll_counts[int(columns["roll"][i])]),
        j,
        used,
        int(columns["upper_total"][i]),
        bool(columns["flag"][i]),
        rules,
        table,
        saved_rolls=0 if j else int(columns["saved"][i]),
    )


@pytest.mark.parametrize(
    "rules",
    [pytest.param(MAXI, marks=pytest.mark.slow), small_saved_game(2)],
    ids=["maxi-cap2", "small-cap2"],
)
def test_dataset_values_every_option_as_the_advisor_does(rules):
    rules = get_rules(rules)
    ds = decision_dataset("greedy", 60, seed=3, rules=rules, progress=False)
    c, t = ds.columns, rules.tables
    keeps = c["rolls_left"] > 0  # actions below n_keeps
    stops = np.flatnonzero(keeps & (t.keep_size[np.where(keeps, c["action"], 0)] == rules.n_dice))
    banked = np.flatnonzero((c["rolls_left"] == 0) & (c["saved"] > 0))
    assert len(stops) and len(banked)  # greedy stops early and banks rolls in these games
    table = value_table(rules)
    for i in np.unique(np.r_[stops[:20], banked[:20], np.arange(0, len(ds), 37)]):
        opts = _advised(rules, table, c, i)
        got = ds.option_values[ds.option_ptr[i] : ds.option_ptr[i + 1]]
        np.testing.assert_allclose(np.sort(got), np.sort([o.value for o in opts]), atol=1e-9)
        assert c["optimal_value"][i] == pytest.approx(opts[0].value, abs=1e-9)
        assert c["regret"][i] >= 0
    # a stop is worth the roll's best box with the rolls it saves, not with none
    i = stops[0]
    stop_value = c["value"][i]
    j = int(c["rolls_left"][i])
    saves = min(j, rules.saved_roll_cap)
    stop = next(o for o in _advised(rules, table, c, i) if o.stop_box is not None)
    assert stop.saves == saves and stop_value == pytest.approx(stop.value, abs=1e-9)
