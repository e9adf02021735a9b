"""Benchmark of the main job, ``yahtzee-sim report`` with its defaults. Prints one JSON object.

Usage::

    python benchmarks/bench_report.py [--games 100000] [--skip-cold]

* ``cold``: a fresh process with empty numba and value-table caches (temporary
  ``NUMBA_CACHE_DIR`` and ``YAHTZEE_SIM_CACHE``), as on a fresh machine — target <= 180 s;
* ``warm``: the same command again with the caches the cold run left.

Wall-clock seconds and peak RSS of each run are measured around the whole command.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

TARGET_SECONDS = 180.0


def run(games: int, out: str, env: dict) -> dict:
    t0 = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "yahtzee_sim",
            "report",
            "--quiet",
            "--games",
            str(games),
            "--out",
            out,
        ],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    seconds = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    return {"seconds": round(seconds, 1), "peak_rss_gb_so_far": round(rss, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--skip-cold", action="store_true", help="only the warm run")
    args = ap.parse_args()
    result: dict = {"games": args.games, "target_seconds": TARGET_SECONDS}
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        if not args.skip_cold:
            env["NUMBA_CACHE_DIR"] = os.path.join(tmp, "numba")
            env["YAHTZEE_SIM_CACHE"] = os.path.join(tmp, "tables")
            result["cold"] = run(args.games, os.path.join(tmp, "cold"), env)
        result["warm"] = run(args.games, os.path.join(tmp, "warm"), env)
    key = "warm" if args.skip_cold else "cold"
    result["meets_target"] = result[key]["seconds"] <= TARGET_SECONDS
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
