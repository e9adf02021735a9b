"""Fresh-clone benchmark: the README's install command and its test command on a new clone.

Prints one JSON object. Usage::

    python benchmarks/bench_install.py [--skip-tests]

Clones this repository (its committed ``HEAD``) into a temporary folder, makes a new
virtual environment there (no site packages: every dependency is installed), then times
the README's install, ``pip install -e ".[dev]"`` (the compiled core built from scratch,
the dependencies downloaded), and the README's test command, ``python -m pytest -q``, in
that clone, as a newcomer runs them. The JSON gives both wall times and the test counts
pytest printed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from page_format import Row

ROOT = Path(__file__).resolve().parents[1]
#: pytest's last line: ``2848 passed, 2 skipped in 493.17s``.
SUMMARY = re.compile(r"(\d+) (passed|failed|skipped|errors?)")


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Wall time of ``command``; exits naming it when it fails."""
    t0 = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-2000:]
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{tail}")
    return seconds


def counts(pytest_output: str) -> dict[str, int]:
    """The test counts of pytest's summary line."""
    last = pytest_output.strip().splitlines()[-1] if pytest_output.strip() else ""
    return {kind: int(n) for n, kind in SUMMARY.findall(last)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-tests", action="store_true", help="time the install only")
    opts = parser.parse_args()
    result = {
        "benchmark": "install",
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }
    with tempfile.TemporaryDirectory() as tmp:
        clone, venv = Path(tmp) / "clone", Path(tmp) / "venv"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        python = str(venv / "bin" / "python")
        env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
        env.pop("YAHTZEE_SIM_CACHE", None)  # the clone's own, empty table cache
        env["HOME"] = tmp
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"], env=env)
        seconds = timed([python, "-m", "pip", "install", "-e", ".[dev]"], clone, env)
        result["install_seconds"] = round(seconds, 1)
        print(f"install: {seconds:.1f} s", file=sys.stderr, flush=True)
        if not opts.skip_tests:  # a failing test is a figure too: counted, not fatal
            t0 = time.perf_counter()
            done = subprocess.run(
                [python, "-m", "pytest", "-q"], cwd=clone, env=env, capture_output=True, text=True
            )
            result["tests_seconds"] = round(time.perf_counter() - t0, 1)
            result["tests"] = counts(done.stdout)
            result["tests_exit_code"] = done.returncode
    print(json.dumps(result, indent=2))
    return 0


def rows(r: dict) -> list[Row]:
    """The page's rows: the install and the test command, each on a fresh clone."""
    out = [
        (
            '`pip install -e ".[dev]"` in a fresh clone and a new virtual environment (the '
            "compiled core built, every dependency installed)",
            f"{r['install_seconds']:.0f} s ({r['install_seconds'] / 60:.1f} minutes)",
        )
    ]
    if "tests_seconds" in r:
        tests = ", ".join(f"{n:,} {kind}" for kind, n in r["tests"].items())
        out.append(
            (
                "`python -m pytest -q` in that clone (the README's test command, every core)",
                f"{r['tests_seconds'] / 60:.1f} minutes ({tests})",
            )
        )
    return out


# its entry on the Performance page (perf_page.py)
AREA = "Installing"
TITLE = "A fresh clone: the install and the test command"
COMMAND = "python benchmarks/bench_install.py"
SMOKE = None

if __name__ == "__main__":
    raise SystemExit(main())
