"""Record the SHA-256 of the batched decision kernels' and the win values' outputs, which the
port to the compiled core must keep bit for bit, into ``tests/golden/batched_digests.json``
(run before porting the family).

Usage::

    python tools/batched_digests.py [--out tests/golden/batched_digests.json]

What is recorded (each key names what it holds):

* ``fill:<preset>``: the max-EV decisions (``upper_lane_decisions``) of about 3,000 random
  states and every upper total of a few used-masks, against the solved table, rows in a
  shuffled order (:func:`fill_case`);
* ``need:<preset>``: the decisions of (state, lane) pairs of a random need-lane table
  (``need_lane_decisions``), every roll recorded, then the first roll's keeps at given
  rolls and the later rolls' decisions (:func:`need_case`);
* ``simulate:<strategy>|<preset>``: the games of a strategy that plays by these kernels
  (max-EV table play, target score, blind win-seeking): :data:`SIMULATIONS`;
* ``match:<seats>|<preset>``: the totals of visible matches of the win-seeking strategies
  (win-aware, win-target, chase): :data:`MATCHES`;
* ``nodes:<preset>``: the law of the opponents' best final (``best_final_sizes``,
  ``best_final_nodes``) of random opponents, exact and normal (:func:`nodes_case`).

``tests/kernels/test_batched_core.py`` checks that today's code gives the same bytes.
Record again only on purpose (a deliberate change of values), and say so in the commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import threading
from pathlib import Path

import numpy as np

from yahtzee_sim import get_rules, simulate
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import decode_state, n_states

OUT = Path(__file__).resolve().parents[1] / "tests" / "golden" / "batched_digests.json"
#: Presets of the decision fills and need lanes (games without saved rolls or forced order).
FILL_PRESETS = (
    "2-yatzy",
    "upper-3d4f",
    "yahtzee-6box",
    "yacht",
    "yahtzee",
    "yahtzee-free-joker",
    "yahtzee-no-joker",
    "yahtzee-no-bonus",
    "yahtzee-single-bonus",
    "yatzy",
    "yatzy-no-bonus",
)
#: Simulations: (strategy id, preset, games).
SIMULATIONS = (
    ("optimal", "yahtzee", 4000),
    ("optimal", "yahtzee-single-bonus", 4000),
    ("optimal", "yatzy", 4000),
    ("optimal", "yacht", 4000),
    ("optimal", "upper-3d4f", 4000),
    ("target:5", "2-yatzy", 4000),
    ("target:14", "upper-3d4f", 4000),
    ("target:40", "yahtzee-6box", 4000),
    ("target:30", "small-limit-2", 4000),
    ("target:150", "yatzy-no-bonus", 2000),
    ("win", "upper-3d4f", 2000),
)
#: Visible matches: (seats' strategy ids, preset, matches).
MATCHES = (
    (("win-aware", "optimal"), "upper-3d4f", 2000),
    (("optimal", "win-aware", "win-aware"), "upper-3d4f", 1000),
    (("win-target", "optimal"), "upper-3d4f", 2000),
    (("optimal", "win-target", "optimal"), "upper-3d4f", 1000),
    (("chase", "optimal"), "upper-3d4f", 2000),
    (("win-aware", "optimal"), "yahtzee-6box", 2000),
    (("win-target", "optimal", "optimal"), "yahtzee-6box", 1000),
    (("optimal", "chase", "win-aware"), "yahtzee-6box", 1000),
    (("win-aware", "optimal"), "small-limit-2", 2000),
    (("optimal", "win-target"), "small-limit-2", 2000),
    (("win-aware", "optimal"), "yahtzee", 300),
    (("optimal", "win-aware", "optimal"), "yahtzee", 200),
    (("win-aware", "chase"), "small-limit-2", 2000),
)


def digest(*arrays: np.ndarray) -> str:
    """SHA-256 of the arrays' bytes (little-endian, C order), one after the other."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.asarray(a)
        h.update(np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes())
    return h.hexdigest()


def small_limit_game() -> RuleSet:
    """``small-limit-2``: 2 three-sided dice, 2 rolls; Ones, Twos, Threes, Yahtzee (10),
    Chance; a Yahtzee bonus of 20 at most twice (the flag moves: ``tests/helpers.py``)."""
    from yahtzee_sim.game.rules import Box

    boxes = (
        Box("ones", "upper", param=1),
        Box("twos", "upper", param=2),
        Box("threes", "upper", param=3),
        Box("yahtzee", "yahtzee", points=10),
        Box("chance", "chance"),
    )
    return RuleSet(
        name="small-limit-2",
        n_dice=2,
        n_faces=3,
        rolls_per_turn=2,
        boxes=boxes,
        upper_bonus_threshold=6,
        upper_bonus=3,
        yahtzee_bonus=20,
        yahtzee_bonus_limit=2,
    )


def rules_named(name: str) -> RuleSet:
    return small_limit_game() if name == "small-limit-2" else get_rules(name)


def fill_states(rules: RuleSet, rng) -> np.ndarray:
    """Random states (mostly one per used-mask) and every upper total of a few used-masks,
    sorted, no full card (as ``tests/kernels/test_fill_kernels.py`` picks them)."""
    n = n_states(rules)
    picked = rng.integers(0, n, size=3000)
    all_used = np.asarray(decode_state(rules, np.arange(n))[0])
    whole = [np.flatnonzero(all_used == all_used[s]) for s in picked[:6]]
    states = np.unique(np.concatenate([picked, *whole]))
    return states[all_used[states] != (1 << rules.n_boxes) - 1]


def fill_inputs(name: str) -> tuple:
    """``(kr, lanes, used, upper, flag, rows, keep, cat)`` of :func:`fill_case`."""
    from yahtzee_sim._kernels.lanes import upper_total_lanes
    from yahtzee_sim._kernels.scoring import kernel_rules
    from yahtzee_sim.solving.solver import value_table

    rules = get_rules(name)
    lanes = upper_total_lanes(np.ascontiguousarray(value_table(rules).values))
    states = fill_states(rules, np.random.default_rng(53))
    used, upper, flag = (np.asarray(a, dtype=np.int64) for a in decode_state(rules, states))
    n, n_rolls, layers = len(states), rules.tables.n_rolls, max(rules.rolls_per_turn - 1, 1)
    rows = np.random.default_rng(1).permutation(n).astype(np.int64)
    keep = np.full((n, layers, n_rolls), -7, np.int16)
    cat = np.full((n, 1, n_rolls), -7, np.int8)
    return kernel_rules(rules), lanes, used, upper, flag, rows, keep, cat


def fill_case(name: str) -> str:
    """The digest of ``upper_lane_decisions`` over :func:`fill_inputs`."""
    from yahtzee_sim._core.upper_lane_fill import upper_lane_decisions

    args = fill_inputs(name)
    upper_lane_decisions(*args)
    return digest(args[6], args[7])


def need_inputs(name: str) -> tuple:
    """``(rules, kr, table, states, used, upper, flag, lane)``: a random need-lane table
    (rows of 6 lanes starting anywhere in 0..39) and one to three lanes of 150 reachable
    states, a fifth of them far past their row."""
    from yahtzee_sim._kernels.lanes import points_needed_lanes
    from yahtzee_sim._kernels.scoring import kernel_rules
    from yahtzee_sim.solving.solver import value_table

    rules = get_rules(name)
    rng = np.random.default_rng(3)
    size, width = n_states(rules), 6
    first = rng.integers(0, 40, size=size)
    table = points_needed_lanes(
        rng.random(size * width),
        np.arange(size, dtype=np.int64) * width,
        np.full(size, width, dtype=np.int64),
        first,
        top=1.0,
        bottom=0.0,
    )
    reachable = np.flatnonzero(value_table(rules).values > 0)
    states = np.sort(rng.choice(reachable, size=min(150, len(reachable)), replace=False))
    states = np.repeat(states, rng.integers(1, 4, size=len(states)))
    used, upper, flag = (np.asarray(a, dtype=np.int64) for a in decode_state(rules, states))
    lane = first[states] + rng.integers(-2, width + 2, size=len(states))
    lane += np.where(rng.random(len(states)) < 0.2, 40, 0)
    return rules, kernel_rules(rules), table, states, used, upper, flag, lane


def need_case(name: str) -> str:
    """The digest of ``need_lane_decisions`` over :func:`need_inputs`: every roll's
    decisions; then the first roll's keeps at every roll (some twice, shuffled) and the
    later rolls' decisions."""
    from yahtzee_sim._core.batched import (
        decision_buffers,
        lane_order,
        need_lane_decisions,
        read_decisions,
    )

    rules, kr, table, states, used, upper, flag, lane = need_inputs(name)
    layers, n_rolls = max(rules.rolls_per_turn - 1, 1), rules.tables.n_rolls
    order = lane_order(states)
    p = np.arange(len(states))
    none = np.zeros(0, dtype=np.int64)
    keep, cat = decision_buffers(threading.local(), len(states), rules)
    need_lane_decisions(kr, table, order, used, upper, flag, lane, none, none, keep, cat, none)
    out = [
        read_decisions(keep, cat, p, left, np.arange(n_rolls)[:, None])
        for left in range(layers + 1)
    ]
    rng = np.random.default_rng(5)
    per_row = np.tile(np.r_[np.arange(n_rolls), np.arange(0, n_rolls, 7)], (len(p), 1))
    per_row = rng.permuted(per_row, axis=1)
    first_ptr = np.arange(len(p) + 1, dtype=np.int64) * per_row.shape[1]
    first_keep = np.full(per_row.size, -1, dtype=np.int64)
    keep, cat = decision_buffers(threading.local(), len(states), rules)
    roll = per_row.ravel().astype(np.int64)
    need_lane_decisions(
        kr, table, order, used, upper, flag, lane, first_ptr, roll, keep, cat, first_keep
    )
    out.append(first_keep)
    if rules.rolls_per_turn >= 2:
        for left in range(layers):
            out.append(read_decisions(keep, cat, p, left, np.arange(n_rolls)[:, None]))
    return digest(*out)


def nodes_inputs(name: str, seed: int) -> tuple:
    """``(opponents, laws, normal, n_normal, n_quantiles)``: 400 games of one to three
    opponents still playing (random states, exact laws of at most 3 open boxes), some with
    finished opponents."""
    from scipy.special import ndtri

    from yahtzee_sim.exact.points_to_come import future_laws, future_moments

    rules = get_rules(name)
    laws, moments = future_laws(rules, 3), future_moments(rules)
    rng = np.random.default_rng(seed)
    m, k = 400, 3
    n_unf = rng.integers(0, k + 1, size=m).astype(np.int64)
    held = np.flatnonzero(laws.length > 1)
    any_state = np.flatnonzero(moments.sd > 0)
    ost = np.where(
        rng.random((m, k)) < 0.6, rng.choice(held, (m, k)), rng.choice(any_state, (m, k))
    )
    osc = rng.integers(0, 80, size=(m, k)).astype(np.int64)
    fin_ties = np.where(rng.random(m) < 0.4, rng.integers(1, 3, size=m), 0).astype(np.int64)
    fin_best = np.where(fin_ties > 0, rng.integers(20, 140, size=m), 0).astype(np.int64)
    n_unf[(n_unf == 0) & (fin_ties == 0)] = 1
    opponents = (fin_best, fin_ties, ost.astype(np.int64), osc, n_unf)
    n_normal, n_quantiles = 5, 7
    z = ndtri((np.arange(n_normal) + 0.5) / n_normal)
    normal = (moments.mean, moments.sd, z, np.full(n_normal, 1.0 / n_normal))
    laws_t = (laws.pool, laws.offset, laws.length, laws.support)
    return opponents, laws_t, normal, n_normal, n_quantiles


def nodes_case(name: str) -> str:
    """The digest of ``best_final_sizes`` and ``best_final_nodes`` over :func:`nodes_inputs`."""
    from yahtzee_sim._core.win_nodes import best_final_nodes, best_final_sizes

    opponents, laws, normal, n_normal, n_quantiles = nodes_inputs(name, 11)
    m = len(opponents[0])
    size = np.empty(m, dtype=np.int64)
    best_final_sizes(opponents, laws, n_normal, n_quantiles, size)
    ptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(size, out=ptr[1:])
    x, w, below = (np.zeros(int(ptr[-1])) for _ in range(3))
    count = np.empty(m, dtype=np.int64)
    best_final_nodes(opponents, laws, normal, (ptr, x, w, below, count))
    return digest(size, count, x, w, below)


def match_case(seats: tuple, name: str, games: int) -> str:
    from yahtzee_sim.multiplayer.matches import play_matches
    from yahtzee_sim.strategies import get_strategy

    players = [get_strategy(s) for s in seats]
    return digest(play_matches(players, rules_named(name), games, seed=17, progress=False))


def record() -> dict:
    """Every digest, by key."""
    out = {}
    for name in FILL_PRESETS:
        out[f"fill:{name}"] = fill_case(name)
        out[f"need:{name}"] = need_case(name)
        print(name, flush=True)
    for name in ("upper-3d4f", "yahtzee-6box"):
        out[f"nodes:{name}"] = nodes_case(name)
    for sid, name, games in SIMULATIONS:
        res = simulate(sid, games, seed=7, rules=rules_named(name), progress=False)
        out[f"simulate:{sid}|{name}"] = res.digest()
        print(sid, name, flush=True)
    for seats, name, games in MATCHES:
        out[f"match:{','.join(seats)}|{name}"] = match_case(seats, name, games)
        print(seats, name, flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
