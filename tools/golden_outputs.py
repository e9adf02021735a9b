"""Record golden outputs of the game logic into ``tests/golden/`` (run before a refactor).

Usage::

    python tools/golden_outputs.py [--out tests/golden]

Writes ``golden.json`` (scalars and SHA-256 digests of per-game arrays) and
``arrays.npz`` (score laws, value-table samples, target curves). ``tests/solving/test_golden.py``
checks that the current code reproduces them: simulations bit for bit, floating
results to 1e-12. Recorded once from the code before the one-widget refactor; record
again only on purpose (a deliberate change of behaviour), and say so in the commit.

What is recorded:

* ``simulate`` of every built-in (and ``target:5`` on 2-Yatzy) on every rule set it
  supports: 20,000 games, seed 7 — digest of totals and box scores, and the mean;
* the exact law of every deterministic built-in on every rule set it supports
  (pmf, mean, SD, per-box means, P(upper bonus));
* solver: expected value, the sum of the table and 2,000 sampled entries per rule set;
* target curves: 2-Yatzy (every β) and official Yahtzee capped at β = 80;
* regret of ``glenn-2007-rules`` and ``greedy`` (total, by decision, by turn);
* advisor options at a few positions.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from yahtzee_sim import get_rules, simulate
from yahtzee_sim.analysis.decisions.regret import regret
from yahtzee_sim.exact.laws import ExactEvaluationError, evaluate
from yahtzee_sim.game.rules import PRESETS
from yahtzee_sim.solving.advisor import advise
from yahtzee_sim.solving.solver import value_table
from yahtzee_sim.solving.target import solve_target
from yahtzee_sim.strategies import default_strategy_ids, get_strategy, strategy_class

SIM_GAMES = 20_000
SIM_SEED = 7
TARGET_CAP = 80
ADVISOR_POSITIONS = [  # (rules, dice, rolls_left, used, upper, yahtzee_bonus)
    ("yahtzee", [1, 3, 5, 5, 6], 2, [], 0, False),
    ("yahtzee", [2, 2, 2, 5, 6], 1, ["ones", "fours", "chance"], 12, False),
    ("yahtzee", [6, 6, 6, 6, 6], 0, ["yahtzee", "sixes"], 18, True),
    ("yahtzee", [6, 6, 6, 6, 6], 0, ["yahtzee", "sixes", "three_of_a_kind"], 18, False),
    ("yatzy", [1, 2, 3, 4, 5], 0, ["small_straight"], 0, False),
    ("yatzy", [3, 3, 4, 4, 4], 2, [], 0, False),
]


def cases() -> list[tuple[str, str]]:
    out = []
    for sid in default_strategy_ids():
        for name in PRESETS:
            if strategy_class(sid).supports(get_rules(name)):
                out.append((sid, name))
    return [*out, ("target:5", "2-yatzy")]


def record_games(golden: dict, arrays: dict, t0: float) -> None:
    """The simulated games of every case, and the exact law of the deterministic ones."""
    for sid, rules in cases():
        res = simulate(sid, SIM_GAMES, seed=SIM_SEED, rules=rules, progress=False)
        golden["simulate"][f"{sid}|{rules}"] = {
            "digest": res.digest(),
            "mean": float(res.total.mean()),
        }
        if get_strategy(sid).deterministic and not get_strategy(sid).uses_total:
            try:
                ex = evaluate(sid, rules)
            except ExactEvaluationError:  # e.g. decisions that read box contents
                continue
            key = f"{sid}|{rules}"
            golden["exact"][key] = {
                "mean": ex.mean,
                "sd": ex.sd,
                "bonus_rate": ex.bonus_rate,
                "yahtzee_bonuses_mean": ex.yahtzee_bonuses_mean,
                "n_states": ex.n_states,
            }
            arrays[f"pmf|{key}"] = ex.pmf
            arrays[f"box_means|{key}"] = ex.box_means
            arrays[f"box_fill_turn|{key}"] = ex.box_fill_turn
        print(f"{sid} {rules} {time.perf_counter() - t0:.1f}s", flush=True)


def record_tables(golden: dict, arrays: dict) -> None:
    """Every preset's value table (its start value, sum and a sample of states) and the
    target tables."""
    rng = np.random.default_rng(0)
    for name in PRESETS:
        v = value_table(get_rules(name), use_cache=False).values
        idx = np.sort(rng.choice(len(v), min(2000, len(v)), replace=False))
        golden["solver"][name] = {"ev": float(v[0]), "sum": float(v.sum())}
        arrays[f"solver_idx|{name}"] = idx
        arrays[f"solver_values|{name}"] = v[idx]
    for name, cap in (("2-yatzy", None), ("yahtzee", TARGET_CAP)):
        table = solve_target(name, cap)
        arrays[f"target_curve|{name}"] = table.curve()
        golden["target"][name] = {"sum": float(table.probs.sum()), "size": len(table.probs)}


def record_decisions(golden: dict) -> None:
    """Two strategies' regret and the advisor's options at fixed positions."""
    for sid in ("glenn-2007-rules", "greedy"):
        r = regret(sid, "yahtzee")
        golden["regret"][sid] = {
            "total": r.total,
            "by_decision": r.by_decision.to_dict(),
            "by_turn": {int(k): v for k, v in r.by_turn.items()},
            "by_box": r.by_box.to_dict(),
        }
    for rules, dice, rolls_left, used, upper, yb in ADVISOR_POSITIONS:
        opts = advise(dice, rolls_left, used, upper, yb, rules)
        golden["advisor"].append(
            {
                "position": [rules, dice, rolls_left, used, upper, yb],
                "options": [o.to_dict() for o in opts],
            }
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "tests/golden"))
    out = Path(ap.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    settings = {"simulate_games": SIM_GAMES, "simulate_seed": SIM_SEED, "target_cap": TARGET_CAP}
    golden: dict = {"settings": settings, "advisor": []}
    golden.update({k: {} for k in ("simulate", "exact", "solver", "target", "regret")})
    arrays: dict[str, np.ndarray] = {}
    t0 = time.perf_counter()
    record_games(golden, arrays, t0)
    record_tables(golden, arrays)
    record_decisions(golden)
    (out / "golden.json").write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    np.savez_compressed(out / "arrays.npz", **arrays)
    print(f"recorded in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
