"""The handbook's Performance page, generated from saved benchmark results.

Usage::

    python benchmarks/perf_page.py run NAME      # run one benchmark, save its JSON
    python benchmarks/perf_page.py               # write docs/performance.md
    python benchmarks/perf_page.py --check       # exit 1 if the page is out of date

``run NAME`` runs the command listed for ``NAME`` in :data:`BENCHMARKS` (a script of this
folder that prints one JSON object), and saves ``benchmarks/results/NAME.json``: the
command, the machine (CPU model and cores from ``lscpu``, Python and numba versions), the
date and the benchmark's own JSON. Without arguments the page is written from every saved
result; a benchmark without a saved result appears as a row saying which command measures
it, never as an invented figure.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PAGE = ROOT / "docs" / "performance.md"

#: name -> (area, command). Commands are run from the repository root.
BENCHMARKS: dict[str, tuple[str, str]] = {
    "engine": (
        "Simulation",
        "python benchmarks/bench_engine.py --strategies greedy random tiered-random "
        "glenn-2007-rules optimal --games 1000000 --jobs 1 2",
    ),
    "solver": ("Optimal play", "python benchmarks/bench_solver.py --skip-cold"),
    "exact": ("Exact laws", "python benchmarks/bench_exact.py"),
    "select": ("Ranking", "python benchmarks/bench_select.py"),
    "stream": ("Long runs", "python benchmarks/bench_stream.py --games 20000000"),
    "visible": ("Visible tables", "python benchmarks/bench_visible.py"),
    "env": ("Machine learning", "python benchmarks/bench_env.py"),
    "dataset": ("Machine learning", "python benchmarks/bench_dataset.py"),
    "function": ("Machine learning", "python benchmarks/bench_function.py"),
    "coach": ("Coach", "python benchmarks/bench_coach.py"),
    "report": ("The report", "python benchmarks/bench_report.py"),
    "target": ("Target, utility and risk", "python benchmarks/bench_target.py"),
    "win": ("Target, utility and risk", "python benchmarks/bench_win.py"),
}


def machine() -> dict:
    """The CPU model and core count (``lscpu``), the load average, Python and numba versions.

    The load average (over the last 5 minutes, taken when the benchmark ends) says how busy
    the machine was: above the number of cores, other work shared the CPU.
    """
    info = {"cpu": platform.processor() or platform.machine(), "cores": None}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        out = ""
    for line in out.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "Model name":
            info["cpu"] = value.strip()
        elif key.strip() == "CPU(s)":
            info["cores"] = int(value.strip())
    import numba

    info["load_average_5min"] = round(os.getloadavg()[1], 2)
    info["python"] = platform.python_version()
    info["numba"] = numba.__version__
    return info


def run(name: str, timeout: float | None = None) -> Path:
    """Run benchmark ``name``, save ``benchmarks/results/name.json``; return its path.

    Raises ``subprocess.TimeoutExpired`` (the benchmark killed, nothing saved) after
    ``timeout`` seconds.
    """
    _, command = BENCHMARKS[name]
    proc = subprocess.run(
        [sys.executable, *shlex.split(command)[1:]],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
        timeout=timeout,
    )
    record = {
        "name": name,
        "command": command,
        "date": dt.date.today().isoformat(),
        "machine": machine(),
        "result": json.loads(proc.stdout),
    }
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path


# ---------------------------------------------------------------- rows per benchmark
Row = tuple[str, str]  # (measure, figure)


def _n(x: float, digits: int = 0) -> str:
    return f"{x:,.{digits}f}"


def _engine(r: dict) -> list[Row]:
    rows = []
    for x in r["results"]:
        rows.append(
            (
                f"`{x['strategy']}`, {_n(x['games'])} games, {x['n_jobs']} job(s)",
                f"{x['seconds_median']:.2f} s ({_n(x['games_per_second'])} games/s)",
            )
        )
    mb = max(x["results_mb"] for x in r["results"])
    rows.append((f"per-game results of {_n(r['results'][0]['games'])} games", f"{mb} MB"))
    return rows


def _solver(r: dict) -> list[Row]:
    rows = [
        (f"solve `{k}` (warm JIT, median)", f"{v:.2f} s") for k, v in r["solve_seconds"].items()
    ]
    if "optimal_games" in r:
        g = r["optimal_games"]
        rows.append(
            (
                f"`optimal`, {_n(g['games'])} games, 2 jobs (first run / repeat)",
                f"{g['first_seconds']:.2f} s / {g['repeat_seconds']:.2f} s",
            )
        )
    rows.append(("one advisor answer, table in memory", f"{r['advise_ms']:.2f} ms"))
    rows.append(
        ("one advisor answer, table loaded from disk", f"{r['advise_with_table_load_ms']:.1f} ms")
    )
    return rows


def _exact(r: dict) -> list[Row]:
    names = {
        "optimal_moments": "`optimal` on `yahtzee`, mean and SD only",
        "optimal_pmf": "`optimal` on `yahtzee`, full law",
        "greedy_pmf": "`greedy` on `yahtzee`, full law (generic batched API)",
    }
    rows = []
    for key, label in names.items():
        if key in r:
            c = r[key]
            rows.append((label, f"{c['seconds']:.2f} s, peak RSS {c['peak_rss_gb']:.2f} GB"))
    return rows


def _select(r: dict) -> list[Row]:
    runs = r["runs"]
    first, rest = runs[0], runs[1:]
    rows = [
        (
            f"Kim–Nelson over {r['strategies']} built-ins, first in a process",
            f"{first['seconds']:.2f} s (winner {', '.join(first['winners'])})",
        )
    ]
    if rest:
        rows.append(
            (
                "the same, later seeds",
                ", ".join(f"{x['seconds']:.2f} s" for x in rest),
            )
        )
    return rows


def _stream(r: dict) -> list[Row]:
    return [
        (
            f"`{r['strategy']}`, {_n(r['games'])} games, {r['jobs']} jobs, summary only",
            f"{r['seconds']:.1f} s ({_n(r['games_per_second'])} games/s), "
            f"peak RSS {r['peak_rss_mb']:.0f} MB",
        )
    ]


def _generic(r: dict) -> list[Row]:
    """Every scalar leaf of the benchmark's JSON, one row each."""
    rows: list[Row] = []

    def walk(prefix: str, x) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                walk(f"{prefix}.{k}" if prefix else k, v)
        elif isinstance(x, (int, float)) and not isinstance(x, bool):
            rows.append((f"`{prefix}`", f"{x:,}" if isinstance(x, int) else f"{x:,.4g}"))

    walk("", r)
    return rows


RENDER: dict[str, Callable[[dict], list[Row]]] = {
    "engine": _engine,
    "solver": _solver,
    "exact": _exact,
    "select": _select,
    "stream": _stream,
}


def page() -> str:
    """The Markdown of the Performance page."""
    saved = {p.stem: json.loads(p.read_text()) for p in sorted(RESULTS.glob("*.json"))}
    machines = sorted({(r["machine"]["cpu"], r["machine"]["cores"]) for r in saved.values()})
    lines = [
        "# Performance",
        "",
        "<!-- generated by `python benchmarks/perf_page.py` from benchmarks/results/*.json:"
        " edit that script, not this page -->",
        "",
        "Every figure below comes from a benchmark script in `benchmarks/` that prints one "
        "JSON object; `python benchmarks/perf_page.py run NAME` runs it and saves the "
        "result in `benchmarks/results/NAME.json`, and `python benchmarks/perf_page.py` "
        "writes this page from the saved results. Timings are wall-clock medians after a "
        "warm-up (compiled kernels, solved tables in the disk cache) unless the row says "
        "otherwise. On a machine shared with other work they vary by 10–40%.",
        "",
        "Measured on: "
        + "; ".join(f"{cpu}, {cores} cores" for cpu, cores in machines)
        + (
            f" (Python {next(iter(saved.values()))['machine']['python']}, "
            f"numba {next(iter(saved.values()))['machine']['numba']})"
            if saved
            else "nothing yet"
        )
        + ".",
        "",
    ]
    areas: dict[str, list[str]] = {}
    for name, (area, command) in BENCHMARKS.items():
        areas.setdefault(area, []).append(name)
    for area, names in areas.items():
        lines += [f"## {area}", "", "| measure | figure | reproduce |", "|---|---|---|"]
        for name in names:
            command = BENCHMARKS[name][1]
            if name not in saved:
                lines.append(f"| `{name}` | run `{command}` to measure | `{command}` |")
                continue
            rec = saved[name]
            rows = RENDER.get(name, _generic)(rec["result"])
            for measure, figure in rows:
                lines.append(f"| {measure} | {figure} | `{rec['command']}` ({rec['date']}) |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", nargs="?", choices=["run"], help="run one benchmark")
    ap.add_argument("name", nargs="?", choices=sorted(BENCHMARKS))
    ap.add_argument("--check", action="store_true", help="exit 1 if the page is out of date")
    ap.add_argument("--timeout", type=float, default=None, help="seconds before run gives up")
    args = ap.parse_args(argv)
    if args.action == "run":
        if not args.name:
            ap.error("run needs a benchmark name")
        print(run(args.name, args.timeout))
        return 0
    text = page()
    if args.check:
        return 0 if PAGE.exists() and PAGE.read_text() == text else 1
    PAGE.write_text(text)
    print(PAGE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
