"""The handbook's Performance page, generated from saved benchmark results.

Usage::

    python benchmarks/perf_page.py run NAME      # run one benchmark, save its JSON
    python benchmarks/perf_page.py run-all       # every benchmark, one after the other,
                                                 # then the page (the quiet measurement)
    python benchmarks/perf_page.py run-all --smoke   # the same with tiny sizes, saved in a
                                                 # temporary folder: checks that all run
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
    "stream": ("Long runs", "python benchmarks/bench_stream.py --games 5000000"),
    "visible": ("Visible matches", "python benchmarks/bench_visible.py"),
    "env": ("Machine learning", "python benchmarks/bench_env.py"),
    "dataset": ("Machine learning", "python benchmarks/bench_dataset.py"),
    "function": (
        "Machine learning",
        "python benchmarks/bench_function.py",
    ),
    "coach": ("Coach", "python benchmarks/bench_coach.py"),
    "web": ("Coach", "python benchmarks/bench_web.py --requests 5000 --clients 32"),
    "report": ("The report", "python benchmarks/bench_report.py --then-quick"),
    "compile": ("The report", "python benchmarks/bench_compile.py"),
    "target": ("Target, utility and risk", "python benchmarks/bench_target.py"),
    "win": ("Target, utility and risk", "python benchmarks/bench_win.py"),
    "distill": ("Rule cards", "python benchmarks/bench_distill.py"),
    "peers": ("Side by side with yatzy-solver", "python benchmarks/bench_peers.py"),
}


#: Tiny sizes per benchmark for ``run-all --smoke`` (appended to the command: a later
#: option wins); benchmarks without an entry run as they are.
SMOKE: dict[str, str] = {
    "engine": "--strategies greedy --games 2000 --jobs 1 --repeat 1",
    "solver": "--repeat 1 --games 2000",
    "exact": "--repeat 1",
    "select": "--seeds 0",
    "stream": "--games 20000",
    "visible": "--games 2000 --aware-games 2048",
    "env": "--num-envs 64 --steps 20 --repeat 1",
    "dataset": "--games 500",
    "function": "--games 2000",
    "coach": "--games 200 --requests 10",
    "web": "--requests 200 --clients 4 --warmup 40",
    "report": "--skip-cold --quick --games 2000",
    "target": "--rules yahtzee",
    "win": "--rules yahtzee --players 2 --games 2000",
    "distill": "--max-rules 3 --no-repeat",
    "peers": "--repeat 1 --situations 1000 --games 2000 --presets yahtzee-no-bonus",
}


def machine() -> dict:
    """The machine's name, CPU model and core count (``lscpu``), the load average, Python
    and numba versions.

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
    import numba

    info["load_average_5min"] = round(os.getloadavg()[1], 2)
    info["python"] = platform.python_version()
    info["numba"] = numba.__version__
    return info


def run(
    name: str, timeout: float | None = None, smoke: bool = False, results: Path = RESULTS
) -> Path:
    """Run benchmark ``name``, save ``results/name.json``; return its path.

    ``smoke``: with the tiny sizes of :data:`SMOKE`. Raises ``subprocess.TimeoutExpired``
    (the benchmark killed, nothing saved) after ``timeout`` seconds.
    """
    _, command = BENCHMARKS[name]
    if smoke and name in SMOKE:
        command = f"{command} {SMOKE[name]}"
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


# ---------------------------------------------------------------- rows per benchmark
Row = tuple[str, str]  # (measure, figure)


def _n(x: float, digits: int = 0) -> str:
    return f"{x:,.{digits}f}"


def _timed(seconds: float, per_second: float, unit: str) -> str:
    """``"12.3 s (45,678 unit/s)"``."""
    return f"{seconds:.1f} s ({_n(per_second)} {unit}/s)"


def _engine(r: dict) -> list[Row]:
    rows = []
    for x in r["results"]:
        rows.append(
            (
                f"`{x['strategy']}`, {_n(x['games'])} games, {x['n_jobs']} "
                + ("job" if x["n_jobs"] == 1 else "jobs"),
                _timed(x["seconds_median"], x["games_per_second"], "games"),
            )
        )
    mb = max(x["results_mb"] for x in r["results"])
    rows.append((f"per-game results of {_n(r['results'][0]['games'])} games", f"{mb} MB"))
    return rows


def _solver(r: dict) -> list[Row]:
    rows = [
        (f"solve `{k}` (warm JIT, median)", f"{v['median']:.2f} s")
        for k, v in r["solve_seconds"].items()
    ]
    if "optimal_games" in r:
        g = r["optimal_games"]
        rows.append(
            (
                f"`optimal`, {_n(g['games'])} games, {g['n_jobs']} jobs (fresh decision "
                "cache / repeat)",
                f"{g['seconds_first']:.2f} s / {g['seconds_repeat']:.2f} s",
            )
        )
    rows.append(("one advisor answer, table in memory (median)", f"{r['advise_ms']['median']} ms"))
    rows.append(
        ("one advisor answer, table loaded from disk", f"{r['advise_with_table_load_ms']} ms")
    )
    return rows


def _env(r: dict) -> list[Row]:
    return [
        (
            f"vector environment, {_n(r['num_envs'])} games, random legal policy",
            f"{_n(r['steps_per_second'])} steps/s (environment alone "
            f"{_n(r['env_only_steps_per_second'])})",
        )
    ]


def _dataset(r: dict) -> list[Row]:
    what = f"`{r['strategy']}`, {_n(r['games'])} games ({_n(r['decisions'])} decisions)"
    return [
        (f"decision dataset, {what}", _timed(r["seconds"], r["decisions_per_second"], "decisions"))
    ]


def _function(r: dict) -> list[Row]:
    rows = []
    for x in r["runs"]:
        jobs = f"{x['n_jobs']} " + ("job" if x["n_jobs"] == 1 else "jobs")
        memo = ", `memoize=True`" if x["memoize"] else ""
        rows.append(
            (
                f"`FunctionStrategy` (plain Python), {_n(x['games'])} games, {jobs}{memo}",
                f"{_n(x['games_per_second_first'])} games/s first run, "
                f"{_n(x['games_per_second_warm'])} second",
            )
        )
    return rows


def _coach(r: dict) -> list[Row]:
    a, b = r["analyze"], r["advise"]
    return [
        (
            f"`analyze`: read, check and grade {_n(a['games'])} recorded games "
            f"({_n(a['decisions'])} decisions)",
            f"{a['seconds']:.1f} s; the whole command {a['command_seconds']:.1f} s",
        ),
        (
            f"web page: one advisor request over HTTP (median of {b['requests']})",
            f"{b['median_ms']} ms (95th percentile {b['p95_ms']} ms, first "
            f"{b['first_request_ms']} ms)",
        ),
    ]


def _web(r: dict) -> list[Row]:
    """The load test of the web page: latencies, errors, memory."""
    m = r["rss_mb"]
    statuses = ", ".join(f"{s}: {_n(n)}" for s, n in r["statuses"].items())
    return [
        (
            f"web page under load: {_n(r['requests'])} requests from {r['clients']} "
            f"concurrent clients on 127.0.0.1 (whole games checked at every step, "
            f"malformed requests between), after {_n(r['warmup_requests'])} of warm-up",
            f"median {r['median_ms']} ms, 99th percentile {r['p99_ms']} ms, slowest "
            f"{r['max_ms']} ms ({_n(r['requests_per_second'])} requests/s)",
        ),
        (
            "web page under load: answers with a server error (5xx); failed checks (a "
            "wrong status, a game not where it should be)",
            f"{r['server_errors']}; {r['failures']}",
        ),
        ("web page under load: answers by status (warm-up included)", statuses),
        (
            "web page under load: games played to the end and checked, of those started",
            f"{_n(r['games_finished'])} of {_n(r['games_started'])}",
        ),
        (
            "web page under load: the server's resident memory before the warm-up (the value "
            "table not yet paged in), after "
            "it, at the end",
            f"{m['before']:.0f} MB, {m['after_warmup']:.0f} MB, {m['after']:.0f} MB",
        ),
    ]


def _stream(r: dict) -> list[Row]:
    what = f"`{r['strategy']}`, {_n(r['games'])} games streamed, {r['n_jobs']} jobs"
    rate = _timed(r["seconds"], r["games_per_second"], "games")
    return [(what, f"{rate}, peak RSS {r['peak_rss_mb']:.0f} MB")]


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


def _distill(r: dict) -> list[Row]:
    last = r["curve"][-1]
    return [
        (
            f"`distill` of a {r['max_rules']}-rule card on official Yahtzee (learning, "
            "pruning and the exact curve)",
            f"{r['seconds']:.0f} s (target: at most {r['target_seconds']} s)",
        ),
        ("rules on the card after pruning", str(r["n_rules"])),
        (f"exact mean of the card after {last['n_rules']} steps", f"{last['mean']:.2f}"),
        (
            "the same card from a second run with the same seed",
            "yes" if r["deterministic"] else "no",
        ),
    ]


_REPORT_RUNS = {
    "cold": "first run (empty numba and table caches)",
    "warm": "second run (kernels, value table and exact results cached)",
    "quick": "`--quick` (caches of the second run)",
}
_REPORT_STEPS = ("tables", "simulations", "exact", "kim_nelson", "figures")


def _report(r: dict) -> list[Row]:
    """Wall time of each kind of run (median over the runs) and the split of the last."""
    rows: list[Row] = []
    for kind, label in _REPORT_RUNS.items():
        runs = [p[kind] for p in r["runs"] if kind in p]
        if not runs:
            continue
        split = runs[-1]["split"]
        steps = ", ".join(f"{k} {split[k]:.1f} s" for k in _REPORT_STEPS if k in split)
        if split.get("numba_compile"):
            steps += "; numba compilation in the report's process (inside those steps) "
            steps += f"{split['numba_compile']:.1f} s"
        rows.append(
            (
                f"`yahtzee-sim report`, {label}",
                f"{r[f'{kind}_median_seconds']:.1f} s wall, {runs[-1]['cpu_seconds']:.0f} s CPU",
            )
        )
        rows.append((f"where the {kind} run's time goes", steps))
    differ = sorted({f for p in r["runs"] for f in p.get("differing_files", [])})
    same = "byte-identical" if not differ else "differ: " + ", ".join(differ)
    rows.append(("output files of the first and second run", same))
    return rows


_COMPILE_STEPS = {
    "solver": "max-EV solver",
    "target_solver": "target solver",
    "table_fill": "decision fill of a table strategy",
    "advisor": "advisor answer",
    "regret": "exact law with its regret",
    "duel": "two-player endgame move",
}


def _compile(r: dict) -> list[Row]:
    rows: list[Row] = [
        (
            f"first {label}, empty numba cache",
            f"{r['seconds'][step]:.1f} s ({r['numba_compile_seconds'][step]:.1f} s compiling)",
        )
        for step, label in _COMPILE_STEPS.items()
    ]
    rows.append(
        (
            "all six, in that order (later steps reuse earlier kernels)",
            f"{r['total_seconds']:.1f} s",
        )
    )
    return rows


def _ratio(x: dict, peer: str) -> str:
    """``"7.2x faster"`` (ours) or ``"yatzy-solver 3.6x faster"`` from a theirs/ours ratio."""
    r = x["ratio"]
    return f"ours {r:.1f}× faster" if r >= 1 else f"**{peer} {1 / r:.1f}× faster**"


#: Why the peer is faster where it is (``bench_peers.py``'s measures).
_PEER_FASTER = {
    "options": "ours values a situation by running the widget over its whole turn-start "
    "state (the box step of every roll, then every keep of both rerolls) and reads the "
    "situation's options from it, which pays off when many situations share a state (a "
    "game's decisions, a dataset); random situations share almost none, so each one costs "
    "a whole turn",
    "solve": "",
    "play": "",
}


def _peers(r: dict) -> list[Row]:
    """Ours next to the peer per shared preset: times, ratios, and agreement of values."""
    peer = r["peer"].split()[0]
    rows: list[Row] = []
    faster: list[str] = []
    for x in r["presets"]:
        name = f"`{x['preset']}` / `{x['peer_variant']}`"
        s, o, p, v = x["solve"], x["options"], x["play"], x["values"]
        rows.append(
            (
                f"{name}: solve every state (ours / theirs)",
                f"{s['ours_seconds']:.2f} s / {s['theirs_seconds']:.2f} s ({_ratio(s, peer)})",
            )
        )
        rows.append(
            (
                f"{name}: every option's value of {_n(o['situations'])} random situations",
                f"{_n(o['ours_situations_per_second'])} / "
                f"{_n(o['theirs_situations_per_second'])} situations/s ({_ratio(o, peer)})",
            )
        )
        rows.append(
            (
                f"{name}: optimal play, {_n(p['games'])} games on {p['jobs']} cores from a "
                "fresh process",
                f"{_n(p['ours_games_per_second'])} / {_n(p['theirs_games_per_second'])} "
                f"games/s ({_ratio(p, peer)})",
            )
        )
        rows.append(
            (
                f"{name}: values compared",
                f"{_n(v['states'])} states, largest difference "
                f"{v['state_values_max_abs_diff']:.1e}; "
                f"best option of {_n(v['situations'])} situations "
                f"{v['best_option_max_abs_diff']:.1e}; mean {v['mean_exact_ours']:.4f} / "
                f"{v['mean_theirs']:.4f}; SD {v['sd_exact_ours']:.2f} (ours exact) / "
                f"{p['sd_theirs']:.2f} (theirs simulated)",
            )
        )
        for what in ("solve", "options", "play"):
            if x[what]["ratio"] < 1:
                faster.append(f"{what} on `{x['preset']}` ({1 / x[what]['ratio']:.1f}×)")
    if faster:
        whys = sorted({w.split()[0] for w in faster})
        why = "; ".join(_PEER_FASTER[w] for w in whys if _PEER_FASTER.get(w))
        rows.append((f"where {peer} is faster", ", ".join(faster) + (f": {why}" if why else "")))
    return rows


RENDER: dict[str, Callable[[dict], list[Row]]] = {
    "peers": _peers,
    "compile": _compile,
    "report": _report,
    "distill": _distill,
    "engine": _engine,
    "solver": _solver,
    "env": _env,
    "dataset": _dataset,
    "coach": _coach,
    "web": _web,
    "function": _function,
    "stream": _stream,
}


def page() -> str:
    """The Markdown of the Performance page."""
    saved = {p.stem: json.loads(p.read_text()) for p in sorted(RESULTS.glob("*.json"))}
    lines = [
        "# Performance",
        "",
        "<!-- generated by `python benchmarks/perf_page.py` from benchmarks/results/*.json:"
        " edit that script, not this page -->",
        "",
        "Every figure below comes from a benchmark script in `benchmarks/` that prints one "
        "JSON object. `python benchmarks/perf_page.py run NAME` runs one and saves its result "
        "in `benchmarks/results/NAME.json`, with the machine it ran on; "
        "`python benchmarks/perf_page.py` writes this page from the saved results. Timings "
        "are wall-clock medians after a warm-up (compiled kernels, solved tables in the disk "
        "cache) unless the row says otherwise. A benchmark without a saved result shows the "
        "command that measures it.",
        "",
        "What the figures depend on: numba compiles the kernels on first use and caches "
        "them next to the source, so the first run after installation spends a minute or "
        "two compiling; solved tables are cached on disk (`$YAHTZEE_SIM_CACHE`). `greedy` "
        "and `optimal` decide once per turn-start state, for all 252 rolls at once, and "
        "share the decisions between blocks (a million games visit about 34,000 states "
        "under greedy and 180,000 under optimal); built-in strategies run their blocks in "
        "threads, a user's strategy in worker processes and the calling process. "
        "`python benchmarks/perf_page.py run-all` measures every row below on one machine, "
        "one benchmark after the other, and records the machine's name and load.",
        "",
        "## Machines",
        "",
        "A load average above the number of cores means that other work shared the CPUs "
        "during the run: those figures understate the speed of an idle machine.",
        "",
        "| benchmark | date | machine | CPU | cores | load average (5 min) | Python | numba |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, rec in saved.items():
        m = rec["machine"]
        load = m.get("load_average_5min")
        lines.append(
            f"| `{name}` | {rec['date']} | {m.get('host', 'not recorded')} | {m['cpu']} | "
            f"{m['cores']} | "
            f"{'not recorded' if load is None else load} | {m['python']} | {m['numba']} |"
        )
    lines.append("")
    areas: dict[str, list[str]] = {}
    for name, (area, _) in BENCHMARKS.items():
        areas.setdefault(area, []).append(name)
    for area, names in areas.items():
        lines += [f"## {area}", ""]
        for name in names:
            command = BENCHMARKS[name][1]
            if name not in saved:
                lines += [f"`{name}`: not measured here; run `{command}` to measure.", ""]
                continue
            rec = saved[name]
            lines += ["| measure | figure |", "|---|---|"]
            for measure, figure in RENDER.get(name, _generic)(rec["result"]):
                lines.append(f"| {measure} | {figure} |")
            lines += ["", f"Reproduce every row above: `{rec['command']}` ({rec['date']}).", ""]
    return "\n".join(lines)


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
    unknown = [n for n in args.name if n not in BENCHMARKS]
    if unknown:
        ap.error(f"unknown benchmark {unknown[0]!r}; expected one of: {', '.join(BENCHMARKS)}")
    if args.action == "run-all":
        return 1 if run_all(args.name or list(BENCHMARKS), args.smoke, args.timeout) else 0
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
