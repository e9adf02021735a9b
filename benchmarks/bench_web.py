"""Web page load benchmark: a bounded load test of ``yahtzee-sim serve`` on 127.0.0.1.

Prints one JSON object. Usage::

    python benchmarks/bench_web.py [--requests 5000] [--clients 32] [--timeout 600]

The server is the command ``yahtzee-sim serve --port 0`` in a process of its own (so that
the clients' threads do not share its interpreter); :func:`web_load.run_load` drives it with
``--clients`` threads, a fixed share of ``--requests`` each, after ``--warmup`` requests,
and stops by itself (a global ``--timeout``); see :mod:`web_load` for what each client
checks.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from typing import IO

from page_format import Row, num
from web_load import process_rss_mb, run_load


def start_server(log: IO[str], rules: str = "yahtzee") -> tuple[subprocess.Popen, int]:
    """``yahtzee-sim serve --port 0`` in a process of its own, its access log (and any
    traceback) written to ``log``; the process and its port."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "yahtzee_sim.cli", "serve", "--port", "0", "--rules", rules],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    line = proc.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if found is None:
        proc.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return proc, int(found.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=5000)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--warmup", type=int, default=1000, help="requests before the measure")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds for the whole load")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    log = tempfile.TemporaryFile("w+")
    t0 = time.perf_counter()
    proc, port = start_server(log)
    started = time.perf_counter() - t0
    try:
        res = run_load(
            "127.0.0.1",
            port,
            args.requests,
            args.clients,
            args.warmup,
            args.timeout,
            args.seed,
            rss=lambda: process_rss_mb(proc.pid),
        )
    finally:
        proc.terminate()
        proc.wait(30)
        log.seek(0)
        tracebacks = log.read().count("Traceback (most recent call last)")
        log.close()
    out = {
        "server": "yahtzee-sim serve --port 0 (its own process, werkzeug threaded server)",
        "server_start_seconds": round(started, 2),
        "warmup_requests": args.warmup,
        **res.summary(),
        "server_tracebacks": tracebacks,
        "failure_examples": res.failures[:5],
        "load_average_1min": round(os.getloadavg()[0], 2),
        "niceness": os.nice(0),  # (19: the benchmark gave way to other work on the machine)
    }
    print(json.dumps(out, indent=2))
    return 1 if res.failures or tracebacks else 0


def rows(r: dict) -> list[Row]:
    """The load test of the web page: latencies, errors, memory."""
    m = r["rss_mb"]
    statuses = ", ".join(f"{num(n)} × {s}" for s, n in r["statuses"].items())
    return [
        (
            f"answer {num(r['requests'])} requests from {r['clients']} concurrent clients on "
            "127.0.0.1 (whole games checked at every step, malformed requests between), "
            f"after {num(r['warmup_requests'])} of warm-up",
            f"median {r['median_ms']} ms, 99th percentile {r['p99_ms']} ms, slowest "
            f"{r['max_ms']} ms ({num(r['requests_per_second'])} requests/s)",
        ),
        (
            "answers with a server error (5xx); failed checks (a wrong status, a game not "
            "where it should be)",
            f"{r['server_errors']} answers; {r['failures']} checks",
        ),
        ("answers by HTTP status, the warm-up included", statuses),
        (
            "games played to the end and checked, of those started",
            f"{num(r['games_finished'])} of {num(r['games_started'])} games",
        ),
        (
            "the server's resident memory before the warm-up (the value table not yet paged "
            "in), after it, at the end",
            f"{m['before']:.0f} MB, {m['after_warmup']:.0f} MB, {m['after']:.0f} MB",
        ),
    ]


# its entry on the Performance page (perf_page.py)
AREA = "Coach"
TITLE = "The web page under load"
COMMAND = "python benchmarks/bench_web.py --requests 5000 --clients 32"
SMOKE = "--requests 200 --clients 4 --warmup 40"


if __name__ == "__main__":
    sys.exit(main())
