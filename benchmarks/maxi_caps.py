"""Maxi Yatzy with saved rolls: the optimum against the saved-roll cap.

Solves ``maxi-yatzy+capC`` for each cap given (each in a fresh process, so that its
time and peak memory are its own; every table goes to the table cache) and prints one
JSON object per cap, then the whole list; ``--out`` also writes it, keeping the rows of
other games already there (``benchmarks/results/maxi/caps.json``). Cap 0 is the
fixed-roll game ``maxi-yatzy-3``, cap 38 the ``maxi-yatzy`` preset (every roll saved).

    python benchmarks/maxi_caps.py --caps 0 1 2 38 --out benchmarks/results/maxi/caps.json
    python benchmarks/maxi_caps.py --caps 38 --rules-suffix +bonus100 --out ...
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys

CHILD = """
import json, resource, sys
from yahtzee_sim.solving.solver import value_table
cap, extra = int(sys.argv[1]), sys.argv[2]
name = {0: "maxi-yatzy-3", 38: "maxi-yatzy"}.get(cap, f"maxi-yatzy+cap{cap}") + extra
# every table goes to the disk cache (simulate and report read them from there); games
# with saved rolls are solved level by level into a memory-mapped file
table = value_table(name, progress=True)
print(json.dumps({
    "cap": cap, "rules": name, "optimum": table.expected_value(),
    "seconds": round(table.seconds, 1), "states": table.n_states,
    "peak_rss_gib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2),
}))
"""


def machine() -> dict:
    """The machine the figures come from."""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if "model name" in line)
    except (OSError, StopIteration):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "load_before": os.getloadavg()[0]}  # fmt: skip


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--caps", type=int, nargs="+", default=[0, 1, 2, 3])
    parser.add_argument("--rules-suffix", default="", help="house rules, e.g. +bonus100")
    parser.add_argument("--out", help="also write the results here (JSON)")
    args = parser.parse_args(argv)
    rows = []
    kept = []  # rows of --out for other games, kept
    if args.out and os.path.exists(args.out):
        with open(args.out) as f:
            kept = json.load(f)
    for cap in args.caps:
        info = machine()
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(cap), args.rules_suffix],
            stdout=subprocess.PIPE,
            text=True,
            check=True,
        )
        row = {**json.loads(done.stdout.strip().splitlines()[-1]), "machine": info}
        print(json.dumps(row), flush=True)
        rows.append(row)
        if args.out:
            names = {r["rules"] for r in rows}
            merged = [r for r in kept if r["rules"] not in names] + rows
            with open(args.out, "w") as f:
                json.dump(sorted(merged, key=lambda r: (r["rules"], r["cap"])), f, indent=1)
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
