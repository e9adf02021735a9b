"""Record the SHA-256 of what the greedy and random strategies, the learning encoding and
the card search compute, into ``tests/golden/strat1_digests.json``: the outputs their
compiled kernels must keep bit for bit (recorded with the numba kernels before the port).

Usage::

    python tools/strat1_digests.py [--out tests/golden/strat1_digests.json]

What is recorded (each entry's key names what it holds):

* ``greedy_states|RULES|VARIANT``: greedy's keep and box at every roll
  (:meth:`~yahtzee_sim.strategies.greedy.Greedy.decision_table`) of every state of the
  small presets and of :data:`N_SAMPLED` sampled states of the others;
* ``greedy_positions|RULES|VARIANT``: the same through the positions protocol
  (:meth:`~yahtzee_sim.strategies.greedy.Greedy.saved_decision_table`) over runs of one
  used-mask and flag, every upper total;
* ``simulate|RULES|STRATEGY|SEED``: the digest of simulated games
  (:meth:`~yahtzee_sim.engine.results.Results.digest`), free and forced order, joker
  variants, saved rolls (Maxi Yatzy);
* ``random_keep|...``/``random_box|...``: the random strategies' kernels on sampled dice,
  positions, games and keys;
* ``masks|RULES``, ``legal|RULES``, ``box_points|RULES``: the learning encoding
  (:mod:`yahtzee_sim.engine.observation`) over sampled positions;
* ``pair_gains|P,L,A,CHUNKS``, ``option_values|N``, ``distill|RULES|SEED``: the card
  search (:mod:`yahtzee_sim.analysis.decisions.card_search`).

``tests/strategies/test_strat1_core.py`` checks that today's code gives the same bytes.
Record again only on purpose (a deliberate change of values), and say so in the commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

from yahtzee_sim import simulate
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import flag_size, n_states

OUT = Path(__file__).resolve().parents[1] / "tests" / "golden" / "strat1_digests.json"
#: Presets whose every state is recorded.
ALL_STATES = ("2-yatzy", "upper-3d4f", "yahtzee-6box", "yatzy-no-bonus")
#: Presets of which :data:`N_SAMPLED` states are recorded.
SAMPLED = (
    "yahtzee",
    "yahtzee-free-joker",
    "yahtzee-no-joker",
    "yahtzee-single-bonus",
    "yacht",
    "yatzy",
    "yahtzee+forced",
    "yatzy+forced",
    "maxi-yatzy-3",
)
N_SAMPLED = 400
#: Presets of the positions protocol (Maxi Yatzy: saved rolls).
POSITIONS = ("2-yatzy", "upper-3d4f", "yahtzee", "yatzy", "yahtzee+forced", "maxi-yatzy")
#: Presets simulated, and the games played on each.
SIMULATED = {
    "2-yatzy": 3000,
    "upper-3d4f": 3000,
    "yahtzee": 3000,
    "yahtzee-free-joker": 2000,
    "yahtzee-single-bonus": 2000,
    "yacht": 2000,
    "yatzy": 2000,
    "yahtzee+forced": 2000,
    "yatzy+forced": 2000,
    "maxi-yatzy": 200,
}
SEEDS = (7, 2026)
#: Presets of the learning encoding's records.
ENCODED = ("2-yatzy", "upper-3d4f", "yahtzee", "yahtzee-free-joker", "yatzy", "yahtzee+forced",
           "maxi-yatzy")  # fmt: skip
N_POSITIONS = 3000


def digest(*arrays: np.ndarray) -> str:
    """SHA-256 of arrays' dtypes, shapes and bytes (little-endian, C order)."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.asarray(a)
        a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def greedy_variants(rules) -> dict:
    """Greedy's parameters recorded on ``rules``: the default, the Yahtzee bonus in keep
    values, and (where there is a Chance box) another tie-break."""
    from yahtzee_sim.strategies.greedy import Greedy

    out = {"default": Greedy(), "ybonus": Greedy(yahtzee_bonus_in_value=True)}
    if "chance" in rules.box_names:
        out["chance-first"] = Greedy(tie_break=("chance",))
    return out


def state_sample(rules) -> np.ndarray:
    """Every state of the small presets; state 0 and :data:`N_SAMPLED` others elsewhere."""
    n = n_states(rules)
    if rules.name in ALL_STATES:
        return np.arange(n, dtype=np.int64)
    rng = np.random.default_rng(n)
    return np.r_[0, np.sort(rng.choice(n, N_SAMPLED, replace=False))].astype(np.int64)


def position_sample(rules, n_runs: int = 24) -> np.ndarray:
    """Runs of positions ``(used, upper, flag)``: sampled used-masks and flags (never every
    box filled), every upper total of each, in the order of the protocol."""
    rng = np.random.default_rng(rules.n_boxes)
    full = (1 << rules.n_boxes) - 1
    used = np.r_[0, rng.integers(0, full, n_runs - 1)]
    flags = rng.integers(0, flag_size(rules), n_runs)
    runs = sorted(zip(used, flags, strict=True))
    rows = [(u, t, f) for u, f in runs for t in range(rules.upper_cap + 1)]
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def greedy_states(name: str) -> dict:
    """Greedy's decision tables of the sampled states of preset ``name``, by variant."""
    rules = get_rules(name)
    states = state_sample(rules)
    out = {}
    for label, strategy in greedy_variants(rules).items():
        keep, cat = strategy.decision_table(rules, states)
        out[f"greedy_states|{name}|{label}"] = digest(keep, cat)
    return out


def greedy_positions(name: str) -> dict:
    """Greedy's decision tables of the sampled positions of preset ``name``, by variant."""
    rules = get_rules(name)
    pos = position_sample(rules)
    out = {}
    for label, strategy in greedy_variants(rules).items():
        keep, cat = strategy.saved_decision_table(rules, pos, 2, 1)
        out[f"greedy_positions|{name}|{label}"] = digest(keep, cat)
    return out


def simulations(name: str) -> dict:
    """Games of greedy (two variants), random and tiered-random on preset ``name``."""
    from yahtzee_sim.strategies.greedy import Greedy

    players = {
        "greedy": "greedy",
        "greedy:ybonus": Greedy(yahtzee_bonus_in_value=True),
        "random": "random",
        "tiered-random": "tiered-random",
    }
    out = {}
    for label, strategy in players.items():
        for seed in SEEDS:
            res = simulate(strategy, SIMULATED[name], seed=seed, rules=name, progress=False)
            out[f"simulate|{name}|{label}|{seed}"] = res.digest()
    return out


def random_inputs(rules, n: int, seed: int) -> dict:
    """Sampled positions of ``rules``: rolls (and their dice), used-masks (never every box
    filled), flags, game ids, keys and counters."""
    rng = np.random.default_rng(seed)
    t = rules.tables
    roll = rng.integers(0, t.n_rolls, n).astype(np.int64)
    return {
        "roll": roll,
        "dice": np.ascontiguousarray(t.roll_counts[roll]),
        "used": rng.integers(0, (1 << rules.n_boxes) - 1, n).astype(np.int64),
        "flag": rng.integers(0, flag_size(rules), n).astype(np.int64),
        "games": rng.integers(0, 1 << 40, n).astype(np.int64),
        "keys": tuple(np.uint64(k) for k in rng.integers(0, 2**63, 2, dtype=np.uint64)),
        "base": int(rng.integers(0, 1 << 20)),
    }


def random_kernels(name: str) -> dict:
    """The random strategies' kernels on sampled inputs of preset ``name``."""
    from yahtzee_sim._kernels.scoring import kernel_rules
    from yahtzee_sim.strategies.random import random_box, random_keep

    rules = get_rules(name)
    out = {}
    for seed in SEEDS:
        x = random_inputs(rules, N_POSITIONS, seed)
        k0, k1 = x["keys"]
        for tiered in (False, True):
            keep = random_keep(x["dice"], x["games"], k0, k1, x["base"], tiered)
            out[f"random_keep|{name}|{seed}|{tiered}"] = digest(keep)
        box = random_box(
            kernel_rules(rules), x["roll"], x["used"], x["flag"], x["games"], k0, k1, x["base"]
        )
        out[f"random_box|{name}|{seed}"] = digest(box)
    return out


def encoding(name: str) -> dict:
    """Action masks, a random agent's actions and box points over sampled positions of
    preset ``name``."""
    from yahtzee_sim.engine.observation import (
        action_masks,
        box_points,
        observe,
        random_legal_actions,
    )

    rules = get_rules(name)
    x = random_inputs(rules, N_POSITIONS, 11)
    rng = np.random.default_rng(12)
    rolls_left = rng.integers(0, rules.max_rolls, N_POSITIONS)
    mask = action_masks(rules, x["roll"], rolls_left, x["used"], x["flag"])
    upper = rng.integers(0, 64, N_POSITIONS)
    obs = observe(rules, x["dice"], 0, x["used"], upper, x["flag"], 0)
    return {
        f"masks|{name}": digest(mask),
        f"legal|{name}": digest(random_legal_actions(mask, np.random.default_rng(13))),
        f"box_points|{name}": digest(box_points(rules, obs)),
    }


#: Sections of the pair search: decisions, conditions, moves, chunks.
PAIR_SHAPES = ((60, 5, 3, 4), (500, 17, 4, 4), (500, 17, 4, 1), (2000, 40, 13, 4), (7, 9, 2, 4))
OPTION_SIZES = (1, 50, 3000)
#: Card searches: rules, seed, most rules, games.
SEARCHES = (("2-yatzy", 3, 6, 400), ("2-yatzy", 5, 4, 300), ("yahtzee", 1, 3, 150))


def pair_inputs(P: int, L: int, A: int) -> tuple:
    """Sampled conditions, allowed conditions, gains and bottom rows of a section."""
    rng = np.random.default_rng(P * L * A)
    X = rng.random((P, L)) < 0.4
    allowed = rng.random(L) < 0.8
    gain = rng.normal(size=(P, A))
    gain[rng.random((P, A)) < 0.2] = 0.0
    bottom = rng.random(P) < 0.4
    return X, allowed, gain, bottom


def option_inputs(n: int) -> tuple:
    """Sampled graded options (CSR ``ptr``, ``acts``, ``vals``), rows and moves."""
    rng = np.random.default_rng(n)
    counts = rng.integers(0, 6, n)
    ptr = np.r_[0, np.cumsum(counts)].astype(np.int64)
    acts = rng.integers(0, 10, ptr[-1]).astype(np.int64)
    vals = rng.normal(size=ptr[-1])
    rows = rng.integers(0, n, n // 2).astype(np.int64)
    actions = rng.integers(0, 10, (len(rows), 4)).astype(np.int64)
    return ptr, acts, vals, rows, actions


def card_search_kernels() -> dict:
    """The pair search on sampled sections and the option lookup."""
    from yahtzee_sim.analysis.decisions import card_search

    out = {}
    for P, L, A, chunks in PAIR_SHAPES:
        G = card_search.pair_gains(*pair_inputs(P, L, A), chunks)
        out[f"pair_gains|{P},{L},{A},{chunks}"] = digest(G)
    for n in OPTION_SIZES:
        out[f"option_values|{n}"] = digest(card_search._option_values(*option_inputs(n)))
    return out


def searches(case: tuple) -> dict:
    """A small card search (:func:`~yahtzee_sim.analysis.decisions.distill.distill`): the
    rules it learns and their estimated gains."""
    from yahtzee_sim.analysis.decisions.distill import distill

    name, seed, max_rules, n_games = case
    res = distill(name, max_rules=max_rules, seed=seed, n_games=n_games, curve_at=[])
    text = json.dumps({"steps": res.steps, "learned": [str(r) for r in res.learned]})
    return {f"distill|{name}|{seed}": hashlib.sha256(text.encode()).hexdigest()}


def record() -> dict:
    """Every digest, by key."""
    out: dict = {}
    for name in ALL_STATES + SAMPLED:
        out.update(greedy_states(name))
    for name in POSITIONS:
        out.update(greedy_positions(name))
    for name in ENCODED:
        out.update(random_kernels(name))
        out.update(encoding(name))
    out.update(card_search_kernels())
    for case in SEARCHES:
        out.update(searches(case))
    for name in SIMULATED:
        out.update(simulations(name))
        print("simulate", name, flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
