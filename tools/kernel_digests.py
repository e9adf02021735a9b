"""Record the SHA-256 of kernel outputs that the port to the compiled core must keep bit for
bit, into ``tests/golden/kernel_digests.json`` (run before porting a kernel family).

Usage::

    python tools/kernel_digests.py [--out tests/golden/kernel_digests.json]

What is recorded, per preset (every preset but Maxi Yatzy, whose tables take minutes):
the digest of the solved value table (:func:`yahtzee_sim.solving.solver.solve`), and of
the exponential-utility tables at θ = 0.02 and θ = -0.02 (:mod:`yahtzee_sim.solving.risk`)
where risk-sensitive play supports the rules; on a few presets the target table
(:func:`~yahtzee_sim.solving.target.solve_target` up to :data:`TARGETS`' β) and a utility
table (:func:`~yahtzee_sim.solving.utility.solve_utility` of the threshold utility at
:data:`UTILITIES`' β). Each entry's key names what it holds: ``values``, ``risk:θ``,
``target:β`` (``target:all``: every β), ``utility:β``.
``tests/kernels/test_core_solve.py`` checks that today's code gives the same bytes.
Record again only on purpose (a deliberate change of values), and say so in the commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

from yahtzee_sim.game.rules import PRESETS, get_rules
from yahtzee_sim.solving.risk import RISK_PLAY, solve_risk
from yahtzee_sim.solving.solver import solve
from yahtzee_sim.solving.target import solve_target
from yahtzee_sim.solving.utility import solve_utility, threshold_utility

OUT = Path(__file__).resolve().parents[1] / "tests" / "golden" / "kernel_digests.json"
#: Presets left out: their tables take minutes to solve.
SKIPPED = ("maxi-yatzy", "maxi-yatzy-3")
THETAS = (0.02, -0.02)
#: Target tables recorded: preset -> largest β (``None``: every β).
TARGETS = {"2-yatzy": None, "upper-3d4f": None, "yahtzee": 20, "yahtzee-single-bonus": 5}
#: Utility tables recorded: preset -> the β of the threshold utility.
UTILITIES = {"2-yatzy": 3, "yahtzee": 10}


def digest(values: np.ndarray) -> str:
    """SHA-256 of a float64 array's bytes (little-endian, C order)."""
    return hashlib.sha256(np.ascontiguousarray(values, dtype="<f8").tobytes()).hexdigest()


def presets() -> list[str]:
    """The presets recorded, in a fixed order."""
    return sorted(name for name in PRESETS if name not in SKIPPED)


def record() -> dict:
    """Every digest, by preset."""
    out = {}
    for name in presets():
        rules = get_rules(name)
        entry = {"values": digest(solve(rules).values)}
        if RISK_PLAY.needs.unmet(rules.game_type) is None:
            for theta in THETAS:
                entry[f"risk:{theta}"] = digest(solve_risk(rules, theta).values)
        if name in TARGETS:
            beta = TARGETS[name]
            entry[f"target:{beta or 'all'}"] = digest(solve_target(rules, beta).probs)
        if name in UTILITIES:
            beta = UTILITIES[name]
            table = solve_utility(rules, threshold_utility(rules, beta))
            entry[f"utility:{beta}"] = digest(table.values)
        out[name] = entry
        print(name, entry["values"][:12], flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
