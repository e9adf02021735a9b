"""The compiled core's solver levels (:mod:`yahtzee_sim._core.solve`): the same value,
risk, target and utility tables, byte for byte, as the numba kernels they replaced
(digests recorded by ``tools/kernel_digests.py`` before the port), whatever the number of
threads, and clear errors for arguments they do not take."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from yahtzee_sim._core.solve import solve_level
from yahtzee_sim._kernels.lanes import points_needed_lanes, upper_total_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import n_states
from yahtzee_sim.solving.levels import levels, upper_lanes
from yahtzee_sim.solving.risk import solve_risk
from yahtzee_sim.solving.solver import solve
from yahtzee_sim.solving.target import target_table
from yahtzee_sim.solving.utility import solve_utility, threshold_utility

DIGESTS = json.loads(
    (Path(__file__).resolve().parents[1] / "golden" / "kernel_digests.json").read_text()
)
#: Presets whose tables solve in a second or two: the quick loop's cases.
QUICK = ("2-yatzy", "upper-3d4f", "yahtzee-6box", "yacht", "yahtzee", "yahtzee-single-bonus")


def digest(values: np.ndarray) -> str:
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(values, dtype="<f8").tobytes()).hexdigest()


def _cases():
    for name, entry in sorted(DIGESTS.items()):
        for kind in entry:
            quick = (name in QUICK and kind == "values") or name == "2-yatzy"
            marks = () if quick else (pytest.mark.slow,)
            yield pytest.param(name, kind, id=f"{name}-{kind}", marks=marks)


@pytest.mark.parametrize(("name", "kind"), _cases())
def test_every_table_is_the_numba_kernels_byte_for_byte(name, kind):
    rules = get_rules(name)
    what, _, parameter = kind.partition(":")
    if what == "values":
        values = solve(rules).values
    elif what == "target":  # the table the suite's other target tests share (one solve)
        values = target_table(rules, None if parameter == "all" else int(parameter)).probs
    elif what == "utility":
        values = solve_utility(rules, threshold_utility(rules, int(parameter))).values
    else:
        values = solve_risk(rules, float(parameter)).values
    assert digest(values) == DIGESTS[name][kind]


def _solve_with_threads(rules, threads: int) -> np.ndarray:
    values = np.zeros(n_states(rules))
    lanes = upper_total_lanes(values)
    kr = kernel_rules(rules)
    for masks in levels(rules.n_boxes, rules.forced_order):
        solve_level(kr, lanes, values, 0, masks, *upper_lanes(rules, masks), threads)
    return values


@pytest.mark.parametrize("name", ["yahtzee-single-bonus", "yatzy-no-bonus"])
def test_the_values_do_not_depend_on_the_number_of_threads(name):
    rules = get_rules(name)
    one = _solve_with_threads(rules, 1)
    assert np.array_equal(one, _solve_with_threads(rules, 3))
    assert one[0] == pytest.approx(solve(rules).expected_value(), abs=1e-9)


def test_arguments_it_does_not_take_are_refused_with_a_clear_error():
    rules = get_rules("2-yatzy")
    kr = kernel_rules(rules)
    values = np.zeros(n_states(rules))
    masks = levels(rules.n_boxes)[0]
    u_start, n_upper = upper_lanes(rules, masks)
    need = points_needed_lanes(values, np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64))
    with pytest.raises(ValueError, match="lanes over upper totals"):
        solve_level(kr, need, values, 0, masks, u_start, n_upper)
    with pytest.raises(ValueError, match="one entry per mask"):
        solve_level(kr, upper_total_lanes(values), values, 0, masks, u_start[:0], n_upper)
    with pytest.raises(ValueError, match="dtype|type"):  # float masks: not the kernel's type
        solve_level(kr, upper_total_lanes(values), values, 0, masks * 1.0, u_start, n_upper)


def test_a_level_outside_the_buffers_is_refused_before_the_kernel_runs():
    rules = get_rules("2-yatzy")
    kr = kernel_rules(rules)
    values = np.zeros(n_states(rules))
    lanes = upper_total_lanes(values)
    masks = levels(rules.n_boxes)[0]
    u_start, n_upper = upper_lanes(rules, masks)
    with pytest.raises(ValueError, match="used-masks"):
        solve_level(kr, lanes, values, 0, masks + (1 << rules.n_boxes), u_start, n_upper)
    with pytest.raises(ValueError, match="upper totals"):
        solve_level(kr, lanes, values, 0, masks, u_start, n_upper + rules.upper_cap + 1)
    with pytest.raises(ValueError, match="every state"):
        solve_level(kr, lanes, values[: len(values) // 2], 0, masks, u_start, n_upper)


def test_a_bundle_array_that_is_not_contiguous_is_refused():
    rules = get_rules("2-yatzy")
    kr = kernel_rules(rules)
    strided = kr._replace(first_roll_prob=np.repeat(kr.first_roll_prob, 2)[::2])
    values = np.zeros(n_states(rules))
    masks = levels(rules.n_boxes)[0]
    with pytest.raises(ValueError, match="C-contiguous"):
        solve_level(
            strided, upper_total_lanes(values), values, 0, masks, *upper_lanes(rules, masks)
        )
