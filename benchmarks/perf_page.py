"""The handbook's Performance page, generated from saved benchmark results.

Usage::

    python benchmarks/perf_page.py run NAME      # run one benchmark, save its JSON
    python benchmarks/perf_page.py run-all       # every benchmark, one after the other,
                                                 # then the page (the quiet measurement)
    python benchmarks/perf_page.py run-all --smoke   # the same with tiny sizes, saved in a
                                                 # temporary folder: checks that all run
    python benchmarks/perf_page.py               # write docs/performance.md
    python benchmarks/perf_page.py --check       # exit 1 if the page is out of date

``run NAME`` runs the command that ``bench_NAME.py`` declares (:data:`NAMES`: a script of
this folder that prints one JSON object), and saves ``benchmarks/results/NAME.json``: the
command, the machine (CPU model and cores from ``lscpu``, the Python version and the Cython
version the compiled core was built with), the
date and the benchmark's own JSON. Without arguments the page is written from every saved
result; a benchmark without a saved result appears as a row saying which command measures
it, never as an invented figure.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from page_format import table

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = ROOT / "benchmarks" / "results"
PAGE = ROOT / "docs" / "performance.md"

#: The benchmarks on the page, in its order: each is the script ``bench_NAME.py`` of this
#: folder, which prints one JSON object and declares its entry on the page: ``AREA`` (its
#: section), ``TITLE``, ``COMMAND`` (what measures it, run from the repository root),
#: ``SMOKE`` (the options of ``run-all --smoke``, or ``None``) and ``rows(result)`` (its
#: table), or ``page_section(record)`` (a section of its own, ahead of the others).
NAMES = (
    "install",
    "engine",
    "solver",
    "exact",
    "select",
    "stream",
    "visible",
    "env",
    "dataset",
    "function",
    "coach",
    "web",
    "report",
    "first_run",
    "target",
    "win",
    "distill",
    "peers",
)


def benchmark(name: str) -> ModuleType:
    """The script of benchmark ``name`` (``bench_NAME.py``), imported (its ``main`` is not
    run)."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    return importlib.import_module(f"bench_{name}")


def speed_guard() -> ModuleType:
    """The speed guard's script (its baseline's rows), imported."""
    benchmark("engine")  # puts this folder on the path
    return importlib.import_module("speed_guard")


def cython_version() -> str | None:
    """The Cython version that generated the compiled core, or ``None`` if it cannot be told.

    The functions of Cython's modules share a type defined in a module named after that
    version (``_cython_3_1_2`` for Cython 3.1.2).
    """
    from yahtzee_sim._core import batched

    module = type(batched.need_lane_decisions).__module__
    if not module.startswith("_cython_"):
        return None
    return module.removeprefix("_cython_").replace("_", ".")


def machine() -> dict:
    """The machine's name, CPU model and core count (``lscpu``), the load average, the
    Python version and the Cython version of the compiled core (:func:`cython_version`).

    The load average (over the last 5 minutes, taken when the benchmark ends) says how busy
    the machine was: above the number of cores, other work shared the CPU.
    """
    info = {
        "host": platform.node(),
        "cpu": platform.processor() or platform.machine(),
        "cores": None,
    }
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
    info["load_average_5min"] = round(os.getloadavg()[1], 2)
    info["python"] = platform.python_version()
    info["cython"] = cython_version()
    return info


def run(
    name: str, timeout: float | None = None, smoke: bool = False, results: Path = RESULTS
) -> Path:
    """Run benchmark ``name``, save ``results/name.json``; return its path.

    ``smoke``: with the tiny sizes the script declares (``SMOKE``). Raises
    ``subprocess.TimeoutExpired`` (the benchmark killed, nothing saved) after ``timeout``
    seconds.
    """
    script = benchmark(name)
    command = script.COMMAND
    if smoke and script.SMOKE:
        command = f"{command} {script.SMOKE}"
    load_before = round(os.getloadavg()[0], 2)
    t0 = dt.datetime.now(dt.timezone.utc)
    proc = subprocess.run(
        [sys.executable, *shlex.split(command)[1:]],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
        timeout=timeout,
    )
    info = machine()
    info["load_average_1min_before"] = load_before
    record = {
        "name": name,
        "command": command,
        "date": dt.date.today().isoformat(),
        "seconds": round((dt.datetime.now(dt.timezone.utc) - t0).total_seconds(), 1),
        "machine": info,
        "result": json.loads(proc.stdout),
    }
    results.mkdir(exist_ok=True)
    path = results / f"{name}.json"
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path


def _own_sections(scripts: dict[str, ModuleType], saved: dict) -> list[str]:
    """The sections of the benchmarks that write their own (``page_section``)."""
    lines: list[str] = []
    for name, script in scripts.items():
        if not hasattr(script, "page_section"):
            continue
        if name in saved:
            lines += script.page_section(saved[name])
        else:
            lines += [
                f"## {script.AREA}",
                "",
                f"Not measured here; run `{script.COMMAND}` to measure.",
                "",
            ]
    return lines


def _area_sections(scripts: dict[str, ModuleType], saved: dict) -> list[str]:
    """One section per area, one table per benchmark (its ``rows``), in page order."""
    areas: dict[str, list[str]] = {}
    for name, script in scripts.items():
        if not hasattr(script, "page_section"):
            areas.setdefault(script.AREA, []).append(name)
    lines: list[str] = []
    for area, names in areas.items():
        lines += [f"## {area}", ""]
        for name in names:
            script = scripts[name]
            lines += [f"### {script.TITLE}", ""]
            if name not in saved:
                lines += [f"Not measured here; run `{script.COMMAND}` to measure.", ""]
                continue
            rec = saved[name]
            lines += table(script.rows(rec["result"]))
            lines += ["", f"Reproduce every row above: `{rec['command']}` ({rec['date']}).", ""]
    return lines


#: The page's title and introduction.
INTRO = [
    "# Performance",
    "",
    "<!-- generated by `python benchmarks/perf_page.py` from benchmarks/results/*.json:"
    " edit that script, not this page -->",
    "",
    "Every figure below comes from a benchmark script in `benchmarks/` that prints one "
    "JSON object. `python benchmarks/perf_page.py run NAME` runs one and saves its result "
    "in `benchmarks/results/NAME.json`, with the machine it ran on; "
    "`python benchmarks/perf_page.py` writes this page from the saved results. Timings "
    "are wall-clock medians after a warm-up (modules imported, solved tables in the disk "
    "cache) unless the row says otherwise. A benchmark without a saved result shows the "
    "command that measures it.",
    "",
    "What the figures depend on: solved tables are cached on disk "
    "(`$YAHTZEE_SIM_CACHE`). `greedy` "
    "and `optimal` decide once per turn-start state, for all 252 rolls at once, and "
    "share the decisions between blocks (a million games visit about 34,000 states "
    "under greedy and 180,000 under optimal); built-in strategies run their blocks in "
    "threads, a user's strategy in worker processes and the calling process. "
    "`python benchmarks/perf_page.py run-all` measures every row below on one machine, "
    "one benchmark after the other, and records the machine's name and load.",
    "",
]


def page() -> str:
    """The Markdown of the Performance page."""
    saved = {p.stem: json.loads(p.read_text()) for p in sorted(RESULTS.glob("*.json"))}
    scripts = {name: benchmark(name) for name in NAMES}
    lines = list(INTRO)
    lines += _own_sections(scripts, saved)
    lines += _area_sections(scripts, saved)
    lines += _side_by_side_section(saved)
    lines += _speed_guard_section(saved)
    lines += _machines_section(scripts, saved)
    return "\n".join(lines)


def _side_by_side_section(saved: dict) -> list[str]:
    """The compiled core against the last numba commit (``side_by_side.py``), if measured."""
    if "side_by_side" not in saved:
        return []
    benchmark("engine")  # puts this folder on the path
    return importlib.import_module("side_by_side").page_lines(saved["side_by_side"])


def _speed_guard_section(saved: dict) -> list[str]:
    """What the speed guard does, and its baseline's table."""
    lines: list[str] = []
    lines += [
        "## The speed guard",
        "",
        "CI runs `python benchmarks/speed_guard.py --limit 3` after the tests. It times three hot "
        "paths in one process, each after a warm-up, the compiled kernels on one thread: "
        "100,000 games of `greedy`, solving `yahtzee`, and every option's value of 10,000 "
        "random situations. Around each run it times a small fixed NumPy workload on one "
        "thread (integer arithmetic and scattered reads and writes over a 4 MB table), the "
        "calibration, and divides the run's time by the calibration's: a faster or busier "
        "machine changes both alike, so the ratio holds from one machine to another. The "
        "guard fails, naming the workload, when its ratio (the median over the runs) is more "
        "than twice the baseline's below (`--limit`; CI allows three times, as its processor "
        "may not be the baseline's). `python benchmarks/speed_guard.py --record` saves "
        "a new baseline (`benchmarks/results/speed_guard.json`) after a deliberate change of "
        "speed; "
        "`--slow-down WORKLOAD=FACTOR` runs a workload that many times, to see the guard fail.",
        "",
    ]
    if "speed_guard" in saved:
        rec = saved["speed_guard"]
        lines += table(speed_guard().rows(rec["result"]))
        lines += ["", f"Baseline recorded with `{rec['command']}` ({rec['date']}).", ""]
    else:
        lines += ["No baseline saved: run `python benchmarks/speed_guard.py --record`.", ""]
    return lines


def _machines_section(scripts: dict[str, ModuleType], saved: dict) -> list[str]:
    """The machine, date and load of every saved result."""
    lines: list[str] = []
    lines += [
        "## Machines",
        "",
        "A load average above the number of cores means that other work shared the CPUs "
        "during the run: those figures understate the speed of an idle machine.",
        "",
        "| benchmark | date | machine | CPU | cores | load average (5 min) | Python | Cython |",
        "|---|---|---|---|---|---|---|---|",
    ]
    titles = {name: script.TITLE for name, script in scripts.items()}
    titles["speed_guard"] = "The speed guard's baseline"
    titles["side_by_side"] = "The compiled core against numba"
    # in the page's order, then any other saved result
    for name in [n for n in titles if n in saved] + [n for n in saved if n not in titles]:
        rec = saved[name]
        m = rec["machine"]
        load = m.get("load_average_5min")
        lines.append(
            f"| {titles.get(name, name)} | {rec['date']} | {m.get('host', 'not recorded')} | "
            f"{m['cpu']} | {m['cores']} | {'not recorded' if load is None else load} | "
            f"{m['python']} | {m.get('cython') or 'not recorded'} |"
        )
    lines.append("")
    return lines


def run_all(names: list[str], smoke: bool, timeout: float | None) -> int:
    """Run benchmarks ``names`` one after the other (each in a fresh process), saving each
    result as it ends, then write the page (not with ``smoke``, whose results go to a
    temporary folder). Returns the number of benchmarks that failed."""
    import tempfile

    results = Path(tempfile.mkdtemp(prefix="perf-smoke-")) if smoke else RESULTS
    failed = []
    t0 = dt.datetime.now()
    print(f"{platform.node()}: load average {os.getloadavg()} at the start", file=sys.stderr)
    for name in names:
        t = dt.datetime.now()
        print(f"[{t:%H:%M:%S}] {name} ...", file=sys.stderr, flush=True)
        try:
            path = run(name, timeout, smoke, results)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, ValueError) as exc:
            failed.append(name)
            print(f"  {name} FAILED: {exc}", file=sys.stderr)
            continue
        rec = json.loads(path.read_text())
        print(
            f"  {rec['seconds']:.0f} s, load {rec['machine']['load_average_1min_before']} "
            f"before / {rec['machine']['load_average_5min']} (5 min) after: {path}",
            file=sys.stderr,
        )
    minutes = (dt.datetime.now() - t0).total_seconds() / 60
    print(f"{len(names) - len(failed)} of {len(names)} in {minutes:.0f} min", file=sys.stderr)
    if failed:
        print("failed: " + " ".join(failed), file=sys.stderr)
    if not smoke:
        PAGE.write_text(page())
        print(PAGE)
    return len(failed)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "action", nargs="?", choices=["run", "run-all"], help="run one benchmark, or all"
    )
    ap.add_argument("name", nargs="*", help="benchmarks (run-all: default every one)")
    ap.add_argument("--check", action="store_true", help="exit 1 if the page is out of date")
    ap.add_argument("--timeout", type=float, default=None, help="seconds before run gives up")
    ap.add_argument(
        "--smoke", action="store_true", help="tiny sizes, results in a temporary folder"
    )
    args = ap.parse_intermixed_args(argv)
    unknown = [n for n in args.name if n not in NAMES]
    if unknown:
        ap.error(f"unknown benchmark {unknown[0]!r}; expected one of: {', '.join(NAMES)}")
    if args.action == "run-all":
        return 1 if run_all(args.name or list(NAMES), args.smoke, args.timeout) else 0
    if args.action == "run":
        if len(args.name) != 1:
            ap.error("run needs one benchmark name")
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="perf-smoke-")) if args.smoke else RESULTS
        print(run(args.name[0], args.timeout, args.smoke, folder))
        return 0
    text = page()
    if args.check:
        return 0 if PAGE.exists() and PAGE.read_text() == text else 1
    PAGE.write_text(text)
    print(PAGE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
