"""Maxi Yatzy with saved rolls: the optimum against the saved-roll cap.

Solves ``maxi-yatzy+capC`` for each cap given (each in a fresh process, so that its
time and peak memory are its own; the presets' caps go to the table cache) and prints
one JSON object per cap, then the whole list; ``--out`` also writes it
(``benchmarks/results/maxi/caps.json``). The fixed-roll game ``maxi-yatzy-3`` is cap 0.

    python benchmarks/maxi_caps.py --caps 0 1 2 3 --out benchmarks/results/maxi/caps.json
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
from yahtzee_sim.game.rules import MAXI_SAVED_ROLL_CAP
from yahtzee_sim.solving.solver import solve, value_table
cap = int(sys.argv[1])
name = "maxi-yatzy-3" if cap == 0 else f"maxi-yatzy+cap{cap}"
# the presets' tables go to the disk cache (simulate and report read them from there)
keep = cap in (0, MAXI_SAVED_ROLL_CAP)
table = value_table(name) if keep else solve(name)
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
    parser.add_argument("--out", help="also write the results here (JSON)")
    args = parser.parse_args(argv)
    rows = []
    for cap in args.caps:
        info = machine()
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(cap)], capture_output=True, text=True, check=True
        )
        row = {**json.loads(done.stdout.strip().splitlines()[-1]), "machine": info}
        print(json.dumps(row), flush=True)
        rows.append(row)
        if args.out:
            with open(args.out, "w") as f:
                json.dump(rows, f, indent=1)
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
