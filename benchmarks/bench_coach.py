"""Coach benchmark: grading recorded games and the web page's advisor. Prints JSON.

Usage::

    python benchmarks/bench_coach.py [--games 10000] [--requests 200]

* ``analyze``: 10,000 recorded ``greedy`` games written as JSON Lines, then read, checked
  and graded (``yahtzee_sim.analysis.decisions.coach.analyze``), and the whole command
  ``yahtzee-sim analyze FILE --json`` (process start included). Target: <= 10 s.
* ``advise``: a server on 127.0.0.1 (port chosen by the system), then ``--requests`` advisor
  requests over HTTP at random positions; the first request and the median and 95th
  percentile after it. Target: <= 50 ms after start-up.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
from page_format import Row, num


def _post(url: str, body: dict) -> float:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    t0 = time.perf_counter()
    with urllib.request.urlopen(req) as res:
        res.read()
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--requests", type=int, default=200)
    args = ap.parse_args()

    from yahtzee_sim.analysis.decisions.coach import analyze
    from yahtzee_sim.engine.records import record_games, write_records

    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "games.jsonl"
        write_records(path, record_games("greedy", args.games, seed=0))
        analyze(path)  # warm-up: kernels compiled, table loaded
        t0 = time.perf_counter()
        res = analyze(path)
        out["analyze"] = {
            "games": args.games,
            "decisions": len(res.decisions),
            "seconds": round(time.perf_counter() - t0, 2),
            "file_mb": round(path.stat().st_size / 2**20, 1),
            "identity_max_error": res.identity_error(),
        }
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "yahtzee_sim.cli", "analyze", str(path), "--json"],
            check=True,
            capture_output=True,
        )
        out["analyze"]["command_seconds"] = round(time.perf_counter() - t0, 2)
        out["analyze"]["target_seconds"] = 10

    out["advise"] = _advise_requests(args.requests)
    print(json.dumps(out, indent=2))


def _advise_requests(n_requests: int) -> dict:
    """The web app's advisor under ``n_requests`` random requests, one at a time: the
    server's start, the first answer and the answers after it."""
    from werkzeug.serving import make_server

    from yahtzee_sim.apps.server import create_app

    t0 = time.perf_counter()
    srv = make_server("127.0.0.1", 0, create_app(), threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    started = time.perf_counter() - t0
    url = f"http://127.0.0.1:{srv.port}/api/advise"
    rng = np.random.default_rng(0)
    names = ["ones", "twos", "threes", "chance", "full_house", "yahtzee", "small_straight"]
    times = []
    for _ in range(n_requests + 1):
        used = [n for n in names if rng.random() < 0.4]
        body = {
            "dice": rng.integers(1, 7, size=5).tolist(),
            "rolls_left": int(rng.integers(0, 3)),
            "used": used,
        }
        times.append(_post(url, body))
    srv.shutdown()
    after = np.array(times[1:])
    return {
        "server_start_seconds": round(started, 2),
        "first_request_ms": round(times[0], 1),
        "median_ms": round(float(np.median(after)), 2),
        "p95_ms": round(float(np.percentile(after, 95)), 2),
        "requests": n_requests,
        "target_ms": 50,
    }


def rows(r: dict) -> list[Row]:
    a, b = r["analyze"], r["advise"]
    return [
        (
            f"`analyze`: read, check and grade {num(a['games'])} recorded games "
            f"({num(a['decisions'])} decisions)",
            f"{a['seconds']:.1f} s; the whole command {a['command_seconds']:.1f} s",
        ),
        (
            f"the web page: one advisor request over HTTP (median of {b['requests']})",
            f"{b['median_ms']} ms (95th percentile {b['p95_ms']} ms; the first request "
            f"{b['first_request_ms']} ms)",
        ),
    ]


# its entry on the Performance page (perf_page.py)
AREA = "Coach"
TITLE = "Grading games and answering requests"
COMMAND = "python benchmarks/bench_coach.py"
SMOKE = "--games 200 --requests 10"


if __name__ == "__main__":
    sys.exit(main())
