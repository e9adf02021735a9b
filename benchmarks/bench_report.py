"""Benchmark of the main job, ``yahtzee-sim report``, cold and warm. Prints one JSON object.

Usage::

    python benchmarks/bench_report.py [--games 100000] [--quick] [--skip-cold] [--repeat 1]

* ``cold``: a fresh process with an empty table cache (a temporary
  ``YAHTZEE_SIM_CACHE``), as on a fresh machine;
* ``warm``: the same report again in a new process, with the cache the cold run left
  (value table, exact laws and regrets of the built-in strategies);
  ``differing_files`` lists the files of the two runs that are not byte-identical;
* ``quick`` (with ``--then-quick``): ``report --quick`` with the cache of the warm run.

Each run is a separate process that calls :func:`~yahtzee_sim.analysis.report.build.build_report`
and :func:`~yahtzee_sim.analysis.report.write.write_report` and reports its wall time, CPU
time (the process and the workers it waited for: steadier than wall time on a busy
machine), peak RSS and the split by step: ``imports`` (the report's modules),
``tables`` (value table solved or loaded), ``simulations``, ``exact`` (wall time of the
exact stage) with ``exact_cpu`` and ``regret_cpu`` (evaluation time summed over
strategies: exact law and regret charging), ``kim_nelson`` and ``figures``
(``write_report``). ``--quick`` benchmarks ``report --quick``. Timings on a shared machine
are noisy: compare medians of ``--repeat``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from page_format import Row

TARGETS = {"cold": 90.0, "warm": 40.0, "quick": 20.0}


def _child(out: str, games: int | None, quick: bool) -> None:
    """Run in the child process: the report, its imports and steps timed (printed as one
    JSON line)."""
    t0 = time.perf_counter()
    from yahtzee_sim.analysis.report.build import build_report
    from yahtzee_sim.analysis.report.write import write_report

    imports = time.perf_counter() - t0
    kwargs = {"quick": True} if quick else {}
    if games is not None:
        kwargs["n_games"] = games
    rep = build_report(progress=False, **kwargs)
    t0 = time.perf_counter()
    write_report(rep, out)
    figures = time.perf_counter() - t0
    split = {"imports": imports, **rep.timings}
    split["figures"] = figures
    print(json.dumps({k: round(v, 1) for k, v in split.items()}))


def run(out: str, env: dict, games: int | None, quick: bool) -> dict:
    """One report in a fresh process: wall seconds, peak RSS so far and the split."""
    cmd = [sys.executable, __file__, "--child", out, "--games", str(games or 0)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [*cmd, *(["--quick"] if quick else [])],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = sum(getattr(after, f) - getattr(before, f) for f in ("ru_utime", "ru_stime"))
    split = json.loads(proc.stdout.strip().splitlines()[-1])
    return {
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu, 1),
        "peak_rss_gb_so_far": round(after.ru_maxrss / 2**20, 2),
        "split": split,
    }


def _differing(root: str, a: str, b: str) -> list[str]:
    """Files of report folder ``a`` whose bytes differ in ``b`` (or missing there)."""
    first, second = Path(root, a), Path(root, b)
    return [
        p.name
        for p in sorted(first.iterdir())
        if not (second / p.name).is_file() or p.read_bytes() != (second / p.name).read_bytes()
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=0, help="games per strategy (0: the default)")
    ap.add_argument("--quick", action="store_true", help="benchmark report --quick")
    ap.add_argument("--skip-cold", action="store_true", help="only warm runs (your caches)")
    ap.add_argument("--repeat", type=int, default=1, help="cold+warm pairs (medians reported)")
    ap.add_argument(
        "--then-quick", action="store_true", help="and report --quick with the warm cache"
    )
    ap.add_argument("--keep", default=None, help="copy the last warm report folder here")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        _child(args.child, args.games or None, args.quick)
        return
    result: dict = {"games": args.games or "default", "quick": args.quick, "runs": []}
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ)
            pair = {}
            if not args.skip_cold:
                env["YAHTZEE_SIM_CACHE"] = os.path.join(tmp, "tables")
                pair["cold"] = run(os.path.join(tmp, "cold"), env, args.games, args.quick)
            pair["warm"] = run(os.path.join(tmp, "warm"), env, args.games, args.quick)
            if "cold" in pair:
                pair["differing_files"] = _differing(tmp, "cold", "warm")
            if args.then_quick:
                pair["quick"] = run(os.path.join(tmp, "quick"), env, 0, True)
            result["runs"].append(pair)
            if args.keep:
                shutil.copytree(os.path.join(tmp, "warm"), args.keep, dirs_exist_ok=True)
    for kind in ("cold", "warm", "quick"):
        times = [p[kind]["seconds"] for p in result["runs"] if kind in p]
        if times:
            result[f"{kind}_median_seconds"] = statistics.median(times)
    result["targets_seconds"] = TARGETS
    print(json.dumps(result, indent=2))


REPORT_RUNS = {
    "cold": ("first", "the first run (an empty table cache)"),
    "warm": ("second", "the second run (value table and exact results cached)"),
    "quick": ("`--quick`", "`--quick` (the cache of the second run)"),
}

REPORT_STEPS = {
    "tables": "tables",
    "simulations": "simulations",
    "exact": "exact laws",
    "kim_nelson": "Kim–Nelson ranking",
    "figures": "figures",
}


def rows(r: dict) -> list[Row]:
    """Wall time of each kind of run (median over the runs) and the split of the last."""
    rows: list[Row] = []
    for kind, (short, label) in REPORT_RUNS.items():
        runs = [p[kind] for p in r["runs"] if kind in p]
        if not runs:
            continue
        split = runs[-1]["split"]
        steps = ", ".join(f"{w} {split[k]:.1f} s" for k, w in REPORT_STEPS.items() if k in split)
        rows.append(
            (
                f"`yahtzee-sim report`, {label}",
                f"{r[f'{kind}_median_seconds']:.1f} s wall clock, "
                f"{runs[-1]['cpu_seconds']:.0f} s CPU",
            )
        )
        rows.append((f"the {short} run's time, step by step", steps))
    differ = sorted({f for p in r["runs"] for f in p.get("differing_files", [])})
    same = "byte for byte the same" if not differ else "differ: " + ", ".join(differ)
    rows.append(("the output files of the first and the second run", same))
    return rows


# its entry on the Performance page (perf_page.py)
AREA = "The report"
TITLE = "The report, from an empty table cache and from a full one"
COMMAND = "python benchmarks/bench_report.py --then-quick"
SMOKE = "--skip-cold --quick --games 2000"


if __name__ == "__main__":
    sys.exit(main())
