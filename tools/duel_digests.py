"""Record the SHA-256 of what the decision fills and the duel's kernels give, which the
compiled core must keep bit for bit, into ``tests/golden/duel_digests.json``.

Usage::

    python tools/duel_digests.py [--out tests/golden/duel_digests.json]

What is recorded (each entry's key names it):

* ``fill_lanes|…``: max-EV decision tables (best keep per rerolls left and roll, best box
  per roll and rolls saved) from one widget run per ``(used, flag)`` over its upper totals:
  the optimal table's lanes on a sample of states of official Yahtzee, Yatzy and free-joker
  Yahtzee (upper totals between the sampled ones skipped), the exponential lanes of the
  risk table, forced order, and two small games with saved rolls;
* ``fill_states|…``: one lane per state, need lanes of a target table (2-Yatzy and
  upper-3d4f: every state at several needs; Yahtzee: a sample) and upper lanes;
* ``gather``, ``keep_codes``: the table read and the keep encoding on random input;
* ``position_values|…``: every keep's value and the best decisions at random positions;
* ``advice|…``: the advisor's options (values, keeps, boxes) at fixed positions;
* ``simulate|…``: simulations of table strategies whose fills run these kernels;
* ``duel|…``: two-player tables (values, and the stages' layout) with and without fixed
  policies, and ``mover|…``: the recorded widget run of an endgame's mover.

``tests/kernels/test_decisions_core.py`` and ``tests/multiplayer/test_duel_core.py`` check
that today's code gives the same bytes. Record again only on purpose (a deliberate change
of values), and say so in the commit.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "golden" / "duel_digests.json"


def digest(*arrays) -> str:
    """SHA-256 over the dtype, shape and bytes (C order) of each array."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def games() -> dict:
    """The rule sets of the decision digests, by name."""
    sys.path.insert(0, str(ROOT / "tests"))
    from yahtzee_sim.game.rules import get_rules

    from helpers import small_saved_game

    yahtzee = get_rules("yahtzee")
    return {
        "yahtzee": yahtzee,
        "yatzy": get_rules("yatzy"),
        "yahtzee-free-joker": get_rules("yahtzee-free-joker"),
        "yahtzee-forced": dataclasses.replace(yahtzee, name="yahtzee-forced", forced_order=True),
        "small-saved-5": small_saved_game(5),
        "small-saved-2-forced": dataclasses.replace(
            small_saved_game(2, forced=True), name="small-saved-2-forced"
        ),
        "2-yatzy": get_rules("2-yatzy"),
        "upper-3d4f": get_rules("upper-3d4f"),
    }


def sample_states(rules, n: int, seed: int) -> np.ndarray:
    """Up to ``n`` distinct turn-start states the game reaches, no roll saved, not every box
    filled (sorted; the empty score sheet first)."""
    from yahtzee_sim.game.state import decode_state, encode_state, n_states, saved_rolls_of

    rng = np.random.default_rng(seed)
    full = (1 << rules.n_boxes) - 1
    size = n_states(rules)
    drawn = rng.integers(0, size, 4 * n) if n < size else np.arange(size)
    drawn = drawn[saved_rolls_of(rules, drawn) == 0]
    used, upper, flag = decode_state(rules, drawn)
    y = rules.box_names.index("yahtzee") if "yahtzee" in rules.box_names else -1
    flag = np.where((y >= 0) & ((used >> max(y, 0)) & 1 == 1), flag, 0)
    keep = used != full
    states = encode_state(rules, used[keep], upper[keep], flag[keep])
    return np.unique(np.r_[0, states[: n - 1]]).astype(np.int64)


def lane_fill(rules, lanes, states: np.ndarray):
    """``(keep, cat)`` of ``states`` (sorted) by one widget run per ``(used, flag)`` over the
    span of its upper totals: ``fill_decisions``' path for saved rolls, forced order and
    exponential lanes, taken here for any game."""
    from yahtzee_sim.game.state import decode_state, upper_total_lanes_of
    from yahtzee_sim.solving import solver

    used, upper, flag = decode_state(rules, states)
    n, n_rolls = len(states), rules.tables.n_rolls
    keep = np.zeros((n, max(rules.max_rolls - 1, 1), n_rolls), np.int16)
    cat = np.zeros((n, rules.saved_size, n_rolls), np.int8)
    first, lo, nu, row0, lane = upper_total_lanes_of(used, upper, flag)
    lane_row = np.full(int(nu.sum()), -1, dtype=np.int64)
    lane_row[lane] = np.arange(n)
    kr = solver.kernel_rules(rules)
    u, f = np.asarray(used, np.int64)[first], np.asarray(flag, np.int64)[first]
    solver.fill_lanes(kr, lanes, u, lo, f, lo, nu, row0, lane_row, keep, cat)
    return keep, cat


def fill_lanes_digests(g: dict) -> dict:
    """``fill_lanes|…``: the optimal table's lanes, the risk table's, forced order, saved
    rolls."""
    from yahtzee_sim.game.state import n_states
    from yahtzee_sim.solving.risk import solve_risk
    from yahtzee_sim.solving.solver import max_ev_decisions, value_table

    out = {}
    for name in ("yahtzee", "yatzy", "yahtzee-free-joker"):
        rules = g[name]
        states = sample_states(rules, 3000, seed=len(name))
        lanes = value_table(rules).lanes()
        out[f"fill_lanes|{name}|optimal"] = digest(*lane_fill(rules, lanes, states))
        risk = solve_risk(rules, 0.02)
        out[f"fill_lanes|{name}|risk"] = digest(*max_ev_decisions(rules, risk.lanes(), states))
    for name in ("yahtzee-forced", "small-saved-5", "small-saved-2-forced"):
        rules = g[name]
        table = value_table(rules)
        if rules.saved_size == 1:
            states = sample_states(rules, 3000, seed=3)
            got = max_ev_decisions(rules, table.lanes(), states)
            out[f"fill_lanes|{name}|optimal"] = digest(*got)
        else:  # every state the game reaches, no roll saved
            states = sample_states(rules, n_states(rules), seed=3)
            out[f"fill_lanes|{name}|optimal"] = digest(*lane_fill(rules, table.lanes(), states))
    return out


#: β cap of the official-Yahtzee target table whose need lanes ``fill_states`` reads (the
#: suite shares one solve of it with ``tests/kernels/test_core_solve.py``).
YAHTZEE_TARGET_CAP = 20


def fill_states_digests(g: dict) -> dict:
    """``fill_states|…``: need lanes of target tables, upper lanes of value tables."""
    from yahtzee_sim._kernels.lanes import points_needed_lanes
    from yahtzee_sim.game.state import decode_state, n_states
    from yahtzee_sim.solving import target
    from yahtzee_sim.solving.solver import value_table

    out = {}
    cases = (
        ("2-yatzy", None, None),
        ("upper-3d4f", None, None),
        ("yahtzee", YAHTZEE_TARGET_CAP, 800),
    )
    for name, beta, n in cases:
        rules = g[name]
        table = target.target_table(rules, beta)
        lanes = points_needed_lanes(table.probs, table.offset, table.length)
        if n is None:
            states = np.arange(n_states(rules), dtype=np.int64)
        else:
            states = sample_states(rules, n, seed=7)
        states = states[decode_state(rules, states)[0] != (1 << rules.n_boxes) - 1]
        rng = np.random.default_rng(11)
        for k in range(3):  # the same states at three needs each
            length = np.maximum(table.length[states], 1)
            need = rng.integers(0, length + 2) if k else np.zeros(len(states), np.int64)
            out[f"fill_states|{name}|need{k}"] = digest(*_fill_one_lane(rules, lanes, states, need))
        upper = decode_state(rules, states)[1]
        out[f"fill_states|{name}|upper"] = digest(
            *_fill_one_lane(rules, value_table(rules).lanes(), states, upper)
        )
    return out


def _fill_one_lane(rules, lanes, states, lane):
    from yahtzee_sim.game.state import decode_state
    from yahtzee_sim.solving import target

    used, upper, flag = (np.ascontiguousarray(a, np.int64) for a in decode_state(rules, states))
    n, n_rolls = len(states), rules.tables.n_rolls
    keep = np.zeros((n, max(rules.rolls_per_turn - 1, 1), n_rolls), np.int16)
    cat = np.zeros((n, 1, n_rolls), np.int8)
    slots = np.random.default_rng(n).permutation(n)
    lane = np.ascontiguousarray(lane, np.int64)
    target.fill_states(target.kernel_rules(rules), lanes, used, upper, flag, lane, slots, keep, cat)
    return keep, cat


def table_read_digests(g: dict) -> dict:
    """``gather`` (decision tables read at states and rolls) and ``keep_codes`` (keeps as
    face counts encoded, a bad row found)."""
    from yahtzee_sim.engine import decision_cache
    from yahtzee_sim.exact import decision_tables

    rng = np.random.default_rng(5)
    out = {}
    for dtype in (np.int16, np.int8):
        table = rng.integers(-100, 100, (500, 3, 252)).astype(dtype)
        slot = rng.permutation(2000)[:1000].astype(np.int32) % 500
        states = rng.integers(0, 1000, 5000)
        rolls = rng.integers(0, 252, 5000)
        got = [decision_cache.gather_decisions(slot, states, rolls, table, k) for k in range(3)]
        out[f"gather|{np.dtype(dtype).name}"] = digest(*got)
    for name in ("yahtzee", "small-saved-5", "upper-3d4f"):
        rules = g[name]
        t = rules.tables
        kr = decision_tables.kernel_rules(rules)
        dice = t.roll_counts[rng.integers(0, t.n_rolls, 3000)].astype(np.int64)
        keeps = (dice * rng.random(dice.shape) + 0.5).astype(np.int64)  # a sub-multiset
        codes = np.full(len(keeps), -7, dtype=np.int64)
        first = decision_tables.keep_codes(kr, keeps, dice, codes)
        bad = keeps.copy()
        bad[1234, 0] = dice[1234, 0] + 1
        codes_bad = np.full(len(keeps), -7, dtype=np.int64)
        second = decision_tables.keep_codes(kr, bad, dice, codes_bad)
        out[f"keep_codes|{name}"] = digest(np.array([first, second]), codes, codes_bad)
    return out


def position_values_digests(g: dict) -> dict:
    """``position_values|…``: every keep's value and the best decisions at random states."""
    from yahtzee_sim.game.state import decode_state
    from yahtzee_sim.solving import advisor
    from yahtzee_sim.solving.solver import value_table

    out = {}
    for name in ("yahtzee", "yatzy", "yahtzee-free-joker", "small-saved-5", "small-saved-2-forced"):
        rules = g[name]
        table = value_table(rules)
        lanes, kr = table.lanes(), advisor.kernel_rules(rules)
        states = sample_states(rules, 150, seed=13)
        got = []
        for u, up, f in zip(*decode_state(rules, states), strict=True):
            got.extend(advisor.position_values(kr, lanes, int(u), int(up), int(f)))
        out[f"position_values|{name}"] = digest(*got)
    return out


#: Advisor positions: (rules, dice, rolls left, used boxes, upper total, flag, saved rolls).
ADVICE = (
    ("yahtzee", (1, 3, 5, 5, 6), 2, (), 0, False, 0),
    ("yahtzee", (6, 6, 6, 2, 2), 1, ("sixes", "yahtzee"), 30, True, 0),
    ("yahtzee", (6, 6, 6, 6, 6), 0, ("sixes", "yahtzee"), 30, True, 0),
    ("yatzy", (2, 2, 3, 4, 5), 1, ("ones", "twos", "chance"), 5, False, 0),
    ("yahtzee-free-joker", (4, 4, 4, 4, 4), 0, ("yahtzee", "fours"), 12, True, 0),
    ("small-saved-5", (1, 2, 3), 1, ("ones",), 1, False, 0),
    ("small-saved-5", (3, 3, 3), 0, ("ones", "all"), 1, False, 3),
)


def advice_digests(g: dict) -> dict:
    """``advice|…``: the advisor's options at :data:`ADVICE`."""
    from yahtzee_sim.solving.advice import answer
    from yahtzee_sim.solving.advisor import AdvisorPosition

    out = {}
    for k, (name, dice, left, used, upper, flag, saved) in enumerate(ADVICE):
        pos = AdvisorPosition(dice, left, used, upper, flag, g[name], saved_rolls=saved)
        options = [o.to_dict() for o in answer(pos).options]
        text = json.dumps(options, sort_keys=True, default=repr).encode()
        out[f"advice|{k}|{name}"] = hashlib.sha256(text).hexdigest()
    return out


#: Simulations: (strategy, rules, games).
SIMULATIONS = (
    ("optimal", "small-saved-5", 3000),
    ("optimal", "small-saved-2-forced", 3000),
    ("optimal", "yahtzee-forced", 2000),
    ("risk", "yahtzee", 2000),
    ("optimal", "yatzy", 2000),
)


def simulate_digests(g: dict) -> dict:
    """``simulate|…``: games of table strategies (their fills run these kernels)."""
    from yahtzee_sim import simulate

    out = {}
    for sid, name, n in SIMULATIONS:
        res = simulate(sid, n, seed=2024, rules=g[name], progress=False)
        out[f"simulate|{sid}|{name}"] = res.digest()
    return out


def tiny_duel_game():
    """The brute-forced game of ``tests/multiplayer/test_duel.py``."""
    from yahtzee_sim.game.rules import Box, RuleSet

    boxes = (
        Box("ones", "upper", param=1),
        Box("threes", "upper", param=3),
        Box("pair", "yahtzee", points=5),
    )
    return RuleSet(
        name="tiny-duel", n_dice=2, n_faces=3, rolls_per_turn=2, boxes=boxes,
        upper_bonus_threshold=4, upper_bonus=3,
    )  # fmt: skip


#: Two-player tables: (rules, sheets or None, policies).
DUELS = (
    ("tiny-duel", None, (None, None)),
    ("tiny-duel", None, ("optimal", None)),
    ("tiny-duel", None, (None, "optimal")),
    ("tiny-duel", None, ("greedy", "optimal")),
    ("tiny-duel", ("ones=2", "threes=3"), (None, None)),
    ("2-yatzy", None, (None, None)),
    ("2-yatzy", None, ("optimal", None)),
    ("upper-3d4f", None, (None, None)),
    ("upper-3d4f", None, (None, "optimal")),
    ("yahtzee", ("ones=3, twos=6, threes=9, fours=12, fives=15, sixes=18, "
                 "three_of_a_kind=20, four_of_a_kind=0, full_house=25, small_straight=30, "
                 "large_straight=40",
                 "ones=2, twos=4, threes=9, fours=12, fives=20, sixes=18, yahtzee=50, "
                 "four_of_a_kind=24, full_house=25, small_straight=30, chance=22"), (None, None)),
    ("yatzy", ("ones=3, twos=6, threes=9, fours=12, fives=15, sixes=18, one_pair=12, "
               "two_pairs=22, three_of_a_kind=15, four_of_a_kind=20, small_straight=15, "
               "large_straight=20, chance=25",
               "ones=2, twos=4, threes=9, fours=12, fives=20, one_pair=10, two_pairs=18, "
               "three_of_a_kind=18, four_of_a_kind=0, small_straight=15, large_straight=20, "
               "yatzy=50"), (None, None)),
)  # fmt: skip

#: Endgame moves (a DUELS entry, the mover's dice, rerolls left).
MOVES = ((4, (3, 3), 0), (4, (1, 3), 1), (9, (6, 6, 6, 6, 6), 0), (9, (1, 2, 3, 4, 6), 2),
         (9, (5, 5, 5, 2, 6), 1), (10, (2, 2, 3, 3, 6), 1), (10, (6, 6, 6, 6, 6), 0))  # fmt: skip


def duel_digests() -> dict:
    """``duel|…``: two-player tables (values and stage layout); ``mover|…``: the mover's
    recorded widget run at an endgame (:data:`MOVES`)."""
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.multiplayer import duel

    out, tables = {}, []
    for k, (name, sheets, policies) in enumerate(DUELS):
        rules = tiny_duel_game() if name == "tiny-duel" else get_rules(name)
        table = duel.solve_duel(rules, sheets, policies=policies)
        layout = [np.r_[s.movers, s.waiters, s.m_mr, s.w_mr, s.offset] for s in table.stages]
        out[f"duel|{k}|{name}"] = digest(np.asarray(table.values), *layout)
        tables.append((rules, sheets, table))
    for k, (which, dice, left) in enumerate(MOVES):
        rules, sheets, table = tables[which]
        out[f"mover|{k}|{rules.name}"] = digest(*_mover_run(table, sheets))
        res = duel.duel(sheets, rules, dice=list(dice), rolls_left=left)
        text = json.dumps({**res.to_dict(), "seconds": 0}, sort_keys=True, default=repr)
        out[f"move|{k}|{rules.name}"] = hashlib.sha256(text.encode()).hexdigest()
    return out


def _mover_run(table, sheets):
    """The mover's turn at the table's start as the kernel records it: the state's value,
    best boxes, best keeps, keep values and roll values."""
    from yahtzee_sim.multiplayer import duel
    from yahtzee_sim.multiplayer.win_probability import ScoreSheet, to_move

    rules = table.rules
    sheets = [ScoreSheet.parse(s, rules) for s in sheets]
    seat = to_move(sheets)
    st, nxt = table.stages[0], table.stages[1]
    lane = table.d + sheets[1 - seat].score - sheets[seat].score
    W, cat, keep, keep_vals, roll_vals = duel.mover_turn(
        duel.kernel_rules(rules), table.values, table.d, int(st.movers[0]), int(st.m_mr[0]),
        int(st.w_mr[0]), nxt.offset, 1, 0, nxt.waiters, nxt.w_mr, lane,
    )  # fmt: skip
    return W[0], cat, keep, keep_vals, roll_vals


def record() -> dict:
    """Every digest, by key."""
    import yahtzee_sim.engine.decision_cache
    import yahtzee_sim.exact.decision_tables
    import yahtzee_sim.multiplayer.duel
    import yahtzee_sim.solving.advice
    import yahtzee_sim.solving.solver
    import yahtzee_sim.solving.target  # noqa: F401 (every kernel's caller imported up front)

    g = games()
    out = {}
    for part in (
        fill_lanes_digests, fill_states_digests, table_read_digests, position_values_digests,
        advice_digests, simulate_digests,
    ):  # fmt: skip
        got = part(g)
        print(part.__name__, len(got), flush=True)
        out.update(got)
    got = duel_digests()
    print("duel_digests", len(got), flush=True)
    out.update(got)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
