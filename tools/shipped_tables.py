"""Write the value tables that ship with the package, or check them against a solve.

Usage: ``python tools/shipped_tables.py`` (solve and write them into
``yahtzee_sim/solving/tables``) or ``python tools/shipped_tables.py --check`` (exit 1 and
name the stale ones when a shipped table differs from a fresh solve by a bit).
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving.shipped import SHIPPED_RULES, shipped_values, write_shipped
from yahtzee_sim.solving.solver import solve


def stale_tables() -> list[str]:
    """The rule sets whose shipped table is missing or differs from a fresh solve."""
    stale = []
    for name in SHIPPED_RULES:
        rules = get_rules(name)
        got = shipped_values(rules)
        if got is None or not np.array_equal(got, solve(rules).values):
            stale.append(name)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with a fresh solve")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_tables()
        print(json.dumps({"stale": stale}))
        return 1 if stale else 0
    print(json.dumps(write_shipped({name: solve(name).values for name in SHIPPED_RULES})))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
