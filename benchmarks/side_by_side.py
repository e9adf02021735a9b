"""The compiled core against another checkout (the last numba one), benchmark by benchmark.

Usage::

    python benchmarks/side_by_side.py --reference ../ref --reference-python ../venv-ref/bin/python
    python benchmarks/side_by_side.py --table      # print the saved comparison

Runs the speed guard, ``bench_peers``, ``bench_engine``, ``bench_solver`` and ``bench_exact``
with the commands of the Performance page, each first in the reference checkout (with its
own scripts and interpreter) and then in this one, one after the other on the same machine,
and saves both results with the machine in ``benchmarks/results/side_by_side.json``. The
Performance page (``perf_page.py``) shows every timed row of both and their ratio.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from perf_page import RESULTS, ROOT, benchmark, machine

SAVED = RESULTS / "side_by_side.json"

#: What a row is: (benchmark, what is timed, seconds).
Timing = tuple[str, str, float]

#: How the page names each benchmark.
LABELS = {
    "speed_guard": "Speed guard",
    "peers": "Against yatzy-solver (`bench_peers`)",
    "engine": "Playing games (`bench_engine`)",
    "solver": "Solvers and advice (`bench_solver`)",
    "exact": "Exact evaluation (`bench_exact`)",
}

#: A row slower than this ratio (port / reference) is flagged on the page.
SLOWER = 1.10


def commands() -> dict[str, str]:
    """The command of each compared benchmark (the Performance page's, the speed guard with
    a limit that never fails: only its timings are read)."""
    out = {"speed_guard": "python benchmarks/speed_guard.py --limit 1000"}
    for name in ("peers", "engine", "solver", "exact"):
        out[name] = benchmark(name).COMMAND
    return out


def _speed_guard(r: dict) -> Iterator[tuple[str, float]]:
    for name, w in r["workloads"].items():
        yield f"{name}: {w['what']}", w["seconds"]


def _engine(r: dict) -> Iterator[tuple[str, float]]:
    for row in r["results"]:
        jobs = "one job" if row["n_jobs"] == 1 else f"{row['n_jobs']} jobs"
        yield f"{row['games']:,} games of `{row['strategy']}`, {jobs}", row["seconds_median"]


def _solver(r: dict) -> Iterator[tuple[str, float]]:
    for rules, t in r["solve_seconds"].items():
        yield f"solve `{rules}`", t["median"]
    g = r["optimal_games"]
    yield f"{g['games']:,} games of `optimal`, {g['n_jobs']} jobs, repeated", g["seconds_repeat"]
    yield "one `advise` answer (median)", r["advise_ms"]["median"] / 1000
    yield "one `advise` answer with the table load", r["advise_with_table_load_ms"] / 1000


def _exact(r: dict) -> Iterator[tuple[str, float]]:
    for key in ("optimal_moments", "optimal_pmf", "greedy_pmf"):
        yield f"exact {key.replace('_', ' ')}", r[key]["seconds"]


def _peers(r: dict) -> Iterator[tuple[str, float]]:
    for p in r["presets"]:
        yield f"`{p['preset']}`: solve", p["solve"]["ours_seconds"]
        yield (
            f"`{p['preset']}`: {p['options']['situations']:,} option values",
            p["options"]["ours_seconds"],
        )
        yield f"`{p['preset']}`: {p['play']['games']:,} games", p["play"]["ours_seconds"]


#: How each benchmark's JSON gives its timed rows, in the page's order.
TIMED: dict[str, Callable[[dict], Iterator[tuple[str, float]]]] = {
    "speed_guard": _speed_guard,
    "peers": _peers,
    "engine": _engine,
    "solver": _solver,
    "exact": _exact,
}


def json_of(stdout: str) -> dict:
    """The JSON object a benchmark printed (the last line that starts one, to the end)."""
    lines = stdout.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("{")]
    if not starts:
        raise ValueError("the benchmark printed no JSON object")
    for i in reversed(starts):
        try:
            return json.loads("\n".join(lines[i:]))
        except json.JSONDecodeError:
            continue
    raise ValueError("the benchmark's output holds no complete JSON object")


def run_one(command: str, checkout: Path, python: str) -> tuple[dict, float]:
    """Run ``command`` (``python benchmarks/...``) in ``checkout`` with ``python``; its JSON
    result and the wall seconds."""
    t0 = dt.datetime.now(dt.timezone.utc)
    proc = subprocess.run(
        [python, *shlex.split(command)[1:]],
        cwd=checkout,
        stdout=subprocess.PIPE,
        text=True,
    )
    if proc.returncode not in (0, 1):  # the speed guard exits 1 on a slow workload
        raise subprocess.CalledProcessError(proc.returncode, command)
    seconds = (dt.datetime.now(dt.timezone.utc) - t0).total_seconds()
    return json_of(proc.stdout), round(seconds, 1)


def _revision(checkout: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
    )
    return out.stdout.strip() or "unknown"


def measure(reference: Path, reference_python: str, names: list[str]) -> dict:
    """Run every benchmark of ``names`` in the reference checkout, then in this one."""
    record = {
        "date": dt.date.today().isoformat(),
        "reference": {"revision": _revision(reference), "label": "numba"},
        "port": {"revision": _revision(ROOT), "label": "compiled core"},
        "benchmarks": {},
    }
    for name, command in commands().items():
        if name not in names:
            continue
        print(f"[{dt.datetime.now():%H:%M:%S}] {name} ...", file=sys.stderr, flush=True)
        ref, ref_s = run_one(command, reference, reference_python)
        port, port_s = run_one(command, ROOT, sys.executable)
        print(f"  {ref_s:.0f} s and {port_s:.0f} s", file=sys.stderr, flush=True)
        record["benchmarks"][name] = {"command": command, "reference": ref, "port": port}
    record["machine"] = machine()
    return record


def timings(record: dict) -> list[tuple[str, str, float, float]]:
    """Every timed row of a saved comparison: (benchmark, what, reference s, port s)."""
    rows = []
    for name, rec in record["benchmarks"].items():
        ref = dict(TIMED[name](rec["reference"]))
        for what, seconds in TIMED[name](rec["port"]):
            if what in ref:
                rows.append((name, what, ref[what], seconds))
    return rows


def _seconds(x: float) -> str:
    return f"{x * 1000:.2f} ms" if x < 0.1 else f"{x:.3f} s"


def page_lines(record: dict) -> list[str]:
    """The Performance page's section: one row per timed row of both checkouts."""
    ref, port = record["reference"], record["port"]
    rows = timings(record)
    slower = [r for r in rows if r[3] > SLOWER * r[2]]
    lines = [
        "## The compiled core against numba",
        "",
        f"Every timed row of the speed guard, `bench_peers`, `bench_engine`, `bench_solver` "
        f"and `bench_exact`, run with the commands of this page by "
        f"`python benchmarks/side_by_side.py` on one machine ({record['machine']['cpu']}, "
        f"{record['machine']['cores']} cores, {record['date']}), each benchmark first at "
        f"the last numba commit (`{ref['revision']}`) and then at `{port['revision']}`. "
        f"Ratio: compiled time over numba time (below 1: the compiled core is faster). "
        f"{len(slower)} of {len(rows)} rows are more than {SLOWER - 1:.0%} slower.",
        "",
        "| benchmark | what is timed | numba | compiled core | ratio |",
        "|---|---|--:|--:|--:|",
    ]
    for name, what, r, p in rows:
        lines.append(f"| {LABELS[name]} | {what} | {_seconds(r)} | {_seconds(p)} | {p / r:.2f} |")
    lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", type=Path, help="the other checkout (the last numba one)")
    ap.add_argument("--reference-python", help="its interpreter (default: this one)")
    ap.add_argument("--only", nargs="+", choices=list(TIMED), default=list(TIMED))
    ap.add_argument("--table", action="store_true", help="print the saved comparison")
    args = ap.parse_args(argv)
    if args.table:
        print("\n".join(page_lines(json.loads(SAVED.read_text()))))
        return 0
    if args.reference is None or not (args.reference / "benchmarks").is_dir():
        ap.error("--reference must be a checkout of this project (with benchmarks/)")
    record = measure(args.reference, args.reference_python or sys.executable, args.only)
    SAVED.write_text(json.dumps(record, indent=2) + "\n")
    print("\n".join(page_lines(record)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
