"""The speed guard (``benchmarks/speed_guard.py``) fails on a deliberately slowed kernel.

The kernel that values every option of a batch of decision situations
(``decision_options``, called by ``grade_decisions``: the box step and the rerolls of each
situation's turn) is wrapped so that every call does its work 20 times. The guard, timing
its ``options`` workload once against the committed baseline
(``benchmarks/results/speed_guard.json``), must fail and name that workload. A second test
checks the comparison on given numbers: a workload up to twice its baseline ratio passes,
one above fails, and the baseline names every workload the guard times; a third that the
comparison tells whether the baseline was saved with the same calibration. The calibration
(a NumPy workload) does the same work at every run: its checksum is pinned, so that a
change of it is seen (the baseline must then be recorded again).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

import yahtzee_sim.analysis.decisions.dataset as dataset

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "speed_guard", ROOT / "benchmarks" / "speed_guard.py"
)
speed_guard = sys.modules.setdefault("speed_guard", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(speed_guard)


def baseline() -> dict:
    return json.loads(speed_guard.BASELINE.read_text())["result"]


@pytest.mark.slow  # about 15 s: the slowed workload runs for 20
def test_the_guard_fails_on_a_kernel_made_20_times_slower(monkeypatch):
    kernel = dataset.decision_options

    def slowed(*args):
        for _ in range(20):
            kernel(*args)

    monkeypatch.setattr(dataset, "decision_options", slowed)
    measured = speed_guard.measure(["options"], repeat=1)
    failed = speed_guard.compare(measured, baseline())
    assert failed == ["options"], measured
    assert measured["workloads"]["options"]["slower"] > 2


def test_the_comparison_allows_twice_the_baseline_and_no_more():
    base = {"workloads": {"solve": {"ratio": 10.0}, "options": {"ratio": 3.0}}}
    measured = {"workloads": {"solve": {"ratio": 20.0}, "options": {"ratio": 6.3}}}
    assert speed_guard.compare(measured, base) == ["options"]
    assert measured["workloads"]["solve"] | {"ok": True} == measured["workloads"]["solve"]
    assert measured["workloads"]["options"]["slower"] == 2.1
    assert set(baseline()["workloads"]) == set(speed_guard.WORKLOADS)


def test_the_comparison_tells_whether_the_baseline_has_this_calibration():
    base = {"workloads": {"solve": {"ratio": 10.0}}}
    measured = {"workloads": {"solve": {"ratio": 10.0}}}
    speed_guard.compare(measured, base)
    assert measured["same_calibration"] is False
    speed_guard.compare(measured, base | {"calibration": speed_guard.CALIBRATION})
    assert measured["same_calibration"] is True


#: The checksum of the calibration's work (:func:`speed_guard.calibration_work`).
CALIBRATION_CHECKSUM = -1796468388701054314


def test_the_calibration_does_the_same_work_at_every_run():
    assert speed_guard.calibration_work(3) == speed_guard.calibration_work(3)
    assert speed_guard.calibration_work() == CALIBRATION_CHECKSUM, (
        "the calibration changed: record the baseline again on a quiet machine "
        "(python benchmarks/speed_guard.py --record) and pin the new checksum here"
    )
