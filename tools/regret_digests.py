"""Record the SHA-256 of the regret analysis's outputs that the compiled core must keep bit
for bit, into ``tests/golden/regret_digests.json``.

Usage::

    python tools/regret_digests.py [--out tests/golden/regret_digests.json]

What is recorded, each as the digest of float64 arrays (:func:`digest`):

* ``regrets``: whole regret runs (:func:`~yahtzee_sim.analysis.decisions.regret.regret`)
  of :data:`REGRETS` — the optimum, the strategy's mean, the total, the losses by
  decision, turn and box, and the costliest situations; on games with saved rolls
  (``small-saved:CAP[:ORDER[:DICE]]``) also every chunk's charges of the forward pass
  (:func:`~yahtzee_sim.exact.saved_forward.saved_forward`: positions, reach, losses,
  costliest decisions, box losses, points) and its reach total;
* ``levels``: the regret charges of the first levels of a full-size game (:data:`LEVELS`,
  :class:`~yahtzee_sim.analysis.decisions.regret.RegretAccumulator` over a forward pass
  stopped after ``turns`` levels), every costliest situation kept;
* ``random``: the charges of random decisions (valid keeps, open boxes) at random
  turn-start states (:data:`RANDOM`, fixed seeds), with random reach — on games with
  saved rolls, random decisions at the positions of a level
  (:func:`~yahtzee_sim.exact.saved_forward.chunk_charges`).

``tests/analysis/test_regret_core.py`` checks that today's code gives the same bytes.
Record again only on purpose (a deliberate change of values), and say so in the commit.
The ``yahtzee-single-bonus`` entries were recorded again when a bonus Yahtzee's box loss
under a bonus limit came to be valued at the next flag, as the widget values it (the numba
kernels read the values of the flag before the bonus).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.analysis.decisions.regret import RegretAccumulator, regret
from yahtzee_sim.exact.forward import forward_pass
from yahtzee_sim.exact.laws import prepared
from yahtzee_sim.exact.saved_forward import chunk_charges, saved_forward
from yahtzee_sim.exact.saved_moments import level_positions
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import compact_states, decode_state, n_states
from yahtzee_sim.solving.levels import levels
from yahtzee_sim.solving.solver import value_table

TESTS = Path(__file__).resolve().parents[1] / "tests"
OUT = TESTS / "golden" / "regret_digests.json"
#: ``(preset, strategy)`` of the whole regret runs: fixed and saved rolls, forced order.
#: ``stopper``: greedy that stops early on a pair (the tests' ``EagerStopper``).
REGRETS = (
    ("2-yatzy", "optimal"),
    ("2-yatzy", "greedy"),
    ("2-yatzy@3", "greedy"),
    ("upper-3d4f", "greedy"),
    ("yahtzee-6box", "optimal"),
    ("yahtzee-6box", "greedy"),
    ("yahtzee-6box+forced", "greedy"),
    ("small-saved:1", "greedy"),
    ("small-saved:5", "optimal"),
    ("small-saved:5", "greedy"),
    ("small-saved:3:forced:4", "greedy"),
    ("small-saved:2:free:4", "greedy"),
    ("small-saved:2:free:4", "stopper"),
)
#: ``(preset, strategy, turns)``: the charges of the first ``turns`` levels.
LEVELS = (
    ("yahtzee", "optimal", 3),
    ("yahtzee", "greedy", 3),
    ("yahtzee", "prioritize-upper", 3),
    ("yahtzee-free-joker", "greedy", 3),
    ("yahtzee-no-joker", "greedy", 3),
    ("yahtzee-single-bonus", "greedy", 3),
    ("yatzy", "greedy", 3),
    ("yahtzee+forced", "greedy", 6),
)
#: ``(preset, states or level, seed)``: random decisions at that many random states (fixed
#: rolls) or at the positions of that level (saved rolls; ``maxi-yatzy+forced+cap2``: pieces
#: of a full-size game, whose table takes some seconds to solve).
RANDOM = (
    ("yahtzee", 1000, 1),
    ("yahtzee-free-joker", 1000, 2),
    ("yahtzee-no-joker", 1000, 3),
    ("yahtzee-single-bonus", 1000, 4),
    ("yatzy", 1000, 5),
    ("yahtzee+forced", 1000, 6),
    ("2-yatzy@3", 400, 7),
    ("small-saved:5", 2, 8),
    ("small-saved:3:forced:4", 3, 9),
    ("small-saved:2:free:4", 1, 10),
    ("small-saved:2:free:4", 4, 11),
    ("maxi-yatzy+forced+cap2", 1, 12),
    ("maxi-yatzy+forced+cap2", 6, 13),
)


def digest(values) -> str:
    """SHA-256 of an array's bytes as float64 (little-endian, C order)."""
    return hashlib.sha256(np.ascontiguousarray(values, dtype="<f8").tobytes()).hexdigest()


def game(name: str):
    """The rules of a recorded preset: ``small-saved:CAP:ORDER:DICE`` is the tests' small
    game with saved rolls (``tests/helpers.py``: ``small_saved_game``; ``ORDER`` ``forced``
    or ``free``), any other name a preset."""
    if not name.startswith("small-saved:"):
        return get_rules(name)
    sys.path.insert(0, str(TESTS))
    from helpers import small_saved_game

    parts = name.split(":")[1:]
    cap, order, dice = parts + ["0", "free", "3"][len(parts) :]
    return small_saved_game(int(cap), order == "forced", int(dice))


def strategy_of(name: str):
    """A strategy id, or ``stopper`` (the tests' ``EagerStopper``)."""
    if name != "stopper":
        return name
    sys.path.insert(0, str(TESTS / "analysis"))
    from test_saved_regret import EagerStopper

    return EagerStopper()


def situations_array(situations) -> np.ndarray:
    """The costliest situations' numbers, and their text as character codes."""
    numbers = situations.select_dtypes("number").to_numpy(dtype=float).ravel()
    text = situations.select_dtypes(exclude="number").astype(str).to_numpy().ravel()
    codes = np.frombuffer("\n".join(text).encode(), dtype=np.uint8)
    return np.concatenate([numbers, codes.astype(float)])


def charges_arrays(charges) -> list[np.ndarray]:
    """Every array of a chunk's :class:`~yahtzee_sim.exact.saved_forward.LevelCharges`."""
    c = charges
    parts = ([c.turn], c.positions, c.reach, c.loss, c.top_f, c.top_i, c.by_cat, c.points)
    return [np.asarray(a, dtype=float).ravel() for a in parts]


def regret_digests(preset: str, strategy: str) -> dict[str, str]:
    """The digests of one whole regret run (and its forward pass's charges, saved rolls)."""
    rules = game(preset)
    res = regret(strategy_of(strategy), rules, top=12)
    head = [res.optimal_value, res.strategy_value, res.total]
    series = [res.by_decision.to_numpy(), res.by_turn.to_numpy(), res.by_box.to_numpy()]
    out = {
        "result": digest(np.concatenate([head, *series])),
        "situations": digest(situations_array(res.situations)),
    }
    if compact_states(rules):
        parts: list[np.ndarray] = []
        strat, rules = prepared(strategy_of(strategy), rules, moments_only=True)
        fw = saved_forward(strat, rules, lambda c: parts.extend(charges_arrays(c)))
        out["charges"] = digest(np.concatenate([*parts, [fw.mean, fw.total, fw.n_positions]]))
    return out


def accumulated(acc) -> np.ndarray:
    """The charges an accumulator kept: by type, turn and box, and every candidate."""
    cands = np.array(sorted(acc.cands), dtype=float).ravel()
    return np.concatenate([acc.by_layer, acc.by_turn, acc.by_cat, cands])


def level_digest(preset: str, strategy: str, turns: int) -> str:
    """The digest of the regret charges of the first ``turns`` levels."""
    strat, rules = prepared(strategy, preset)
    acc = RegretAccumulator(rules, 10**9)
    forward_pass(strat, rules, False, acc, turns=turns)
    return digest(accumulated(acc))


def random_keeps(rules, rng, n: int, layers: int) -> np.ndarray:
    """``(n, layers, n_rolls)`` int16: a random sub-keep of every roll."""
    kr = kernel_rules(rules)
    lo = np.asarray(kr.roll_keep_ptr[:-1], dtype=np.int64)
    width = np.asarray(kr.roll_keep_ptr[1:], dtype=np.int64) - lo
    pick = lo + (rng.random((n, layers, len(lo))) * width).astype(np.int64)
    return np.asarray(kr.roll_keep_keep)[pick].astype(np.int16)


def random_boxes(rules, rng, used: np.ndarray, n_rolls: int, banks: int = 0) -> np.ndarray:
    """int8 ``(n, n_rolls)`` (``banks``: ``(n, banks, n_rolls)``): a random open box of
    every state's sheet per roll (under forced order the first open one)."""
    C = rules.n_boxes
    free = ((used[:, None] >> np.arange(C)) & 1) == 0
    if rules.forced_order:
        free &= np.cumsum(free, axis=1) == 1
    shape = (len(used), max(banks, 1), n_rolls)
    score = rng.random((*shape, C)) + free[:, None, None, :]
    cat = score.argmax(axis=3).astype(np.int8)
    return cat if banks else cat[:, 0]


def random_digest(preset: str, size: int, seed: int) -> str:
    """The digest of random decisions' charges (:data:`RANDOM`)."""
    rules = game(preset)
    rng = np.random.default_rng(seed)
    if compact_states(rules):
        return saved_random_digest(rules, size, rng)
    full = (1 << rules.n_boxes) - 1
    s = np.unique(rng.integers(0, n_states(rules), 4 * size))
    s = s[decode_state(rules, s)[0] != full][:size].astype(np.int64)
    used = decode_state(rules, s)[0]
    n_rolls = rules.tables.n_rolls
    keep = random_keeps(rules, rng, len(s), max(rules.rolls_per_turn - 1, 1))
    cat = random_boxes(rules, rng, used, n_rolls)
    acc = RegretAccumulator(rules, 10**9)
    acc(0, s, keep, cat, rng.random(n_states(rules)))
    return digest(accumulated(acc))


def saved_random_digest(rules, k: int, rng) -> str:
    """Random decisions at every position of level ``k`` of a game with saved rolls."""
    from yahtzee_sim.exact.saved_moments import bank_count, reroll_layers
    from yahtzee_sim.game.state import state_layout

    pos = level_positions(rules, levels(rules.n_boxes, rules.forced_order)[::-1][k])
    n_saved = int(state_layout(rules).saved_count[k])
    layers = reroll_layers(rules, k)
    keep = random_keeps(rules, rng, len(pos), layers)
    cat = random_boxes(rules, rng, pos[:, 0], rules.tables.n_rolls, bank_count(rules, layers))
    reach_in = rng.random((len(pos), n_saved)) * (rng.random((len(pos), 1)) < 0.8)
    live = reach_in.any(axis=1)
    pos, reach_in, keep, cat = pos[live], reach_in[live], keep[live], cat[live]
    charges, nxt = chunk_charges(rules, value_table(rules).lanes(), k, pos, reach_in, keep, cat)
    n = nxt[2]
    rows = [np.concatenate([nxt[0][i, : n[i]], nxt[1][i, : n[i]]]) for i in range(len(n))]
    return digest(np.concatenate([*charges_arrays(charges), n, *rows]))


def record() -> dict:
    """Every digest: ``regrets``, ``levels`` and ``random``, by key."""
    out: dict[str, dict] = {"regrets": {}, "levels": {}, "random": {}}
    for preset, strategy in REGRETS:
        key = f"{preset}/{strategy}"
        out["regrets"][key] = regret_digests(preset, strategy)
        print(key, out["regrets"][key]["result"][:12], flush=True)
    for preset, strategy, turns in LEVELS:
        key = f"{preset}/{strategy}/{turns}"
        out["levels"][key] = level_digest(preset, strategy, turns)
        print(key, out["levels"][key][:12], flush=True)
    for preset, size, seed in RANDOM:
        key = f"{preset}/{size}/{seed}"
        out["random"][key] = random_digest(preset, size, seed)
        print(key, out["random"][key][:12], flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
