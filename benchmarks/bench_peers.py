"""Side by side with the Python peer ``yatzy-solver``: the same machine, one run. Prints JSON.

Usage::

    python benchmarks/bench_peers.py [--repeat 3] [--situations 200000] [--games 200000]
                                     [--presets yahtzee yatzy ...]

For each shared preset (ours / the peer's variant, :data:`YATZY_SOLVER_VARIANTS`) and each
repeat, two fresh processes, one per solver, alternating which goes first, each measure:

* ``solve``: solving every turn-start state (ours: ``solve``, after loading the compiled
  kernels on a two-box game; theirs: ``Solver.build``, f64);
* ``options``: every option's value of ``--situations`` random situations (uniform over the
  states either solver computes, uniform dice, 0-2 rerolls left), one batch call (ours:
  ``grade_decisions``, theirs: ``Solver.option_values_batch``);
* ``play``: ``--games`` games of optimal play on every core from that fresh process (ours:
  ``simulate("optimal", n_jobs=cores)``, whose decision cache starts empty; theirs:
  ``Solver.simulate``), the table already in memory.

The figures are medians over the repeats; ``ratio`` is theirs / ours (above 1: ours is
faster). Once per preset the values are compared: every state's value (the largest absolute
difference), the options of the random situations, and the exact mean and SD of optimal
play (ours: the exact law's; the peer has no exact law: its table's mean and its
simulation's SD).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
from _situations import ours_options, situations
from page_format import num

from yahtzee_sim.game.presets import YATZY_SOLVER_VARIANTS


def theirs_options(solver, sit: dict):
    """The peer's ``(codes, values, counts)`` of situations ``sit``."""
    return solver.option_values_batch(
        sit["used"].astype(np.uint32),
        sit["upper"].astype(np.uint16),
        sit["flag"].astype(bool),
        sit["dice"].astype(np.uint8),
        sit["rolls_left"].astype(np.uint8),
    )


def worker(side: str, preset: str, n_situations: int, n_games: int) -> dict:
    """One fresh process's measures (``side``: ``ours`` or ``theirs``)."""
    from yahtzee_sim import get_rules

    rules = get_rules(preset)
    jobs = os.cpu_count() or 1
    sit = situations(rules, n_situations)
    out: dict = {}
    if side == "ours":
        from yahtzee_sim import simulate
        from yahtzee_sim.solving.solver import solve, value_table

        solve("2-yatzy")  # load the compiled kernels
        t0 = time.perf_counter()
        solve(rules)
        out["solve"] = time.perf_counter() - t0
        value_table(rules)  # from the disk cache (written by the first run)
        ours_options(get_rules("2-yatzy"), situations(get_rules("2-yatzy"), 10))
        t0 = time.perf_counter()
        ours_options(rules, sit)
        out["options"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = simulate("optimal", n_games, seed=1, rules=rules, n_jobs=jobs)
        out["play"] = time.perf_counter() - t0
        out["play_mean"] = float(res.total.mean())
    else:
        import yatzy_solver as ys

        t0 = time.perf_counter()
        solver = ys.Solver.build(ys.Variant(YATZY_SOLVER_VARIANTS[preset]))
        out["solve"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        theirs_options(solver, sit)
        out["options"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = solver.simulate(n_games, seed=1)
        out["play"] = time.perf_counter() - t0
        out["play_mean"] = float(res["mean"])
        out["play_sd"] = float(res["std_dev"])
    out["jobs"] = jobs
    return out


def compare(preset: str, n_situations: int) -> dict:
    """Values of both solvers side by side (one process)."""
    import yatzy_solver as ys

    from yahtzee_sim import get_rules
    from yahtzee_sim.exact.laws import evaluate
    from yahtzee_sim.game.state import decode_state, solved_states
    from yahtzee_sim.solving.solver import value_table

    rules = get_rules(preset)
    ours = value_table(rules).values
    solver = ys.Solver.build(ys.Variant(YATZY_SOLVER_VARIANTS[preset]))
    states = solved_states(rules)
    used, upper, flag = decode_state(rules, states)
    theirs = solver.state_values(used.astype(np.uint32), upper.astype(np.uint16), flag > 0)
    sit = situations(rules, n_situations)
    got = ours_options(rules, sit)
    _, values, counts = theirs_options(solver, sit)
    n = len(counts)
    # the peer offers every box at any roll and no keep of every die: compare each
    # situation's best option (the decision value), the same number under both
    best_theirs = np.nanmax(values, axis=1)
    t0 = time.perf_counter()
    exact = evaluate("optimal", rules, distribution=False)
    return {
        "states": len(states),
        "state_values_max_abs_diff": float(np.abs(ours[states] - theirs).max()),
        "situations": n,
        "best_option_max_abs_diff": float(np.abs(got["optimal_value"] - best_theirs).max()),
        "mean_exact_ours": exact.mean,
        "sd_exact_ours": exact.sd,
        "exact_seconds_ours": time.perf_counter() - t0,
        "mean_theirs": float(solver.state_value("upper 0 | filled -")),
    }


def fresh(args: list[str]) -> dict:
    proc = subprocess.run(
        [sys.executable, __file__, *args], stdout=subprocess.PIPE, text=True, check=True
    )
    return json.loads(proc.stdout)


def _side_by_side(runs: dict[str, list[dict]], what: str, unit: str | None, size: int) -> dict:
    """The median seconds of task ``what`` for each solver, their ratio and, with a
    ``unit``, the ``size`` counted and each solver's rate."""
    med = {s: statistics.median(x[what] for x in runs[s]) for s in runs}
    entry = {
        "ours_seconds": round(med["ours"], 3),
        "theirs_seconds": round(med["theirs"], 3),
        "ratio": round(med["theirs"] / med["ours"], 2),
    }
    if unit:
        entry[unit] = size
        entry[f"ours_{unit}_per_second"] = round(size / med["ours"])
        entry[f"theirs_{unit}_per_second"] = round(size / med["theirs"])
    return entry


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--situations", type=int, default=200_000)
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument(
        "--presets",
        nargs="+",
        default=list(YATZY_SOLVER_VARIANTS),
        choices=list(YATZY_SOLVER_VARIANTS),
    )
    ap.add_argument("--worker", choices=["ours", "theirs", "compare"], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    preset = args.presets[0]
    if args.worker == "compare":
        print(json.dumps(compare(preset, args.situations)))
        return 0
    if args.worker:
        print(json.dumps(worker(args.worker, preset, args.situations, args.games)))
        return 0

    import yatzy_solver

    from yahtzee_sim.solving.solver import value_table

    sizes = ["--situations", str(args.situations), "--games", str(args.games)]
    rows = []
    for preset in args.presets:
        value_table(preset)  # on disk: every fresh process below loads it
        # compiled kernels on disk too (a first run after installation compiles them)
        fresh(["--worker", "ours", "--presets", preset, "--situations", "100", "--games", "100"])
        runs: dict[str, list[dict]] = {"ours": [], "theirs": []}
        for r in range(args.repeat):
            order = ("ours", "theirs") if r % 2 == 0 else ("theirs", "ours")
            for side in order:
                runs[side].append(fresh(["--worker", side, "--presets", preset, *sizes]))
                print(f"{preset} {side} {runs[side][-1]}", file=sys.stderr)
        row: dict = {"preset": preset, "peer_variant": YATZY_SOLVER_VARIANTS[preset]}
        for what, unit in (("solve", None), ("options", "situations"), ("play", "games")):
            size = args.situations if unit == "situations" else args.games
            row[what] = _side_by_side(runs, what, unit, size)
        row["play"]["jobs"] = runs["ours"][0]["jobs"]
        row["play"]["mean_ours"] = round(runs["ours"][0]["play_mean"], 3)
        row["play"]["mean_theirs"] = round(runs["theirs"][0]["play_mean"], 3)
        row["play"]["sd_theirs"] = round(runs["theirs"][0]["play_sd"], 3)
        row["values"] = fresh(["--worker", "compare", "--presets", preset, *sizes])
        rows.append(row)
    out = {
        "benchmark": "peers",
        "peer": f"yatzy-solver {yatzy_solver.SOLVER_VERSION}",
        "repeat": args.repeat,
        "cores": os.cpu_count(),
        "presets": rows,
    }
    print(json.dumps(out, indent=2))
    return 0


# ---------------------------------------------------------------- versus the peer
#: what -> (the row's words, the unit counted, the task in short).
PEER_TASKS = {
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
PEER_FASTER = {
    "options": "ours computes, for each situation, the box step of every roll and one keep "
    "step per reroll left at its turn-start state (a box choice needs neither); random "
    "situations share almost no state, so each one pays for its steps alone",
}


def page_section(rec: dict) -> list[str]:
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
        for what, (label, unit, _) in PEER_TASKS.items():
            t = x[what]
            n = num(t[unit]) if unit else ""
            label = label.format(n=n, jobs=t.get("jobs", r.get("cores")))
            ours, theirs = f"{t['ours_seconds']:.2f} s", f"{t['theirs_seconds']:.2f} s"
            if unit:
                ours += f" ({num(t[f'ours_{unit}_per_second'])} {unit}/s)"
                theirs += f" ({num(t[f'theirs_{unit}_per_second'])} {unit}/s)"
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
        + f"), Python {m['python']}"
        + (f", the core compiled by Cython {m['cython']}" if m.get("cython") else "")
        + f", against {r['peer']}. "
        f"Reproduce: `{rec['command']}`.",
        "",
    ]
    for what, presets in faster.items():
        why = PEER_FASTER.get(what)
        lines += [
            f"Where {peer} is faster ({PEER_TASKS[what][2]} on {', '.join(presets)})"
            + (f": {why}." if why else "."),
            "",
        ]
    lines += _values_table(r)
    lines.append("")
    return lines


def _values_table(r: dict) -> list[str]:
    """The values both solvers find, side by side."""
    lines: list[str] = []
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
            f"| `{x['preset']}` / `{x['peer_variant']}` | {num(v['states'])} | "
            f"{v['state_values_max_abs_diff']:.1e} points | "
            f"{v['best_option_max_abs_diff']:.1e} points ({num(v['situations'])} random "
            f"situations) | {v['mean_exact_ours']:.4f} / {v['mean_theirs']:.4f} points | "
            f"{v['sd_exact_ours']:.2f} / {p['sd_theirs']:.2f} points ({num(p['games'])} games) |"
        )
    return lines


# its entry on the Performance page (perf_page.py)
AREA = "Versus the peer"
TITLE = "Side by side with yatzy-solver"
COMMAND = "python benchmarks/bench_peers.py"
SMOKE = "--repeat 1 --situations 1000 --games 2000 --presets yahtzee-no-bonus"


if __name__ == "__main__":
    sys.exit(main())
