"""The scoring step's batch entry points and the need lanes' liveness in the compiled core
(``_core/scoring.pyx``, ``_core/need_lanes.pyx``): the same values, byte for byte and dtype
for dtype, as the numba helpers they replaced (digests recorded by
``tools/scoring_digests.py`` before the port), and checked inputs."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from yahtzee_sim._core import need_lanes, scoring
from yahtzee_sim._kernels.lanes import upper_total_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.game.rules import get_rules

ROOT = Path(__file__).resolve().parents[2]
DIGESTS = json.loads((ROOT / "tests" / "golden" / "scoring_digests.json").read_text())
_spec = importlib.util.spec_from_file_location(
    "scoring_digests", ROOT / "tools" / "scoring_digests.py"
)
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)


@pytest.mark.parametrize("game", tool.GAMES)
def test_batch_points_and_bonuses_are_the_numba_helpers_byte_for_byte(game):
    kr = kernel_rules(tool.game_rules(game))
    roll, used, flag, upper = tool.batch_inputs(kr, game)
    points = scoring.box_options(kr, roll, used, flag)
    assert points.dtype == np.int16
    assert tool.digest(points) == DIGESTS[f"points:{game}"]
    bonuses = scoring.yahtzee_bonuses(kr, roll, used, flag)
    assert tool.digest(bonuses) == DIGESTS[f"bonuses:{game}"]
    options = scoring.bonus_options(kr, roll, used, upper, flag, points)
    assert options.dtype == np.int64
    assert tool.digest(options) == DIGESTS[f"options:{game}"]


@pytest.mark.parametrize("game", tool.GAMES)
def test_narrow_integer_inputs_give_the_same_arrays(game):
    """int32 roll indices (a view's) and int16 points (box_options') are read as they are,
    with the values of int64 ones; other dtypes are converted."""
    kr = kernel_rules(tool.game_rules(game))
    roll, used, flag, upper = tool.batch_inputs(kr, game)
    points = scoring.box_options(kr, roll, used, flag)
    wide = points.astype(np.int64)
    for rolls in (roll.astype(np.int32), roll.astype(np.int16), roll.tolist()):
        assert np.array_equal(scoring.box_options(kr, rolls, used, flag), points)
        assert np.array_equal(
            scoring.yahtzee_bonuses(kr, rolls, used, flag),
            scoring.yahtzee_bonuses(kr, roll, used, flag),
        )
        for pts in (points, wide, points.astype(np.int32)):
            assert np.array_equal(
                scoring.bonus_options(kr, rolls, used, upper, flag, pts),
                scoring.bonus_options(kr, roll, used, upper, flag, wide),
            )


@pytest.mark.parametrize("game", tool.GAMES)
def test_one_scored_box_is_the_numba_scoring_step(game):
    kr = kernel_rules(tool.game_rules(game))
    steps = []
    for used, upper, flag, c, p, saved, yb in tool.scored_inputs(kr):
        steps += scoring.saved_scored_state(kr, used, upper, flag, c, p, saved)
        steps += scoring.scored_state(kr, used, upper, flag, c, p)
        steps.append(scoring.flag_after_roll(kr, flag, yb))
    assert tool.digest(steps) == DIGESTS[f"scored:{game}"]


@pytest.mark.parametrize("with_first", [False, True])
def test_live_lanes_are_the_numba_helper(with_first):
    lanes, states, t = tool.live_inputs(with_first)
    got = need_lanes.live_lanes(lanes, states, t)
    assert got.dtype == np.bool_ and got.any() and not got.all()
    assert tool.digest(got) == DIGESTS[f"live:{with_first}"]


def test_bad_batches_are_refused():
    kr = kernel_rules(get_rules("yahtzee"))
    ok = np.zeros(3, dtype=np.int64)
    with pytest.raises(ValueError, match="roll indices"):
        scoring.box_options(kr, np.array([0, 1, 10_000]), ok, ok)
    with pytest.raises(ValueError, match="roll indices"):
        scoring.bonus_options(kr, np.array([0, -1, 0], np.int32), ok, ok, ok, np.zeros((3, 13)))
    with pytest.raises(ValueError, match="used-masks"):
        scoring.yahtzee_bonuses(kr, ok, np.array([0, -1, 0]), ok)
    with pytest.raises(ValueError, match="used-masks"):
        scoring.box_options(kr, ok.astype(np.int32), np.array([0, 0, 1 << 13]), ok)
    with pytest.raises(ValueError, match="entries each"):
        scoring.box_options(kr, ok, ok[:2], ok)
    with pytest.raises(ValueError, match="rows of 13"):
        scoring.bonus_options(kr, ok, ok, ok, ok, np.zeros((3, 5)))
    with pytest.raises(ValueError, match="box 13"):
        scoring.scored_state(kr, 0, 0, 0, 13, 5)
    with pytest.raises(ValueError, match="need lanes"):
        need_lanes.live_lanes(upper_total_lanes(np.zeros(10)), ok, ok)
