"""The rule-based strategies' compiled kernels (``strategies/*_kernels.pyx``: Defensive
Yahtzee, Glenn's 2006 chasers, the rule-based v1 and v2): the same decisions and games,
byte for byte, as the numba kernels they replaced (digests recorded by
``tools/strat2_digests.py`` before the port), legal answers everywhere, the same games on
threads, and clear errors for arguments they do not take."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim.checks.positions import random_views
from yahtzee_sim.engine.simulate import simulate
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.strategies import _yahtzee_boxes as boxes

ROOT = Path(__file__).resolve().parents[2]
DIGESTS = json.loads((ROOT / "tests" / "golden" / "strat2_digests.json").read_text())


def _tool():
    spec = importlib.util.spec_from_file_location(
        "strat2_digests", ROOT / "tools" / "strat2_digests.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOL = _tool()


def _decision_groups():
    """``(label, preset)`` of every recorded decision digest."""
    return sorted({tuple(key.split("|")[:2]) for key in DIGESTS["decisions"]})


@pytest.mark.parametrize(("label", "preset"), _decision_groups())
def test_every_decision_is_the_numba_kernels_byte_for_byte(label, preset):
    cases = [c for c in TOOL.decision_cases() if c[:2] == (label, preset)]
    assert len(cases) == 6  # keeps with 2 and 1 rolls left, boxes; first turn and later
    for case in cases:
        assert TOOL.decide(*case) == DIGESTS["decisions"][TOOL.decision_key(*case[:4])], case


def _simulation_cases():
    for key in sorted(DIGESTS["simulate"]):
        label, preset, seed = key.split("|")
        quick = preset == "yahtzee" and seed == "0"
        marks = () if quick else (pytest.mark.slow,)
        yield pytest.param(label, preset, int(seed), id=key, marks=marks)


@pytest.mark.parametrize(("label", "preset", "seed"), list(_simulation_cases()))
def test_every_simulation_plays_the_numba_kernels_games(label, preset, seed):
    assert TOOL.play(label, preset, seed) == DIGESTS["simulate"][f"{label}|{preset}|{seed}"]


@pytest.mark.parametrize("label", ["defensive-v1", "glenn-rational-yahtzees-v2"])
def test_games_on_threads_are_the_games_in_one_thread(label):
    one = simulate(TOOL.STRATEGIES[label](), 600, seed=3, chunk_size=100, progress=False)
    two = simulate(TOOL.STRATEGIES[label](), 600, seed=3, chunk_size=100, n_jobs=2, progress=False)
    assert one.digest() == two.digest()


def test_the_kernels_box_indices_are_the_python_ones():
    text = (ROOT / "strategies" / "yahtzee_boxes.pxd").read_text()
    enum = dict(re.findall(r"^    ([A-Z_]+) = (\d+)$", text, flags=re.MULTILINE))
    assert {name: int(v) for name, v in enum.items()} == {
        name: getattr(boxes, name) for name in enum
    }
    assert len(enum) == 15


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), preset=st.sampled_from(TOOL.PRESETS))
def test_every_answer_is_legal(seed, preset):
    rules = get_rules(preset)
    for label, make in TOOL.STRATEGIES.items():
        strategy = make()
        if not strategy.supports(rules):
            continue
        strategy.prepare(rules)
        view = random_views(rules, 100, seed, 1)
        keep = strategy.keep(view)
        assert ((keep >= 0) & (keep <= view.dice)).all(), label
        view = random_views(rules, 100, seed, 0)
        box = strategy.box(view)
        assert (view.box_points[np.arange(len(view)), box] >= 0).all(), label


def _counts(n: int = 4) -> np.ndarray:
    return np.tile(np.array([1, 1, 1, 1, 1, 0], dtype=np.int8), (n, 1))


def test_the_defensive_kernels_refuse_what_they_do_not_take():
    from yahtzee_sim.strategies.defensive import DEFENSIVE_ZERO_ORDER
    from yahtzee_sim.strategies.defensive_kernels import defensive_box, defensive_keep

    used = np.zeros(4, dtype=np.int64)
    keep = np.empty((4, 6), dtype=np.int8)
    with pytest.raises(ValueError, match="dtype"):
        defensive_keep(_counts().astype(np.int64), used, keep)
    with pytest.raises(ValueError, match="used must have one row per game"):
        defensive_keep(_counts(), used[:3], keep)
    with pytest.raises(ValueError, match="counts must have 6 columns"):
        defensive_keep(_counts()[:, :5].copy(), used, keep)
    with pytest.raises(ValueError, match="contiguous"):
        defensive_keep(_counts(8)[::2], used, keep)
    pts = np.zeros((4, 13), dtype=np.int16)
    out = np.empty(4, dtype=np.int64)
    with pytest.raises(ValueError, match="zero_order must hold box indices"):
        defensive_box(_counts(), pts, used, np.array([0, 13]), out)
    with pytest.raises(ValueError, match="pts must have 13 columns"):
        defensive_box(_counts(), pts[:, :12].copy(), used, DEFENSIVE_ZERO_ORDER, out)
    defensive_box(_counts(), pts, used, DEFENSIVE_ZERO_ORDER, out)
    assert (out == boxes.CHANCE).all()  # no box scores: Chance, at 15 points


def test_the_chasers_keep_rules_are_the_python_ones():
    from yahtzee_sim.strategies import glenn2006

    text = (ROOT / "strategies" / "glenn2006_kernels.pyx").read_text()
    enum = dict(re.findall(r"^    (KEEP_[A-Z_]+) = (\d+)$", text, flags=re.MULTILINE))
    assert {name: int(v) for name, v in enum.items()} == {
        name: getattr(glenn2006, name)
        for name in ("KEEP_MOST_FREQUENT", "KEEP_STRAIGHTS_TOO", "KEEP_RATIONALLY")
    }


def test_the_chasers_kernels_refuse_what_they_do_not_take():
    from yahtzee_sim.strategies.glenn2006_kernels import best_gain_box, chaser_keep

    used = np.zeros(4, dtype=np.int64)
    keep = np.empty((4, 6), dtype=np.int8)
    with pytest.raises(ValueError, match="mode must be 0, 1 or 2"):
        chaser_keep(_counts(), used, 3, keep)
    with pytest.raises(ValueError, match="out must have one row per game"):
        chaser_keep(_counts(), used, 0, keep[:3])
    points = np.zeros((4, 13), dtype=np.int16)
    bonus = np.zeros((4, 13), dtype=np.int64)
    out = np.empty(4, dtype=np.int64)
    with pytest.raises(ValueError, match="order must name at least one box"):
        best_gain_box(points, bonus, np.zeros(0, dtype=np.int64), out)
    with pytest.raises(ValueError, match="order must hold box indices 0..12"):
        best_gain_box(points, bonus, np.array([12, 13]), out)
    with pytest.raises(ValueError, match="bonus must have 13 columns"):
        best_gain_box(points, bonus[:, :12].copy(), np.arange(13), out)
    with pytest.raises(ValueError, match="dtype"):
        best_gain_box(points.astype(np.int64), bonus, np.arange(13), out)
    chaser_keep(np.zeros((4, 6), dtype=np.int8), used, 0, keep)  # no die: nothing kept
    assert (keep == 0).all()


def test_the_rule_based_v1_kernels_refuse_what_they_do_not_take():
    from yahtzee_sim.strategies import rule_based_v1_kernels as v1

    used = np.zeros(4, dtype=np.int64)
    keep = np.zeros((4, 6), dtype=np.int8)
    with pytest.raises(ValueError, match="flag must have one row per game"):
        v1.glenn_keep(_counts(), used, used[:2], False, keep)
    with pytest.raises(ValueError, match="earned must be a 1-d bool array"):
        v1.yahtzee_keep(_counts(), used, used, keep)
    with pytest.raises(ValueError, match="earned must have one row per game"):
        v1.yahtzee_keep(_counts(), used, np.zeros(5, dtype=bool), keep)
    with pytest.raises(ValueError, match="upper_total must have one row per game"):
        v1.upper_keep(_counts(), used, used[:1], keep)
    pts = np.zeros((4, 13), dtype=np.int16)
    out = np.zeros(4, dtype=np.int64)
    with pytest.raises(ValueError, match="throw_away must hold box indices"):
        v1.glenn_box(_counts(), pts, used, True, True, np.array([-1]), out)
    with pytest.raises(ValueError, match="pts must have one row per game"):
        v1.upper_box(_counts(), pts[:3], used, out)
    with pytest.raises(ValueError, match="read-only|writable|writeable"):
        out.flags.writeable = False
        v1.upper_box(_counts(), pts, used, out)


def test_the_rule_based_v2_kernels_refuse_what_they_do_not_take():
    from yahtzee_sim.strategies import rule_based_v2_kernels as v2

    used = np.zeros(4, dtype=np.int64)
    yes = np.ones(4, dtype=bool)
    keep = np.zeros((4, 6), dtype=np.int8)
    with pytest.raises(ValueError, match="counts_five must be a 1-d bool array"):
        v2.program_keep(_counts(), used, used, yes, keep)
    with pytest.raises(ValueError, match="bonus_open must have one row per game"):
        v2.program_keep(_counts(), used, yes, yes[:3], keep)
    with pytest.raises(ValueError, match="upper_total must have one row per game"):
        v2.upper_first_keep(_counts(), used, used[:3], yes, keep)
    with pytest.raises(ValueError, match="used must have one row per game"):
        v2.chase_keep(_counts(), used[:3], yes, keep)
    pts = np.zeros((4, 13), dtype=np.int16)
    out = np.zeros(4, dtype=np.int64)
    rank = np.arange(13, dtype=np.int64)
    with pytest.raises(ValueError, match="rank must give each of the 13 boxes a position"):
        v2.program_box(_counts(), pts, used, yes, False, rank[:12], False, out)
    with pytest.raises(ValueError, match="pts must have 13 columns"):
        v2.program_box(_counts(), pts[:, :6].copy(), used, yes, False, rank, False, out)
    v2.program_box(_counts(), pts, used, ~yes, False, rank, False, out)
    assert (out == rank.argmax()).all()  # only zeros: the last open box of the tie order
