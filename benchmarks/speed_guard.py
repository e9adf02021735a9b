"""The speed guard: fails when a hot path gets more than twice as slow. Prints JSON.

Usage::

    python benchmarks/speed_guard.py                 # measure, compare, exit 1 if slower
    python benchmarks/speed_guard.py --record        # measure and save the baseline
    python benchmarks/speed_guard.py --slow-down options=20   # the check of the guard

Three workloads are timed in one process, each after a warm-up (its modules loaded, its
inputs ready, outside the timing):

* ``greedy``: ``simulate("greedy", 100_000, seed=1, rules="yahtzee", n_jobs=1)``, the
  strategy's decision cache emptied before each run (as in a fresh process);
* ``solve``: ``solve("yahtzee")``, backward induction over every state (no table cache);
* ``options``: every option's value of 10,000 random situations of Yahtzee
  (``grade_decisions``, the value table in memory), as ``bench_peers.py`` measures them.

Next to them the guard times the calibration before and after each workload run: a
fixed, deterministic NumPy workload (integer arithmetic on 65,536 lanes and scattered
gathers and read-modify-writes over a 4 MB table, about 0.1-0.2 s), one thread like every
NumPy elementwise loop. A run's time divided by the faster of the two calibrations around
it is the run's ratio, and the median over ``--repeat`` runs the workload's: a machine
twice as fast, or twice as busy, changes both alike, so the ratio carries from this machine
to a CI runner. The compiled kernels run on one thread too (``threads_limited(1)``), so the
number of cores does not enter the ratios.

The ratios are compared with the baseline saved by ``--record`` in
``benchmarks/results/speed_guard.json``: a workload whose ratio is more than ``--limit``
(2) times its baseline's fails the guard, which names it and exits 1. Exit 2: no baseline.

``--slow-down WORKLOAD=FACTOR`` runs that workload FACTOR times in each timed run: a
deliberately slowed workload, to see the guard fail (``tests/benchmarks/test_speed_guard.py`` slows
a kernel instead).

The baseline holds ratios to this calibration (:data:`CALIBRATION`, saved with it; the
guard warns, without failing, when the baseline was saved with another): after a change of
the calibration, or a deliberate change of speed, record it again on a quiet machine (no
other work running)::

    python benchmarks/speed_guard.py --record
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
HERE = str(ROOT / "benchmarks")
if HERE not in sys.path:  # its helpers (_situations, perf_page) when imported as a module
    sys.path.insert(0, HERE)
BASELINE = ROOT / "benchmarks" / "results" / "speed_guard.json"
#: A workload fails when its ratio is more than this many times its baseline's.
LIMIT = 2.0
GAMES = 100_000
SITUATIONS = 10_000

#: name -> what it measures (the JSON's and the Performance page's words).
WORKLOADS = {
    "greedy": f"play {GAMES:,} games of `greedy` on Yahtzee, one job, its decision cache empty",
    "solve": "solve Yahtzee: every state's value, no table cache",
    "options": f"value every option of {SITUATIONS:,} random Yahtzee situations",
}


#: The calibration's table (int64 entries: 4 MB), lanes and rounds.
CALIBRATION_TABLE = 1 << 19
CALIBRATION_LANES = 1 << 16
CALIBRATION_ROUNDS = 200
#: The multiplier and increment of the lanes' linear congruential generators.
LCG = (np.uint64(6364136223846793005), np.uint64(1442695040888963407))
#: What the calibration does, saved with the baseline (a baseline saved with another
#: calibration holds ratios to that one).
CALIBRATION = (
    f"{CALIBRATION_ROUNDS} NumPy steps of integer arithmetic on {CALIBRATION_LANES:,} lanes, "
    f"with scattered gathers and read-modify-writes over a "
    f"{CALIBRATION_TABLE * 8 // 2**20} MB table"
)


def calibration_work(rounds: int = CALIBRATION_ROUNDS) -> int:
    """The calibration's work: ``rounds`` steps of :data:`CALIBRATION_LANES` linear
    congruential generators (64-bit, wrapping), each step adding one at a scattered place
    of a fresh :data:`CALIBRATION_TABLE`-entry table and gathering another place into a
    running sum per lane.

    Returns
    -------
    int
        A checksum of the sums and the table, the same at every call.
    """
    mask = CALIBRATION_TABLE - 1
    table = np.zeros(CALIBRATION_TABLE, dtype=np.int64)
    x = np.arange(CALIBRATION_LANES, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    acc = np.zeros(CALIBRATION_LANES, dtype=np.int64)
    for _ in range(rounds):
        x *= LCG[0]
        x += LCG[1]
        i = ((x >> np.uint64(24)) & np.uint64(mask)).astype(np.intp)
        table[i] += 1  # a lane that repeats a place within a step adds one once
        acc = acc * 3 + table[(i * 31) & mask]
    return int(np.bitwise_xor.reduce(acc)) ^ int(table.sum())


def calibration() -> float:
    """Seconds of one calibration run (:func:`calibration_work`)."""
    t0 = time.perf_counter()
    calibration_work()
    return time.perf_counter() - t0


def workloads(names: list[str]) -> dict[str, Callable[[], object]]:
    """name -> a call running workload ``name`` once, its kernels loaded and its inputs
    ready."""
    from _situations import ours_options, situations

    from yahtzee_sim import get_rules, simulate
    from yahtzee_sim.engine.scheduler import forget_prepared_strategies
    from yahtzee_sim.solving.solver import solve, value_table

    yahtzee = get_rules("yahtzee")
    small = get_rules("2-yatzy")
    calibration()
    calls: dict[str, Callable[[], object]] = {}
    if "greedy" in names:
        simulate("greedy", 1_000, seed=0, rules=yahtzee, n_jobs=1)

        def greedy():
            forget_prepared_strategies()  # a fresh strategy: its decision cache empty
            return simulate("greedy", GAMES, seed=1, rules=yahtzee, n_jobs=1)

        calls["greedy"] = greedy
    if "solve" in names:
        solve(small)
        calls["solve"] = lambda: solve(yahtzee)
    if "options" in names:
        value_table(yahtzee)  # from the disk cache, or solved once here
        ours_options(small, situations(small, 10))
        sit = situations(yahtzee, SITUATIONS, seed=0)
        calls["options"] = lambda: ours_options(yahtzee, sit)
    return calls


def measure(
    names: list[str] | None = None, repeat: int = 3, slow_down: dict[str, int] | None = None
) -> dict:
    """Time workloads ``names`` (default all) and the calibration, the compiled kernels on
    one thread.

    ``slow_down``: workload -> how many times each timed run calls it."""
    from yahtzee_sim.engine.threads import threads_limited

    names = list(WORKLOADS) if names is None else names
    slow_down = slow_down or {}
    with threads_limited(1):
        calls = workloads(names)
        cal = [calibration()]
        times: dict[str, list[float]] = {n: [] for n in names}
        ratios: dict[str, list[float]] = {n: [] for n in names}
        for _ in range(repeat):
            for name in names:
                t0 = time.perf_counter()
                for _ in range(slow_down.get(name, 1)):
                    calls[name]()
                times[name].append(time.perf_counter() - t0)
                cal.append(calibration())
                # against the calibrations just before and just after (the faster one)
                ratios[name].append(times[name][-1] / min(cal[-2], cal[-1]))
    return {
        "calibration": CALIBRATION,
        "calibration_seconds": round(min(cal), 4),
        "workloads": {
            n: {
                "what": WORKLOADS[n],
                "seconds": round(min(t), 4),
                "all_seconds": [round(x, 4) for x in t],
                "ratio": round(float(np.median(ratios[n])), 2),
                "all_ratios": [round(x, 2) for x in ratios[n]],
                **({"slowed_down": slow_down[n]} if n in slow_down else {}),
            }
            for n, t in times.items()
        },
    }


def compare(measured: dict, baseline: dict, limit: float = LIMIT) -> list[str]:
    """Add each workload's baseline ratio and ``slower`` (ratio / baseline ratio) to
    ``measured``; return the names of the workloads more than ``limit`` times slower.
    ``measured["same_calibration"]`` says whether the baseline was saved with this
    calibration."""
    measured["same_calibration"] = baseline.get("calibration") == CALIBRATION
    failed = []
    for name, w in measured["workloads"].items():
        base = baseline["workloads"][name]["ratio"]
        w["baseline_ratio"] = base
        w["slower"] = round(w["ratio"] / base, 2)
        w["ok"] = w["slower"] <= limit
        if not w["ok"]:
            failed.append(name)
    measured["limit"] = limit
    measured["failed"] = failed
    return failed


def _slow_down(items: list[str]) -> dict[str, int]:
    out = {}
    for item in items:
        name, _, factor = item.partition("=")
        if name not in WORKLOADS or not factor.isdigit() or int(factor) < 1:
            raise argparse.ArgumentTypeError(
                f"--slow-down {item!r}: expected WORKLOAD=FACTOR, WORKLOAD one of "
                f"{', '.join(WORKLOADS)} and FACTOR a whole number >= 1"
            )
        out[name] = int(factor)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", action="store_true", help="save the baseline")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per workload (3)")
    ap.add_argument("--limit", type=float, default=LIMIT, help="allowed slow-down (2)")
    ap.add_argument("--only", nargs="+", choices=list(WORKLOADS), help="these workloads")
    ap.add_argument(
        "--slow-down",
        nargs="+",
        default=[],
        metavar="WORKLOAD=FACTOR",
        help="run WORKLOAD FACTOR times in each timed run (to see the guard fail)",
    )
    ap.add_argument("--baseline", type=Path, default=BASELINE, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    try:
        slow = _slow_down(args.slow_down)
    except argparse.ArgumentTypeError as exc:
        ap.error(str(exc))
    if args.record and slow:
        ap.error("--record with --slow-down would save a slowed baseline")
    if not args.record and not args.baseline.exists():
        print(f"speed guard: no baseline {args.baseline}; run with --record", file=sys.stderr)
        return 2
    load_before = round(os.getloadavg()[0], 2)
    t0 = time.perf_counter()
    measured = measure(args.only, args.repeat, slow)
    if args.record:
        return _record(args, measured, load_before, time.perf_counter() - t0)
    return _compare_to_baseline(args, measured, load_before)


def _record(args, measured: dict, load_before: float, seconds: float) -> int:
    """Save ``measured`` as the new baseline, with the machine it ran on."""
    from perf_page import machine

    info = machine()
    info["load_average_1min_before"] = load_before
    record = {
        "name": "speed_guard",
        "command": f"python benchmarks/speed_guard.py --record --repeat {args.repeat}",
        "date": dt.date.today().isoformat(),
        "seconds": round(seconds, 1),
        "machine": info,
        "result": {"benchmark": "speed_guard", "repeat": args.repeat, **measured},
    }
    args.baseline.write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(measured, indent=2))
    print(f"speed guard: baseline saved in {args.baseline}", file=sys.stderr)
    return 0


def _compare_to_baseline(args, measured: dict, load_before: float) -> int:
    """Print ``measured`` against the baseline; 1 if a workload is too slow, else 0."""
    saved = json.loads(args.baseline.read_text())
    failed = compare(measured, saved["result"], args.limit)
    measured["load_average_1min"] = [load_before, round(os.getloadavg()[0], 2)]
    print(json.dumps(measured, indent=2))
    if not measured["same_calibration"]:
        print(
            "speed guard: the baseline was saved with another calibration; record it again "
            "on a quiet machine: python benchmarks/speed_guard.py --record",
            file=sys.stderr,
        )
    for name in measured["workloads"]:
        w = measured["workloads"][name]
        verdict = "FAILED" if name in failed else "ok"
        print(
            f"speed guard: {name}: {w['seconds']:.3f} s, {w['ratio']} calibrations "
            f"(baseline {w['baseline_ratio']}): {w['slower']}× {verdict}",
            file=sys.stderr,
        )
    if failed:
        print(
            f"speed guard FAILED: {', '.join(failed)} more than {args.limit:g}× slower than "
            f"the baseline ({args.baseline.name}, recorded {saved['date']})",
            file=sys.stderr,
        )
        return 1
    return 0


# ------------------------------------------------ its entry on the Performance page
def rows(r: dict) -> list[tuple[str, str]]:
    """The speed guard's baseline: each workload's time and its ratio to the calibration."""
    what = r.get("calibration", "the one the baseline was saved with")
    rows: list[tuple[str, str]] = [
        (f"the calibration: {what} (the fastest run)", f"{r['calibration_seconds']:.3f} s")
    ]
    for w in r["workloads"].values():
        rows.append(
            (
                w["what"],
                f"{w['seconds']:.2f} s (the fastest of {r['repeat']} runs); {w['ratio']:g} "
                "times the calibration (the median run)",
            )
        )
    return rows


if __name__ == "__main__":
    sys.exit(main())
