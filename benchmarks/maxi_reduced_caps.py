"""Maxi Yatzy reduced to eight boxes (six dice, no upper bonus): the optimum against the
saved-roll cap, from 0 to 30, one JSON object per cap. It shows how the optimum of the
full game converges in the cap: a game of ``n`` turns never saves more than ``2 (n - 1)``
rolls, so from that cap on the optimum no longer changes.

    python benchmarks/maxi_reduced_caps.py > benchmarks/results/maxi/reduced_caps.jsonl
"""

import dataclasses
import json

from yahtzee_sim import get_rules
from yahtzee_sim.solving.solver import solve

base = get_rules("maxi-yatzy-3")
keep = ("fives", "sixes", "three_pairs", "full_straight", "villa", "tower", "chance", "maxi_yatzy")
boxes = tuple(b for b in base.boxes if b.name in keep)
# the preset's dice and rolls, eight boxes, no upper bonus
reduced = dataclasses.replace(
    base, name="maxi-8box", boxes=boxes, upper_bonus_threshold=0, upper_bonus=0
)
prev = None
for cap in [*range(13), 16, 20, 24, 30]:
    r = dataclasses.replace(reduced, saved_roll_cap=cap)
    t = solve(r)
    ev = t.expected_value()
    print(
        json.dumps(
            {
                "cap": cap,
                "optimum": ev,
                "seconds": round(t.seconds, 2),
                "change": None if prev is None else ev - prev,
            }
        ),
        flush=True,
    )
    prev = ev
