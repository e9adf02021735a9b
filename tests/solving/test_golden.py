"""Golden outputs: the game logic reproduces what it computed before the one-widget
refactor (``tools/golden_outputs.py`` recorded them) — simulations bit for bit,
floating results to 1e-12.

By default a subset keeps the suite short: every strategy's simulation on official
Yahtzee, greedy and optimal on every rule set, a few exact laws (see
:func:`_simulation_cases`, :func:`_exact_cases`) and official Yahtzee's target curve up
to β = 40 (:data:`TARGET_CAP_DEFAULT`);
``YAHTZEE_SIM_GOLDEN=full python -m pytest tests/solving/test_golden.py`` replays every
recorded case (about 6 minutes on 2 cores).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from yahtzee_sim import get_rules, simulate
from yahtzee_sim.solving.advisor import advise
from yahtzee_sim.solving.solver import value_table
from yahtzee_sim.solving.target import target_table

from helpers import exact_law, regret_law

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
RECORD = json.loads((GOLDEN / "golden.json").read_text())
ARRAYS = np.load(GOLDEN / "arrays.npz")
FULL = os.environ.get("YAHTZEE_SIM_GOLDEN") == "full"
TOL = {"rtol": 1e-12, "atol": 1e-12}
SETTINGS = RECORD["settings"]
SIM_GAMES, SIM_SEED = SETTINGS["simulate_games"], SETTINGS["simulate_seed"]
TARGET_CAP = SETTINGS["target_cap"]


#: Exact laws replayed by default on official Yahtzee (one strategy of each kind: a
#: score-table kernel, the solver's table, rule-based kernels); greedy on every rule set.
EXACT_ON_YAHTZEE = {"greedy", "optimal", "glenn-2007-rules", "defensive", "glenn-yahtzees-only"}


def _recorded(sid: str) -> str:
    """The id as it was when recorded: every strategy was at version 1 then (later
    versions, e.g. ``glenn-2007-rules-v2``, play differently on purpose)."""
    return sid if ":" in sid else f"{sid}-v1"


def _simulation_cases():
    """Every strategy on official Yahtzee (or its one rule set), greedy and optimal on
    every rule set; every recorded case with ``YAHTZEE_SIM_GOLDEN=full``."""
    keys = sorted(RECORD["simulate"])
    plays_yahtzee = {k.split("|")[0] for k in keys if k.endswith("|yahtzee")}
    for key in keys:
        sid, rules = key.split("|")
        if FULL or rules == "yahtzee" or sid in ("greedy", "optimal") or sid not in plays_yahtzee:
            yield key


def _exact_cases():
    for key in sorted(RECORD["exact"]):
        sid, rules = key.split("|")
        greedy_here = sid == "greedy" and rules != "yatzy-kth2012"  # = yatzy but one box
        if FULL or greedy_here or (rules == "yahtzee" and sid in EXACT_ON_YAHTZEE):
            yield key


@pytest.mark.slow
@pytest.mark.parametrize("key", list(_simulation_cases()))
def test_simulations_are_bit_identical(key):
    sid, rules = key.split("|")
    res = simulate(_recorded(sid), SIM_GAMES, seed=SIM_SEED, rules=rules, progress=False)
    want = RECORD["simulate"][key]
    assert float(res.total.mean()) == want["mean"]
    assert res.digest() == want["digest"]


@pytest.mark.slow
@pytest.mark.parametrize("key", list(_exact_cases()))
def test_exact_laws_are_unchanged(key):
    sid, rules = key.split("|")
    if rules == "yahtzee" and sid in RECORD["regret"]:  # the law of the regret's pass
        ex = regret_law(_recorded(sid), rules)[0]
    else:
        ex = exact_law(_recorded(sid), rules)
    want = RECORD["exact"][key]
    for name in ("mean", "sd", "bonus_rate", "yahtzee_bonuses_mean"):
        np.testing.assert_allclose(getattr(ex, name), want[name], **TOL, err_msg=name)
    assert ex.n_states == want["n_states"]
    np.testing.assert_allclose(ex.pmf, ARRAYS[f"pmf|{key}"], **TOL)
    np.testing.assert_allclose(ex.box_means, ARRAYS[f"box_means|{key}"], **TOL)
    np.testing.assert_allclose(ex.box_fill_turn, ARRAYS[f"box_fill_turn|{key}"], **TOL)


@pytest.mark.slow
@pytest.mark.parametrize("rules", sorted(RECORD["solver"]))
def test_solver_values_are_unchanged(rules):
    v = value_table(get_rules(rules), use_cache=False).values
    want = RECORD["solver"][rules]
    assert v[0] == pytest.approx(want["ev"], rel=1e-13)
    assert v.sum() == pytest.approx(want["sum"], rel=1e-12)
    idx = ARRAYS[f"solver_idx|{rules}"]
    np.testing.assert_allclose(v[idx], ARRAYS[f"solver_values|{rules}"], **TOL)


#: Cap of the official-Yahtzee target table solved by default: P*(state, β) reads only
#: lanes β' <= β, so a table capped lower is the recorded one's first lanes, bit for bit
#: (the cap of the table the suite's other target tests share, one solve);
#: ``YAHTZEE_SIM_GOLDEN=full`` solves the recorded cap.
TARGET_CAP_DEFAULT = 20


@pytest.mark.slow
@pytest.mark.parametrize("rules", sorted(RECORD["target"]))
def test_target_curves_are_unchanged(rules):
    cap = None if rules == "2-yatzy" else (TARGET_CAP if FULL else TARGET_CAP_DEFAULT)
    table = target_table(rules, cap)
    want = RECORD["target"][rules]
    curve = ARRAYS[f"target_curve|{rules}"]
    if cap is None or cap == TARGET_CAP:  # the recorded table: its size and sum too
        assert len(table.probs) == want["size"]
        assert table.probs.sum() == pytest.approx(want["sum"], rel=1e-12)
    else:
        curve = curve[: cap + 1]
    np.testing.assert_allclose(table.curve(), curve, **TOL)


@pytest.mark.slow
@pytest.mark.parametrize("sid", sorted(RECORD["regret"]))
def test_regret_is_unchanged(sid):
    r = regret_law(_recorded(sid), "yahtzee")[1]
    want = RECORD["regret"][sid]
    assert r.total == pytest.approx(want["total"], rel=1e-12)
    for part in ("by_decision", "by_box"):
        got = getattr(r, part).to_dict()
        assert got.keys() == want[part].keys()
        for k, v in want[part].items():
            assert got[k] == pytest.approx(v, rel=1e-10, abs=1e-12), (part, k)
    for k, v in want["by_turn"].items():
        assert r.by_turn[int(k)] == pytest.approx(v, rel=1e-10, abs=1e-12)


def test_advisor_is_unchanged():
    assert RECORD["advisor"], "no recorded advisor positions: nothing to compare"
    for case in RECORD["advisor"]:
        rules, *position = case["position"]
        want = case["options"]
        got = [o.to_dict() for o in advise(*position, rules=rules)]
        assert [{k: v for k, v in o.items() if k != "value"} for o in got] == [
            {k: v for k, v in o.items() if k != "value"} for o in want
        ]
        np.testing.assert_allclose([o["value"] for o in got], [o["value"] for o in want], **TOL)


def test_the_advisor_record_check_fails_without_positions(monkeypatch):
    monkeypatch.setitem(RECORD, "advisor", [])
    with pytest.raises(AssertionError, match="nothing to compare"):
        test_advisor_is_unchanged()
