"""Write the box moments of Glenn 2006's heuristics that ship with the package, or check
them against a fresh simulation.

Usage: ``python tools/shipped_moments.py`` (simulate and write
``strategies/glenn2006_moments.json``) or ``python tools/shipped_moments.py --check`` (exit 1
and name the stale ones when a shipped moment differs from a fresh simulation by a bit).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving.cache import TableCache
from yahtzee_sim.strategies.glenn2006 import (
    SHIPPED_MOMENT_RULES,
    SHIPPED_MOMENTS,
    shipped_box_moments,
    simulated_box_moments,
)

OUT = Path(__file__).resolve().parents[1] / "strategies" / SHIPPED_MOMENTS


def stale_moments() -> list[str]:
    """The rule sets whose shipped moments are missing or differ from a fresh simulation."""
    stale = []
    for name in SHIPPED_MOMENT_RULES:
        rules = get_rules(name)
        got = shipped_box_moments(rules)
        fresh = simulated_box_moments(rules)
        if got is None or not all(np.array_equal(a, b) for a, b in zip(got, fresh, strict=True)):
            stale.append(name)
    return stale


def write() -> dict:
    """Simulate the moments of every shipped rule set and write the file."""
    out = {}
    for name in SHIPPED_MOMENT_RULES:
        rules = get_rules(name)
        mean, var = simulated_box_moments(rules)
        out[TableCache.key(rules, "v1")] = {
            "rules": name,
            "mean": [float(x).hex() for x in mean],
            "var": [float(x).hex() for x in var],
        }
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return {"written": str(OUT), "rules": list(SHIPPED_MOMENT_RULES)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with a fresh simulation")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_moments()
        print(json.dumps({"stale": stale}))
        return 1 if stale else 0
    print(json.dumps(write()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
