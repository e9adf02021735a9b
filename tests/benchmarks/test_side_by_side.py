"""The side-by-side comparison (``benchmarks/side_by_side.py``): it reads every timed row of
both checkouts' results, pairs them, and flags the rows more than 10 % slower."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
import side_by_side  # noqa: E402

SAVED = json.loads((BENCH / "results" / "side_by_side.json").read_text())


def test_every_compared_benchmark_gives_paired_rows():
    rows = side_by_side.timings(SAVED)
    names = {name for name, *_ in rows}
    assert names == set(SAVED["benchmarks"])
    assert all(ref > 0 and port > 0 for *_, ref, port in rows)
    whats = [(name, what) for name, what, *_ in rows]
    assert len(whats) == len(set(whats))  # one row per timed figure


def test_a_slower_row_is_counted_on_the_page():
    record = copy.deepcopy(SAVED)
    before = sum(p > side_by_side.SLOWER * r for *_, r, p in side_by_side.timings(record))
    work = record["benchmarks"]["speed_guard"]["port"]["workloads"]
    name = next(iter(work))
    ref = record["benchmarks"]["speed_guard"]["reference"]["workloads"][name]["seconds"]
    was_slower = work[name]["seconds"] > side_by_side.SLOWER * ref
    work[name]["seconds"] = 2 * ref
    text = "\n".join(side_by_side.page_lines(record))
    n_rows = len(side_by_side.timings(record))
    assert f"{before + (not was_slower)} of {n_rows} rows are more than 10% slower" in text
    assert "| 2.00 |" in text


def test_the_printed_json_is_read_after_any_log_line():
    out = 'speed guard: greedy ok\n{\n  "a": 1\n}\n'
    assert side_by_side.json_of(out) == {"a": 1}
    with pytest.raises(ValueError, match="no JSON"):
        side_by_side.json_of("nothing here\n")
