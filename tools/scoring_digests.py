"""Record the SHA-256 of the scoring step's batch entry points and the need lanes' liveness
(``_core/scoring.pyx``, ``_core/need_lanes.pyx``) into ``tests/golden/scoring_digests.json``.

Usage::

    python tools/scoring_digests.py [--out tests/golden/scoring_digests.json]

What is recorded, for each game of :data:`GAMES` (random batches of :func:`batch_inputs`,
one seed per game): ``points:<game>``, ``bonuses:<game>`` and ``options:<game>``, the
points of every box, the Yahtzee bonuses and the bonus options of 2,000 random rolls and
states; ``scored:<game>``, the state after scoring 200 random boxes (with and without saved
rolls) and the flag after a roll (:func:`scored_inputs`); ``live:<first>``, the liveness of
5,000 random (state, lane) pairs of random need lanes, with and without first lanes
(:func:`live_inputs`). ``tests/kernels/test_core_scoring.py`` checks that today's code gives
the same bytes. Record again only on purpose (a deliberate change of values), and say so in
the commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parents[1] / "tests"
OUT = TESTS / "golden" / "scoring_digests.json"
#: The presets recorded, and two games of the tests' helpers (``tests/helpers.py``).
PRESETS = (
    "yahtzee",
    "yatzy",
    "yahtzee-free-joker",
    "yahtzee-no-joker",
    "yahtzee-single-bonus",
    "yacht",
    "upper-3d4f",
    "maxi-yatzy",
)
GAMES = (*PRESETS, "bonus-limit", "saved")


def game_rules(name: str):
    """The rules of a recorded game: a preset, ``bonus-limit`` (a bonus limit of 2) or
    ``saved`` (the small game with up to 3 saved rolls)."""
    from yahtzee_sim.game.rules import get_rules

    if name in PRESETS:
        return get_rules(name)
    sys.path.insert(0, str(TESTS))
    from helpers import bonus_limit_game, small_saved_game

    return bonus_limit_game(2) if name == "bonus-limit" else small_saved_game(3)


def digest(values) -> str:
    """SHA-256 of an array's bytes as little-endian int64, C order."""
    return hashlib.sha256(np.ascontiguousarray(values, dtype="<i8").tobytes()).hexdigest()


def batch_inputs(kr, game: str, n: int = 2000):
    """Random rolls, used-masks, flags and upper totals of one game's batch."""
    rng = np.random.default_rng(len(game))
    roll = rng.integers(0, kr.roll_keep_index.shape[0], n)
    used = rng.integers(0, 1 << kr.n_boxes, n)
    flag = rng.integers(0, kr.flag_size, n)
    upper = rng.integers(0, kr.upper_cap + 1, n)
    return roll, used, flag, upper


def scored_inputs(kr, n: int = 200) -> list[tuple[int, ...]]:
    """``(used, upper, flag, box, points, saved, yahtzee bonus)`` of random scoring steps."""
    rng = np.random.default_rng(7)
    out = []
    for _ in range(n):
        c, p = int(rng.integers(0, kr.n_boxes)), int(rng.integers(0, 60))
        used = int(rng.integers(0, 1 << kr.n_boxes)) & ~(1 << c)
        upper, flag = int(rng.integers(0, kr.upper_cap + 1)), int(rng.integers(0, kr.flag_size))
        saved = int(rng.integers(0, kr.saved_size))
        out.append((used, upper, flag, c, p, saved, int(rng.integers(0, 2)) * 50))
    return out


def live_inputs(with_first: bool):
    """Random need lanes of ``upper-3d4f`` and random ``(states, lanes)`` to ask about."""
    from yahtzee_sim._kernels.lanes import points_needed_lanes
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.game.state import n_states

    rng = np.random.default_rng(11)
    ns = n_states(get_rules("upper-3d4f"))
    length = rng.integers(0, 40, ns)
    offset = np.concatenate([[0], np.cumsum(length)[:-1]])
    values = rng.random(int(length.sum()) + 1)
    values[rng.random(values.shape) < 0.2] = 0.0  # lanes at ``bottom``: not live
    first = rng.integers(0, 5, ns) if with_first else np.zeros(0, dtype=np.int64)
    lanes = points_needed_lanes(values, offset, length, first)
    return lanes, rng.integers(0, ns, 5000), rng.integers(-2, 45, 5000)


def record() -> dict[str, str]:
    """Every digest (first recorded from the numba helpers the compiled core replaced)."""
    from yahtzee_sim._core import need_lanes, scoring
    from yahtzee_sim._kernels.scoring import kernel_rules

    out = {}
    for game in GAMES:
        kr = kernel_rules(game_rules(game))
        roll, used, flag, upper = batch_inputs(kr, game)
        points = scoring.box_options(kr, roll, used, flag)
        out[f"points:{game}"] = digest(points)
        out[f"bonuses:{game}"] = digest(scoring.yahtzee_bonuses(kr, roll, used, flag))
        out[f"options:{game}"] = digest(scoring.bonus_options(kr, roll, used, upper, flag, points))
        steps = []
        for used1, upper1, flag1, c, p, saved, yb in scored_inputs(kr):
            steps += scoring.saved_scored_state(kr, used1, upper1, flag1, c, p, saved)
            steps += scoring.scored_state(kr, used1, upper1, flag1, c, p)
            steps.append(scoring.flag_after_roll(kr, flag1, yb))
        out[f"scored:{game}"] = digest(steps)
    for with_first in (False, True):
        table, states, t = live_inputs(with_first)
        out[f"live:{with_first}"] = digest(need_lanes.live_lanes(table, states, t))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
