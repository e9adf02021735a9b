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

#: name -> (area, title, command). Commands are run from the repository root.
BENCHMARKS: dict[str, tuple[str, str, str]] = {
    "engine": (
        "Simulation",
        "Playing games with the built-in strategies",
        "python benchmarks/bench_engine.py --strategies greedy random tiered-random "
        "glenn-2007-rules optimal --games 1000000 --jobs 1 2",
    ),
    "solver": (
        "Optimal play",
        "Solving for optimal play and asking the advisor",
        "python benchmarks/bench_solver.py --skip-cold",
    ),
    "exact": ("Exact laws", "Exact score distributions", "python benchmarks/bench_exact.py"),
    "select": ("Ranking", "Picking the best strategy", "python benchmarks/bench_select.py"),
    "stream": (
        "Long runs",
        "Streaming millions of games",
        "python benchmarks/bench_stream.py --games 5000000",
    ),
    "visible": (
        "Visible matches",
        "Two-player matches with the score sheets in view",
        "python benchmarks/bench_visible.py",
    ),
    "env": ("Machine learning", "The vector environment", "python benchmarks/bench_env.py"),
    "dataset": (
        "Machine learning",
        "Decision datasets",
        "python benchmarks/bench_dataset.py",
    ),
    "function": (
        "Machine learning",
        "Strategies written in plain Python",
        "python benchmarks/bench_function.py",
    ),
    "coach": ("Coach", "Grading games and answering requests", "python benchmarks/bench_coach.py"),
    "web": (
        "Coach",
        "The web page under load",
        "python benchmarks/bench_web.py --requests 5000 --clients 32",
    ),
    "report": (
        "The report",
        "The report, from empty caches and from full ones",
        "python benchmarks/bench_report.py --then-quick",
    ),
    "compile": (
        "The report",
        "The first use after installation (compiling the kernels)",
        "python benchmarks/bench_compile.py",
    ),
    "target": (
        "Target, utility and risk",
        "Playing for a target score",
        "python benchmarks/bench_target.py",
    ),
    "win": ("Target, utility and risk", "Playing to win", "python benchmarks/bench_win.py"),
    "distill": ("Rule cards", "Distilling a rule card", "python benchmarks/bench_distill.py"),
    "peers": (
        "Versus the peer",
        "Side by side with yatzy-solver",
        "python benchmarks/bench_peers.py",
    ),
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
    _, _, command = BENCHMARKS[name]
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
Row = tuple[str, str]  # (what is measured, the result with its unit)


def _n(x: float, digits: int = 0) -> str:
    return f"{x:,.{digits}f}"


def _timed(seconds: float, per_second: float, unit: str) -> str:
    """``"12.3 s (45,678 unit/s)"``."""
    return f"{seconds:.1f} s ({_n(per_second)} {unit}/s)"


def _jobs(n: int) -> str:
    return "one job" if n == 1 else f"{n} jobs"


def _p(x: float) -> str:
    """A probability: 4 decimals, or 4 significant digits when tiny."""
    return f"{x:.4f}" if x >= 1e-4 else f"{x:.4g}"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _engine(r: dict) -> list[Row]:
    rows = [
        (
            f"play {_n(x['games'])} games of `{x['strategy']}`, {_jobs(x['n_jobs'])}",
            _timed(x["seconds_median"], x["games_per_second"], "games"),
        )
        for x in r["results"]
    ]
    mb = max(x["results_mb"] for x in r["results"])
    rows.append(
        (f"memory of the per-game results of {_n(r['results'][0]['games'])} games", f"{mb} MB")
    )
    return rows


def _solver(r: dict) -> list[Row]:
    rows = [
        (
            f"solve `{k}` for optimal play, every state (kernels compiled; median)",
            f"{v['median']:.2f} s",
        )
        for k, v in r["solve_seconds"].items()
    ]
    if "optimal_games" in r:
        g = r["optimal_games"]
        rows.append(
            (
                f"play {_n(g['games'])} games of `optimal`, {_jobs(g['n_jobs'])}: with its "
                "decision cache empty / again, the cache filled by that run",
                f"{g['seconds_first']:.2f} s / {g['seconds_repeat']:.2f} s",
            )
        )
    rows.append(
        ("one advisor answer, the value table in memory (median)", f"{r['advise_ms']['median']} ms")
    )
    rows.append(
        (
            "one advisor answer, reading the value table from disk first",
            f"{r['advise_with_table_load_ms']} ms",
        )
    )
    return rows


#: bench_exact.py's cases: what each one computes.
_EXACT_CASES = {
    "optimal_moments": "the mean and standard deviation of `optimal`'s score on `yahtzee`",
    "optimal_pmf": "the probability of every score of `optimal` on `yahtzee`",
    "greedy_pmf": "the probability of every score of `greedy` on `yahtzee` (through the "
    "strategy's batched keep and box calls)",
}


def _exact(r: dict) -> list[Row]:
    return [
        (
            f"compute {what}, exactly: {_n(r[case]['states'])} turn-start states (median of "
            f"the {r['repeat']} runs after the first)",
            f"{r[case]['seconds']:.2f} s (the first run, reading the value table from disk: "
            f"{r[case]['first_call_seconds']:.2f} s; target at most "
            f"{r[case]['target_seconds']:g} s); peak memory {r[case]['peak_rss_gb']:.2f} GB; "
            f"mean {r[case]['mean']:.2f}, standard deviation {r[case]['sd']:.2f} points",
        )
        for case, what in _EXACT_CASES.items()
    ]


def _select(r: dict) -> list[Row]:
    what = (
        f"pick the best of {len(r['strategies'])} built-in strategies by mean score "
        f"(Kim–Nelson, indifference zone {r['delta']:g} point, α = {r['alpha']:g})"
    )
    rows: list[Row] = []
    for i, x in enumerate(r["runs"]):
        when = (
            "the first selection of the process (solving or loading tables, filling decision "
            "caches)"
            if i == 0
            else "again in the same process"
        )
        rows.append(
            (
                f"{what}, seed {x['seed']}, {when}",
                f"{x['seconds']:.1f} s, {_n(x['games'])} games; best: "
                + ", ".join(f"`{w}`" for w in x["winners"]),
            )
        )
    rows.append(("peak memory of the process over these selections", f"{_n(r['peak_rss_mb'])} MB"))
    return rows


def _visible(r: dict) -> list[Row]:
    jobs = _jobs(r["jobs"])
    rows: list[Row] = [
        (
            f"play two-player matches of `{r['rules']}`, `optimal` against `optimal`, {jobs} "
            "(the fastest of 3 runs)",
            f"{_n(r['optimal_vs_optimal_matches_per_s'])} matches/s",
        )
    ]
    for name in ("win-aware", "win-target"):
        for seat, which in ((0, "first"), (1, "second")):
            key = f"{name.replace('-', '_')}_seat{seat}_vs_optimal_matches_per_s"
            rows.append(
                (
                    f"the same with `{name}` in the {which} seat "
                    "(it sees its opponent's score sheet)",
                    f"{_n(r[key])} matches/s",
                )
            )
    if "winprob_turn_5_seconds" in r:
        rows.append(
            (
                "the live probability of winning a two-player game at turn 5 "
                "(`win_probability_now`)",
                f"{r['winprob_turn_5_seconds']:.2f} s",
            )
        )
    return rows


def _target(r: dict) -> list[Row]:
    rows: list[Row] = []
    for rules, x in r.items():
        rows.append(
            (
                f"solve the target-score table of `{rules}`: every target up to "
                f"{_n(x['max_beta'])} points, {_n(x['entries'])} entries, in a fresh process",
                f"{x['seconds']:.0f} s; peak memory {x['peak_rss_gb']:.2f} GB; the table "
                f"{x['table_gb']:.2f} GB",
            )
        )
        rows.append(
            (
                f"`{rules}`: the highest probability of scoring at least β points, playing for "
                "β (β: probability)",
                "; ".join(f"{b}: {_p(p)}" for b, p in x["curve"].items()),
            )
        )
        rows.append(
            (
                f"`{rules}`: at every β at least the probability of max-EV play",
                _yes(x["dominates_max_ev"]),
            )
        )
        for b, t in x.get("tillius_table_13", {}).items():
            rows.append(
                (
                    f"`{rules}`: the probability of scoring at least {b} points, ours / "
                    "Tillius (2026), Table 13",
                    f"{_p(t['ours'])} / {_p(t['paper'])} ("
                    + ("agree" if t["match"] else "**differ**")
                    + ")",
                )
            )
        if "five_player_target_289" in x:
            f = x["five_player_target_289"]
            lo, hi = f["ci95"]
            rows.append(
                (
                    f"`{rules}`: `target:289` against four `optimal` players, five-player "
                    "games (Tillius §4.4)",
                    f"wins {f['win_rate']:.2%} of the games (95% interval {lo:.2%} to "
                    f"{hi:.2%}), reaches 289 points in {f['p_reach_289']:.2%}; "
                    f"{f['seconds']:.0f} s",
                )
            )
    return rows


def _win(r: dict) -> list[Row]:
    k, rules = r["players"], r["rules"]
    law, t = r["exact_law"], r.get("tournament")
    rows: list[Row] = [
        (
            f"solve `win:{k}` on `{rules}` (playing to win against {k - 1} max-EV players), "
            "in a fresh process",
            f"{r['solve_seconds']:.0f} s; peak memory {r['peak_rss_gb']:.2f} GB; the table "
            f"{r['table_gb']:.2f} GB (scores up to {r['top_score']})",
        ),
        (
            f"the exact probability that `win:{k}` wins, against {r['baseline']:.0%} for "
            "every player alike",
            f"{r['win_probability']:.2%}",
        ),
        (
            f"the exact mean and standard deviation of `win:{k}`'s score, against `optimal`'s",
            f"{law['mean']:.2f} and {law['sd']:.2f} points, against {law['optimal_mean']:.2f} "
            f"and {law['optimal_sd']:.2f} ({law['mean_given_up']:.2f} points of mean given "
            f"up); {law['seconds']:.0f} s",
        ),
    ]
    if t:
        lo, hi = t["ci95"]
        rows.append(
            (
                f"play {_n(t['games'])} {k}-player games, `win:{k}` against {k - 1} `optimal` "
                "players",
                f"wins {t['win_rate']:.2%} (95% interval {lo:.2%} to {hi:.2%}); "
                + _timed(t["seconds"], t["games_per_second"], "games"),
            )
        )
    rows.append(("peak memory of the whole benchmark", f"{r['peak_rss_gb_total']:.2f} GB"))
    return rows


def _env(r: dict) -> list[Row]:
    return [
        (
            f"step a vector environment of {_n(r['num_envs'])} games with a random legal policy",
            f"{_n(r['steps_per_second'])} steps/s (the environment alone: "
            f"{_n(r['env_only_steps_per_second'])} steps/s)",
        )
    ]


def _dataset(r: dict) -> list[Row]:
    what = (
        f"build the decision dataset of {_n(r['games'])} games of `{r['strategy']}` "
        f"({_n(r['decisions'])} decisions, every option valued)"
    )
    return [(what, _timed(r["seconds"], r["decisions_per_second"], "decisions"))]


def _function(r: dict) -> list[Row]:
    rows = []
    for x in r["runs"]:
        memo = ", `memoize=True`" if x["memoize"] else ""
        rows.append(
            (
                f"play {_n(x['games'])} games of a `FunctionStrategy` (plain Python), "
                f"{_jobs(x['n_jobs'])}{memo}",
                f"{_n(x['games_per_second_first'])} games/s in the first run, "
                f"{_n(x['games_per_second_warm'])} games/s in the second",
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
            f"the web page: one advisor request over HTTP (median of {b['requests']})",
            f"{b['median_ms']} ms (95th percentile {b['p95_ms']} ms; the first request "
            f"{b['first_request_ms']} ms)",
        ),
    ]


def _web(r: dict) -> list[Row]:
    """The load test of the web page: latencies, errors, memory."""
    m = r["rss_mb"]
    statuses = ", ".join(f"{_n(n)} × {s}" for s, n in r["statuses"].items())
    return [
        (
            f"answer {_n(r['requests'])} requests from {r['clients']} concurrent clients on "
            "127.0.0.1 (whole games checked at every step, malformed requests between), "
            f"after {_n(r['warmup_requests'])} of warm-up",
            f"median {r['median_ms']} ms, 99th percentile {r['p99_ms']} ms, slowest "
            f"{r['max_ms']} ms ({_n(r['requests_per_second'])} requests/s)",
        ),
        (
            "answers with a server error (5xx); failed checks (a wrong status, a game not "
            "where it should be)",
            f"{r['server_errors']} answers; {r['failures']} checks",
        ),
        ("answers by HTTP status, the warm-up included", statuses),
        (
            "games played to the end and checked, of those started",
            f"{_n(r['games_finished'])} of {_n(r['games_started'])} games",
        ),
        (
            "the server's resident memory before the warm-up (the value table not yet paged "
            "in), after it, at the end",
            f"{m['before']:.0f} MB, {m['after_warmup']:.0f} MB, {m['after']:.0f} MB",
        ),
    ]


def _stream(r: dict) -> list[Row]:
    what = f"stream {_n(r['games'])} games of `{r['strategy']}`, {_jobs(r['n_jobs'])}"
    rate = _timed(r["seconds"], r["games_per_second"], "games")
    return [(what, f"{rate}; peak memory {r['peak_rss_mb']:.0f} MB")]


def _distill(r: dict) -> list[Row]:
    last = r["curve"][-1]
    return [
        (
            f"`distill` a {r['max_rules']}-rule card on `yahtzee` (learning, pruning and the "
            "exact curve)",
            f"{r['seconds']:.0f} s (target: at most {r['target_seconds']} s)",
        ),
        ("rules left on the card after pruning", f"{r['n_rules']} rules"),
        (f"the exact mean of the card after {last['n_rules']} steps", f"{last['mean']:.2f} points"),
        (
            "the same card from a second run with the same seed",
            _yes(r["deterministic"]),
        ),
    ]


_REPORT_RUNS = {
    "cold": ("first", "the first run (empty numba and table caches)"),
    "warm": ("second", "the second run (kernels, value table and exact results cached)"),
    "quick": ("`--quick`", "`--quick` (the caches of the second run)"),
}
_REPORT_STEPS = {
    "tables": "tables",
    "simulations": "simulations",
    "exact": "exact laws",
    "kim_nelson": "Kim–Nelson ranking",
    "figures": "figures",
}


def _report(r: dict) -> list[Row]:
    """Wall time of each kind of run (median over the runs) and the split of the last."""
    rows: list[Row] = []
    for kind, (short, label) in _REPORT_RUNS.items():
        runs = [p[kind] for p in r["runs"] if kind in p]
        if not runs:
            continue
        split = runs[-1]["split"]
        steps = ", ".join(f"{w} {split[k]:.1f} s" for k, w in _REPORT_STEPS.items() if k in split)
        if split.get("numba_compile"):
            steps += "; numba compilation in the report's process (inside those steps) "
            steps += f"{split['numba_compile']:.1f} s"
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
            f"the first {label}, the numba cache empty",
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


def _speed_guard(r: dict) -> list[Row]:
    """The speed guard's baseline: each workload's time and its ratio to the calibration."""
    rows: list[Row] = [
        (
            "the calibration loop: 60 million steps of integer arithmetic and scattered reads "
            "and writes over a 1 MB array (the fastest run)",
            f"{r['calibration_seconds']:.3f} s",
        )
    ]
    for w in r["workloads"].values():
        rows.append(
            (
                w["what"],
                f"{w['seconds']:.2f} s (the fastest of {r['repeat']} runs); {w['ratio']:g} "
                "times the calibration loop (the median run)",
            )
        )
    return rows


RENDER: dict[str, Callable[[dict], list[Row]]] = {
    "engine": _engine,
    "solver": _solver,
    "exact": _exact,
    "select": _select,
    "stream": _stream,
    "visible": _visible,
    "env": _env,
    "dataset": _dataset,
    "function": _function,
    "coach": _coach,
    "web": _web,
    "report": _report,
    "compile": _compile,
    "target": _target,
    "win": _win,
    "distill": _distill,
    "speed_guard": _speed_guard,
}


# ---------------------------------------------------------------- versus the peer
#: what -> (the row's words, the unit counted, the task in short).
_PEER_TASKS = {
    "solve": ("solve every state", None, "solving"),
    "options": (
        "every option's value of {n} random situations",
        "situations",
        "valuing random situations",
    ),
    "play": (
        "{n} games of optimal play on {jobs} cores, from a fresh process",
        "games",
        "optimal play",
    ),
}

#: Why the peer is faster where it is (``bench_peers.py``'s measures).
_PEER_FASTER = {
    "options": "ours computes, for each situation, the box step of every roll and one keep "
    "step per reroll left at its turn-start state (a box choice needs neither); random "
    "situations share almost no state, so each one pays for its steps alone",
}


def _peer_section(rec: dict) -> list[str]:
    """The Versus-the-peer section: times side by side, then the values compared."""
    r, m = rec["result"], rec["machine"]
    peer = r["peer"].split()[0]
    lines = [
        "## Versus the peer",
        "",
        f"Ours next to the Python package [{peer}](references.md#yatzy-solver-2026) on the "
        "rule sets both solve, on the same machine in the same run. Each time is the median "
        f"of {r['repeat']} runs, each run a fresh process per solver (alternating which goes "
        "first), the compiled kernels and solved tables already on disk. *Faster* is the "
        "slower time divided by the faster one.",
        "",
        f"| rules: ours / {peer}'s | what is timed | ours | {peer} | faster |",
        "|---|---|---|---|---|",
    ]
    faster: dict[str, list[str]] = {}
    for x in r["presets"]:
        rules = f"`{x['preset']}` / `{x['peer_variant']}`"
        for what, (label, unit, _) in _PEER_TASKS.items():
            t = x[what]
            n = _n(t[unit]) if unit else ""
            label = label.format(n=n, jobs=t.get("jobs", r.get("cores")))
            ours, theirs = f"{t['ours_seconds']:.2f} s", f"{t['theirs_seconds']:.2f} s"
            if unit:
                ours += f" ({_n(t[f'ours_{unit}_per_second'])} {unit}/s)"
                theirs += f" ({_n(t[f'theirs_{unit}_per_second'])} {unit}/s)"
            if t["ratio"] >= 1:
                who = f"ours, {t['ratio']:.1f}×"
            else:
                who = f"**{peer}, {1 / t['ratio']:.1f}×**"
                faster.setdefault(what, []).append(f"`{x['preset']}`")
            lines.append(f"| {rules} | {label} | {ours} | {theirs} | {who} |")
    load = m.get("load_average_5min")
    lines += [
        "",
        f"Measured on {rec['date']} on {m.get('host', 'a machine not recorded')} ({m['cpu']}, "
        f"{m['cores']} cores"
        + ("" if load is None else f", load average {load} over the last 5 minutes")
        + f"), Python {m['python']}, numba {m['numba']}, against {r['peer']}. "
        f"Reproduce: `{rec['command']}`.",
        "",
    ]
    for what, presets in faster.items():
        why = _PEER_FASTER.get(what)
        lines += [
            f"Where {peer} is faster ({_PEER_TASKS[what][2]} on {', '.join(presets)})"
            + (f": {why}." if why else "."),
            "",
        ]
    lines += [
        "Both solvers find the same values:",
        "",
        "| rules: ours / the peer's | states compared | largest difference of a state's "
        "value | largest difference of the best option's value | mean score of optimal "
        "play: ours (exact) / theirs (its table) | standard deviation: ours (exact) / theirs "
        "(simulated) |",
        "|---|---|---|---|---|---|",
    ]
    for x in r["presets"]:
        v, p = x["values"], x["play"]
        lines.append(
            f"| `{x['preset']}` / `{x['peer_variant']}` | {_n(v['states'])} | "
            f"{v['state_values_max_abs_diff']:.1e} points | "
            f"{v['best_option_max_abs_diff']:.1e} points ({_n(v['situations'])} random "
            f"situations) | {v['mean_exact_ours']:.4f} / {v['mean_theirs']:.4f} points | "
            f"{v['sd_exact_ours']:.2f} / {p['sd_theirs']:.2f} points ({_n(p['games'])} games) |"
        )
    lines.append("")
    return lines


def _table(rows: list[Row]) -> list[str]:
    lines = ["| what is measured | result |", "|---|---|"]
    lines += [f"| {what[0].upper()}{what[1:]} | {result} |" for what, result in rows]
    return lines


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
        "them next to the source, so the first run after installation spends half a minute "
        "or more compiling (a first report: about 40 s on two cores); solved tables are "
        "cached on disk (`$YAHTZEE_SIM_CACHE`). `greedy` "
        "and `optimal` decide once per turn-start state, for all 252 rolls at once, and "
        "share the decisions between blocks (a million games visit about 34,000 states "
        "under greedy and 180,000 under optimal); built-in strategies run their blocks in "
        "threads, a user's strategy in worker processes and the calling process. "
        "`python benchmarks/perf_page.py run-all` measures every row below on one machine, "
        "one benchmark after the other, and records the machine's name and load.",
        "",
    ]
    if "peers" in saved:
        lines += _peer_section(saved["peers"])
    else:
        lines += [
            "## Versus the peer",
            "",
            f"Not measured here; run `{BENCHMARKS['peers'][2]}` to measure.",
            "",
        ]
    areas: dict[str, list[str]] = {}
    for name, (area, _, _) in BENCHMARKS.items():
        if name != "peers":
            areas.setdefault(area, []).append(name)
    for area, names in areas.items():
        lines += [f"## {area}", ""]
        for name in names:
            _, title, command = BENCHMARKS[name]
            lines += [f"### {title}", ""]
            if name not in saved:
                lines += [f"Not measured here; run `{command}` to measure.", ""]
                continue
            rec = saved[name]
            lines += _table(RENDER[name](rec["result"]))
            lines += ["", f"Reproduce every row above: `{rec['command']}` ({rec['date']}).", ""]
    lines += [
        "## The speed guard",
        "",
        "CI runs `python benchmarks/speed_guard.py --limit 3` after the tests. It times three hot "
        "paths in one process, each after a warm-up that loads its compiled kernels, on one "
        "numba thread: 100,000 games of `greedy`, solving `yahtzee`, and every option's value "
        "of 10,000 random situations. Around each run it times a small fixed numba loop, the "
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
        lines += _table(_speed_guard(rec["result"]))
        lines += ["", f"Baseline recorded with `{rec['command']}` ({rec['date']}).", ""]
    else:
        lines += ["No baseline saved: run `python benchmarks/speed_guard.py --record`.", ""]
    lines += [
        "## Machines",
        "",
        "A load average above the number of cores means that other work shared the CPUs "
        "during the run: those figures understate the speed of an idle machine.",
        "",
        "| benchmark | date | machine | CPU | cores | load average (5 min) | Python | numba |",
        "|---|---|---|---|---|---|---|---|",
    ]
    titles = {name: title for name, (_, title, _) in BENCHMARKS.items()}
    titles["speed_guard"] = "The speed guard's baseline"
    # in the page's order, then any other saved result
    for name in [n for n in titles if n in saved] + [n for n in saved if n not in titles]:
        rec = saved[name]
        m = rec["machine"]
        load = m.get("load_average_5min")
        lines.append(
            f"| {titles.get(name, name)} | {rec['date']} | {m.get('host', 'not recorded')} | "
            f"{m['cpu']} | {m['cores']} | {'not recorded' if load is None else load} | "
            f"{m['python']} | {m['numba']} |"
        )
    lines.append("")
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
