"""Decision datasets: positions of the simulated games, options valued as the advisor
values them, regret adding up to the exact regret."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from yahtzee_sim import simulate
from yahtzee_sim._core.decisions import position_values
from yahtzee_sim._kernels.lanes import upper_total_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.analysis.decisions.dataset import decision_dataset, grade_decisions
from yahtzee_sim.cli import main
from yahtzee_sim.errors import YahtzeeSimError
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import decode_state, n_states
from yahtzee_sim.solving.advisor import advise
from yahtzee_sim.solving.solver import value_table

from helpers import regret_law


@pytest.fixture(scope="module")
def greedy_set():
    return decision_dataset("greedy", 1500, seed=3)


def test_rows_follow_the_simulated_games(greedy_set):
    c = greedy_set.columns
    sim = simulate("greedy", 1500, seed=3)
    rules = get_rules("yahtzee")
    boxes = c["rolls_left"] == 0
    games, turns = c["game"][boxes], c["turn"][boxes]
    chosen = c["action"][boxes] - rules.tables.n_keeps
    np.testing.assert_array_equal(sim.filled_turn[games, chosen], turns)
    # game by game, in order of play
    assert (np.diff(c["game"]) >= 0).all()
    last = np.flatnonzero(boxes & (c["turn"] == 13))
    assert len(last) == 1500


def test_options_are_the_advisors(greedy_set):
    rules = get_rules("yahtzee")
    c = greedy_set.columns
    names = rules.box_names
    rng = np.random.default_rng(0)
    for i in rng.choice(len(greedy_set), size=25, replace=False):
        used = [n for k, n in enumerate(names) if (int(c["used"][i]) >> k) & 1]
        opts = advise(
            [int(x) for x in c["dice"][i].split()],
            int(c["rolls_left"][i]),
            used,
            int(c["upper_total"][i]),
            bool(c["flag"][i]),
        )
        lo, hi = greedy_set.option_ptr[i], greedy_set.option_ptr[i + 1]
        want = {o.box or tuple(o.keep): o.value for o in opts}
        ours = {}
        pairs = zip(greedy_set.option_actions[lo:hi], greedy_set.option_values[lo:hi], strict=True)
        for a, v in pairs:
            if a >= rules.tables.n_keeps:
                ours[names[a - rules.tables.n_keeps]] = v
            else:
                ours[rules.tables.faces_from_counts(rules.tables.keep_counts[a])] = v
        assert ours.keys() == want.keys()
        np.testing.assert_allclose([ours[k] for k in want], list(want.values()), atol=1e-9)
        assert c["optimal_value"][i] == pytest.approx(max(greedy_set.option_values[lo:hi]))
        assert c["regret"][i] == pytest.approx(c["optimal_value"][i] - c["value"][i])


@pytest.mark.slow
def test_sampled_regret_agrees_with_the_exact_regret(greedy_set):
    c = greedy_set.columns
    per_game = np.bincount(c["game"], weights=c["regret"], minlength=1500)
    exact = regret_law("greedy")[1].total
    se = per_game.std(ddof=1) / np.sqrt(len(per_game))
    assert abs(per_game.mean() - exact) < 4 * se
    s = greedy_set.summary()
    assert s["decisions"] == len(greedy_set) and s["regret_per_game"] == pytest.approx(
        per_game.mean()
    )


def test_optimal_play_has_no_regret():
    ds = decision_dataset("optimal", 200, seed=1, rules="yatzy")
    assert ds.columns["regret"].max() < 1e-9
    np.testing.assert_allclose(ds.columns["value"], ds.columns["optimal_value"], atol=1e-9)


def test_files_are_byte_identical_and_readable(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    a, b = decision_dataset("greedy", 50, seed=2), decision_dataset("greedy", 50, seed=2)
    digests = []
    for name, ds in (("a", a), ("b", b)):
        for ext in (".parquet", ".csv"):
            path = ds.write(tmp_path / f"{name}{ext}")
            digests.append(hashlib.sha256(path.read_bytes()).hexdigest())
    assert digests[0] == digests[2] and digests[1] == digests[3]
    table = pq.read_table(tmp_path / "a.parquet")
    assert table.num_rows == len(a)
    assert table.schema.metadata[b"yahtzee_sim.strategy"] == b"greedy"
    row = table.slice(0, 1).to_pylist()[0]
    assert row["action"] in row["option_actions"]
    df = a.to_frame()
    assert list(df["option_actions"][0]) == row["option_actions"]


def test_cli_dataset(tmp_path, capsys):
    out = tmp_path / "d.parquet"
    assert main(["dataset", "--games", "20", "--out", str(out), "--json", "--quiet"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["games"] == 20 and got["decisions"] > 20 * 26 and out.exists()
    assert main(["dataset", "--games", "5", "--out", str(tmp_path / "d.txt")]) == 2
    assert "must end in .parquet or .csv" in capsys.readouterr().err
    assert main(["dataset", "--games", "5", "--out", str(tmp_path / "no" / "d.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(YahtzeeSimError, match="n_games"):
        decision_dataset("greedy", 0)


@pytest.mark.parametrize(
    "preset", ["yahtzee", "yatzy", "yahtzee+forced", "yahtzee-single-bonus", "yacht", "2-yatzy"]
)
def test_keep_options_equal_the_recording_widget_bit_for_bit(preset):
    """grade_decisions computes only the levels a decision needs (no widget for a box
    choice, the box step and ``j`` keep steps for ``j`` rerolls left); its keep values
    are the full recording widget's, bit for bit, whatever the mix of rerolls left at
    one state."""
    rules = get_rules(preset)
    kr = kernel_rules(rules)
    table = value_table(rules)
    lanes = upper_total_lanes(table.values)
    t = rules.tables
    rng = np.random.default_rng(53)
    full = (1 << rules.n_boxes) - 1
    states = rng.choice(n_states(rules), min(400, n_states(rules)), replace=False)
    used, upper, flag = (np.asarray(x, dtype=np.int64) for x in decode_state(rules, states))
    live = (used != full) & (upper <= rules.upper_cap)
    used, upper, flag = used[live][:60], upper[live][:60], flag[live][:60]
    n = len(used)
    pick = np.r_[np.arange(n), rng.integers(0, n, 2 * n)]  # states with several decisions
    rec = {
        "turn": np.zeros(len(pick), dtype=np.int64),
        "rolls_left": rng.integers(0, rules.rolls_per_turn, len(pick)),
        "roll": rng.integers(0, t.n_rolls, len(pick)),
        "used": used[pick],
        "upper_total": upper[pick],
        "flag": flag[pick],
        "action": np.zeros(len(pick), dtype=np.int64),
    }
    got = grade_decisions(rules, rec)
    checked = 0
    for i in range(len(pick)):
        j, r = int(rec["rolls_left"][i]), int(rec["roll"][i])
        if j == 0:
            continue
        u, up, f = (
            int(rec["used"][i]),
            min(int(rec["upper_total"][i]), rules.upper_cap),
            int(rec["flag"][i]),
        )
        keep_vals, _, _ = position_values(kr, lanes, u, up, f)  # one recording widget run
        lo, hi = got["option_ptr"][i], got["option_ptr"][i + 1]
        for a, v in zip(got["option_actions"][lo:hi], got["option_values"][lo:hi], strict=True):
            whole = t.keep_size[a] == rules.n_dice
            # keeping every die with one reroll left: the roll's best box
            want = keep_vals[1, t.roll_keep_index[r]] if whole else keep_vals[j, a]
            assert v == want, (preset, i, a)
            checked += 1
    assert checked > 20
