"""The compiled kernels of the decision options (:mod:`yahtzee_sim._core.options`, the
saved-roll box moves of :mod:`yahtzee_sim._core.scoring`) and of the score-dependent laws
(:mod:`yahtzee_sim._core.score_dependent_law`): the same option values and exact laws,
byte for byte, as the numba kernels they replaced (digests recorded by
``tools/options_digests.py`` before the port), whatever the number of threads, and clear
errors for arguments they do not take."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from yahtzee_sim._core.scoring import saved_box_moves
from yahtzee_sim._kernels.lanes import upper_total_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.analysis.decisions import dataset
from yahtzee_sim.analysis.decisions.dataset import grade_decisions
from yahtzee_sim.engine.threads import threads_limited
from yahtzee_sim.exact import score_dependent
from yahtzee_sim.strategies import get_strategy

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "options_digests", ROOT / "tools" / "options_digests.py"
)
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)
DIGESTS = json.loads(tool.OUT.read_text())


@pytest.mark.parametrize("case", tool.DATASETS, ids=lambda c: tool.dataset_key(*c))
def test_decision_datasets_are_the_numba_kernels_byte_for_byte(case):
    assert tool.dataset_digests(*case) == DIGESTS["datasets"][tool.dataset_key(*case)]


@pytest.mark.parametrize("name", tool.MIXED)
def test_options_of_mixed_decisions_are_the_numba_kernels_byte_for_byte(name):
    rules = tool.game(name)
    got = tool.grade_digests(grade_decisions(rules, tool.mixed_decisions(rules)))
    assert got == DIGESTS["mixed"][name]


@pytest.mark.parametrize("name", tool.SAVED_BOXES)
def test_saved_box_values_are_the_numba_kernels_byte_for_byte(name):
    assert tool.saved_box_digest(name) == DIGESTS["saved_boxes"][name]


@pytest.mark.parametrize("case", tool.LAWS, ids="/".join)
def test_score_dependent_laws_are_the_numba_kernels_byte_for_byte(case):
    assert tool.law_digests(*case) == DIGESTS["laws"]["/".join(case)]


@pytest.mark.parametrize("name", ["yahtzee", "small-limit:2:forced"])
def test_the_options_do_not_depend_on_the_number_of_threads(name):
    rules = tool.game(name)
    rec = tool.mixed_decisions(rules, seed=11)
    runs = []
    for threads in (1, 2):
        with threads_limited(threads):
            runs.append(grade_decisions(rules, rec))
    for k, v in runs[0].items():
        assert np.array_equal(v, runs[1][k], equal_nan=True), k


def _recorded_call(monkeypatch, module, name, run):
    """The positional arguments of the first call ``run()`` makes to ``module.name``."""
    calls = []
    kernel = getattr(module, name)

    def record(*args):
        calls.append(args)
        return kernel(*args)

    monkeypatch.setattr(module, name, record)
    run()
    monkeypatch.undo()
    return list(calls[0]), kernel


def _options_call(monkeypatch):
    rules = tool.game("yahtzee-6box")
    rec = tool.mixed_decisions(rules, seed=5)
    return _recorded_call(
        monkeypatch, dataset, "decision_options", lambda: grade_decisions(rules, rec)
    )


def _int32(a):
    return a.astype(np.int32)


def _shorter(a):
    return a[:-1]


def _roll_past_the_table(a):
    b = a.copy()
    b[0] = 10_000
    return b


def _reversed_rolls_left(a):
    return a[::-1].copy()


@pytest.mark.parametrize(
    ("position", "change", "message"),
    [
        (2, _int32, "1-d int64"),  # used
        (3, _roll_past_the_table, "upper totals"),
        (5, _shorter, "group_ptr"),
        (6, _roll_past_the_table, "rolls must lie"),
        (7, _roll_past_the_table, "rolls_left"),
        (9, _shorter, "must match"),  # opt_start
        (11, lambda out: out[:4], "out must be"),
    ],
)
def test_decision_options_refuse_arguments_they_cannot_take(monkeypatch, position, change, message):
    args, kernel = _options_call(monkeypatch)
    args[position] = change(args[position])
    with pytest.raises(ValueError, match=message):
        kernel(*args)


def test_decision_options_refuse_need_lanes_and_saved_rolls(monkeypatch):
    args, kernel = _options_call(monkeypatch)
    need_lanes, _ = get_strategy("target:60").lane_play(tool.game("yahtzee-6box"))
    with pytest.raises(ValueError, match="max-EV lanes"):
        kernel(args[0], need_lanes, *args[2:])
    saved = tool.game("small-saved:2")
    with pytest.raises(ValueError, match="without saved rolls"):
        kernel(kernel_rules(saved), *args[1:])


def _law_call(monkeypatch):
    rules = tool.game("upper-3d4f")
    return _recorded_call(
        monkeypatch,
        score_dependent,
        "augmented_level",
        lambda: score_dependent.lane_law(get_strategy("target:20"), rules),
    )


def _no_room(next_off):
    return np.arange(len(next_off), dtype=np.int64)  # one position per next state


@pytest.mark.parametrize(
    ("position", "change", "message"),
    [
        (3, lambda items: items[:, :3], "items must be rows"),
        (3, lambda items: items + np.array([0, 0, 0, 10**6]), "item states"),
        (4, lambda keep: keep.astype(np.int64), "int16"),
        (4, lambda keep: keep + np.int16(30000), "opt_keep indices"),
        (5, lambda cat: cat[:, 1:], "opt_cat must be"),
        (9, _shorter, "next_mass must hold"),
        (11, lambda tile: 0, "tile"),
        (12, _shorter, "stats must have"),
    ],
)
def test_the_augmented_level_refuses_arguments_it_cannot_take(
    monkeypatch, position, change, message
):
    args, kernel = _law_call(monkeypatch)
    args[position] = change(args[position])
    with pytest.raises(ValueError, match=message):
        kernel(*args)


def test_the_augmented_level_refuses_a_next_level_without_room(monkeypatch):
    """Offsets that leave no room for an outcome's points are an error, never a write past
    the state's positions."""
    args, kernel = _law_call(monkeypatch)
    args[8] = _no_room(args[8])
    args[9] = np.zeros(int(args[8][-1]))
    with pytest.raises(ValueError, match="outside next_off"):
        kernel(*args)


def test_the_augmented_level_plays_need_lanes_only(monkeypatch):
    args, kernel = _law_call(monkeypatch)
    args[1] = upper_total_lanes(np.zeros(10))
    with pytest.raises(ValueError, match="need lanes"):
        kernel(*args)


@pytest.mark.parametrize(
    ("position", "change", "message"),
    [
        (3, _roll_past_the_table, "upper totals"),
        (5, _roll_past_the_table, "saved rolls"),
        (5, _shorter, "upper and saved"),
        (1, _shorter, "entries each"),
    ],
)
def test_saved_box_moves_refuse_arguments_they_cannot_take(position, change, message):
    rules = tool.game("maxi-yatzy")
    args = [kernel_rules(rules), *tool.saved_box_decisions(rules, n=20)]
    args[3] = np.minimum(args[3], rules.upper_cap)
    saved_box_moves(*args)  # the unchanged call runs
    args[position] = change(np.asarray(args[position]))
    with pytest.raises(ValueError, match=message):
        saved_box_moves(*args)
