"""First-run benchmark: each first answer of a new user, cold and warm.

Prints one JSON object. Usage::

    python benchmarks/bench_first_run.py [--only report,simulate,exact,advise] [--skip-warm]
    python benchmarks/bench_first_run.py --only exact_greedy,solve,regret  # the bars

Each command runs as the CLI (``python -m yahtzee_sim``) in a fresh process, first with an
empty table cache (a temporary ``YAHTZEE_SIM_CACHE``: a fresh install), then again with the
cache the first run left (``warm``). Every command gets a cache of its own, so each figure
is that command's first answer, not one prepared by an earlier command; a command that
starts from a stored table (:data:`STORED_TABLES`) finds that table linked into its cache
from this machine's. For each run the JSON gives the wall time and the progress bar's
first estimate and length (the time it showed elapsed and left, read from the command's
stderr, when it printed them).
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

#: A newcomer's own strategy file: a Python strategy with no kernel of its own (keeps the
#: most frequent face, writes the roll in the box worth most now).
USER_STRATEGY = """import numpy as np

from yahtzee_sim.engine.strategy import Strategy


class MostCommon(Strategy):
    def keep(self, view):
        counts = np.asarray(view.dice)
        face = counts.argmax(axis=1)
        rows = np.arange(len(counts))
        keep = np.zeros_like(counts)
        keep[rows, face] = counts[rows, face]
        return keep

    def box(self, view):
        return view.box_points.argmax(axis=1)
"""

#: The first answers a newcomer asks for: the main job, optimal games, the exact law of
#: their own strategy, the advisor.
COMMANDS = {
    "report": ["report", "--out", "{tmp}/report"],
    "simulate": ["simulate", "--strategy", "optimal", "--games", "10000"],
    "exact": ["exact", "--strategy", "{tmp}/my_strategy.py:MostCommon"],
    "advise": ["advise", "--dice", "1,2,3,4,6", "--rolls-left", "2"],
    # Maxi Yatzy's table (10 GiB) is solved once and stays on disk: the first answer with
    # the table there (linked from this machine's table cache), the cache empty otherwise
    "advise_maxi": [
        "advise",
        "--rules",
        "maxi-yatzy",
        "--dice",
        "1,2,3,4,6,6",
        "--rolls-left",
        "2",
    ],
    # the progress bars of the exact law, a solve (``--force``: warm, it solves again)
    # and the regret
    "exact_greedy": ["exact", "--strategy", "greedy"],
    "solve": ["solve", "--rules", "yatzy", "--force"],
    "regret": ["regret", "--strategy", "greedy"],
}
#: The commands that start with a stored table: the rule set whose table they read from
#: this machine's table cache (linked into the command's empty cache).
STORED_TABLES = {"advise_maxi": "maxi-yatzy"}
#: The commands measured unless ``--only`` names others.
DEFAULT = ("report", "simulate", "exact", "advise", "advise_maxi", "regret", "solve")

CLOCK = r"(\d+):(\d\d)(?::(\d\d))?"
ESTIMATE = re.compile(rf"\[{CLOCK}<{CLOCK}[,\]]")


def _seconds(a: str, b: str, c: str | None) -> float:
    return float(int(a) * 3600 + int(b) * 60 + int(c)) if c else float(int(a) * 60 + int(b))


def first_estimate(stderr: str) -> tuple[float, float] | None:
    """The time elapsed and the time left a tqdm bar showed at its first estimate, in
    seconds."""
    for match in ESTIMATE.finditer(stderr):
        groups = match.groups()
        return _seconds(*groups[:3]), _seconds(*groups[3:])
    return None


def last_elapsed(stderr: str) -> float | None:
    """The time elapsed a tqdm bar showed last (its length, when it ends at 100%)."""
    found = None
    for match in ESTIMATE.finditer(stderr):
        found = _seconds(*match.groups()[:3])
    return found


def run(args: list[str], env: dict[str, str]) -> dict:
    """One CLI run in a fresh process: wall time, first estimate and length of its bar."""
    t0 = time.perf_counter()
    command = [sys.executable, "-m", "yahtzee_sim", *args]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"yahtzee-sim {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    estimate = first_estimate(done.stderr)
    return {
        "seconds": round(seconds, 1),
        "first_estimate_seconds": estimate[1] if estimate else None,
        "first_estimate_elapsed": estimate[0] if estimate else None,
        "bar_seconds": last_elapsed(done.stderr),
    }


def link_stored_table(rules: str, folder: Path) -> None:
    """Link the value table of ``rules`` from this machine's table cache into ``folder``."""
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.solving.solver import TABLES

    rules_set = get_rules(rules)
    folder.mkdir(parents=True)
    for path in TABLES.paths(TABLES.key(rules_set)):
        (folder / path.name).symlink_to(path)


def table_missing(name: str) -> str | None:
    """Why command ``name`` cannot run here (the stored table it starts with is not in
    this machine's table cache), or ``None``."""
    from yahtzee_sim.solving.solver import table_stored

    rules = STORED_TABLES.get(name)
    if rules is None or table_stored(rules):
        return None
    return f"the {rules} table is not stored here (yahtzee-sim solve --rules {rules})"


def first_answer(name: str, skip_warm: bool) -> dict:
    """A command cold (an empty table cache of its own) and then warm (the cache it left)."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "my_strategy.py").write_text(USER_STRATEGY)
        args = [a.format(tmp=tmp) for a in COMMANDS[name]]
        env = {**os.environ, "YAHTZEE_SIM_CACHE": f"{tmp}/tables"}
        if name in STORED_TABLES:
            link_stored_table(STORED_TABLES[name], Path(f"{tmp}/tables"))
        command = "yahtzee-sim " + " ".join(COMMANDS[name])
        out = {"command": command, "cold": run(args, env)}
        if name in STORED_TABLES:
            out["stored_table"] = STORED_TABLES[name]
        if not skip_warm:
            out["warm"] = run(args, env)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", default=",".join(DEFAULT), help=f"comma-separated, of {', '.join(COMMANDS)}"
    )
    parser.add_argument("--skip-warm", action="store_true", help="cold runs only")
    opts = parser.parse_args()
    names = [n for n in opts.only.split(",") if n]
    unknown = sorted(set(names) - set(COMMANDS))
    if unknown:
        parser.error(f"unknown command {unknown[0]!r}; choose from {', '.join(COMMANDS)}")
    result = {
        "benchmark": "first_run",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "runs": {},
    }
    for name in names:  # each figure on stderr as soon as it is measured
        missing = table_missing(name)
        if missing is not None:
            result["runs"][name] = {"command": " ".join(COMMANDS[name]), "skipped": missing}
            continue
        result["runs"][name] = first_answer(name, opts.skip_warm)
        print(f"{name}: {json.dumps(result['runs'][name])}", file=sys.stderr, flush=True)
    print(json.dumps(result, indent=2))
    return 0


def _estimates(cold: dict) -> str:
    """The progress bar's first estimate of a first run's length (time elapsed + time
    left), with the bar's length."""
    if cold.get("first_estimate_seconds") is None:
        return ""
    first = cold["first_estimate_elapsed"] + cold["first_estimate_seconds"]
    return f"; the bar's first estimate {first:.0f} s, its length {cold['bar_seconds']:.0f} s"


def rows(r: dict) -> list[Row]:
    """The page's rows: each first answer cold and warm."""
    out: list[Row] = []
    for run in r.get("runs", {}).values():
        if "skipped" in run:
            out.append((f"`yahtzee-sim {run['command']}`", f"not measured: {run['skipped']}"))
            continue
        warm = f", {run['warm']['seconds']:.1f} s warm" if "warm" in run else ""
        cold = run["cold"]
        cache = "an empty table cache"
        if "stored_table" in run:
            cache = f"the {run['stored_table']} table stored, no other"
        what = f"`{run['command']}`, the first answer ({cache})"
        out.append((what, f"{cold['seconds']:.1f} s wall clock{warm}{_estimates(cold)}"))
    return out


# its entry on the Performance page (perf_page.py)
AREA = "The report"
TITLE = "The first answer of each command, from an empty table cache"
COMMAND = "python benchmarks/bench_first_run.py"
SMOKE = None


if __name__ == "__main__":
    sys.exit(main())
