"""Record the SHA-256 of the rule-based strategies' decisions and games that the port of
their kernels to the compiled core must keep bit for bit, into
``tests/golden/strat2_digests.json`` (run before porting a kernel of these strategies).

Usage::

    python tools/strat2_digests.py [--out tests/golden/strat2_digests.json]

The strategies (:data:`STRATEGIES`): Defensive Yahtzee (``strategies/defensive``), Glenn's
2006 Yahtzee chasers (``strategies/glenn2006``, both tie rules) and the rule-based
strategies of "Simulating Yahtzee", v1 and v2 (``strategies/rule_based_v1``,
``strategies/rule_based_v2``), each with its parameters changed once too. What is recorded:

* ``decisions``: on every preset each strategy plays (:data:`PRESETS`: the Yahtzee
  presets, the forced order, the shared-face full house), :data:`N_POSITIONS` random legal
  positions per rolls-left count (2 and 1: keeps; 0: boxes) and per turn (the first, where
  the no-Four-of-a-kind rule applies, and a later one), the Yahtzee box holding 0 or 50:
  the digest of the answers' dtype, shape and bytes;
* ``simulate``: the digest (:meth:`~yahtzee_sim.engine.results.Results.digest`) of
  :data:`N_GAMES` games per preset of :data:`SIM_PRESETS` and seed of :data:`SEEDS`.

``tests/strategies/test_strat2_core.py`` checks that today's code gives the same bytes.
Record again only on purpose (a deliberate change of play), and say so in the commit.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from yahtzee_sim.checks.positions import random_views
from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.engine.simulate import simulate
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.strategies._yahtzee_boxes import YAHTZEE, YAHTZEE_BOXES
from yahtzee_sim.strategies.rule_based_v1 import Glenn2007Rules
from yahtzee_sim.strategies.rule_based_v2 import Glenn2007Program

OUT = Path(__file__).resolve().parents[1] / "tests" / "golden" / "strat2_digests.json"
#: The presets the decisions are recorded on (every one these strategies play but the
#: house-rule combinations, which change nothing they read).
PRESETS = (
    "yahtzee",
    "yahtzee-free-joker",
    "yahtzee-no-joker",
    "yahtzee-no-bonus",
    "yahtzee-single-bonus",
    "yahtzee+forced",
    "yahtzee-no-bonus+forced",
    "yahtzee+fh5",
)
SIM_PRESETS = ("yahtzee", "yahtzee-no-bonus", "yahtzee-single-bonus", "yahtzee+forced")
SEEDS = (0, 11)
N_POSITIONS = 3000
N_GAMES = 1000
REVERSED = tuple(reversed(YAHTZEE_BOXES))

#: Label -> a new strategy: every built-in id of the four modules, and the parameters of
#: the rule-based ones changed.
STRATEGIES: dict[str, Callable[[], object]] = {
    **{
        sid: (lambda sid=sid: get_strategy(sid))
        for sid in (
            "defensive-v1",
            "glenn-yahtzees-only-v1",
            "glenn-yahtzees-and-straights-v1",
            "glenn-rational-yahtzees-v1",
            "glenn-yahtzees-only-v2",
            "glenn-yahtzees-and-straights-v2",
            "glenn-rational-yahtzees-v2",
            "glenn-2007-rules-v1",
            "prioritize-upper-v1",
            "prioritize-yahtzee-v1",
            "glenn-2007-rules-v2",
            "prioritize-upper-v2",
            "prioritize-yahtzee-v2",
        )
    },
    "glenn-2007-rules-v1(reversed,4k)": lambda: Glenn2007Rules(REVERSED, False),
    "glenn-2007-rules-v2(reversed,4k)": lambda: Glenn2007Program(REVERSED, False),
}


def digest(*arrays: np.ndarray) -> str:
    """SHA-256 of arrays' dtypes, shapes and bytes (C order)."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def positions(rules, rolls_left: int, first_turn: bool, seed: int) -> TurnView:
    """:data:`N_POSITIONS` random legal positions (:func:`random_views`) at the first turn or
    a later one, the Yahtzee box holding 50 where the flag is set, else 0 or 50 at random."""
    v = random_views(rules, N_POSITIONS, seed, rolls_left)
    rng = np.random.default_rng(seed + 1)
    box_scores = np.zeros((len(v), rules.n_boxes), dtype=np.int16)
    filled = ((v.used >> YAHTZEE) & 1) == 1
    fifty = v.flag >= 1 if rules.has_yahtzee_flag else rng.integers(0, 2, len(v)) == 1
    box_scores[:, YAHTZEE] = np.where(filled & fifty, 50, 0)
    turn = 0 if first_turn else max(v.turn, 1)
    return TurnView(
        rules,
        v.games,
        v.dice,
        v.roll_index,
        rolls_left,
        turn,
        v.used,
        v.upper_total,
        v.flag,
        v.score,
        box_scores,
        v.strategy_key,
    )


@functools.cache
def preset_positions(preset: str, rolls_left: int, first_turn: bool, seed: int) -> TurnView:
    """:func:`positions` on a preset, drawn once per process: every strategy is asked at the
    same positions (the view's arrays are read-only)."""
    return positions(get_rules(preset), rolls_left, first_turn, seed)


def decision_cases():
    """``(label, preset, rolls_left, first_turn, seed)`` of every decision digest."""
    for label in STRATEGIES:
        for preset in PRESETS:
            if not STRATEGIES[label]().supports(get_rules(preset)):
                continue
            for rolls_left in (2, 1, 0):
                for first_turn in (True, False):
                    seed = 100 * PRESETS.index(preset) + 10 * rolls_left + first_turn
                    yield label, preset, rolls_left, first_turn, seed


def decision_key(label: str, preset: str, rolls_left: int, first_turn: bool) -> str:
    return f"{label}|{preset}|{rolls_left}|{'first' if first_turn else 'later'}"


def decide(label: str, preset: str, rolls_left: int, first_turn: bool, seed: int) -> str:
    """The digest of one strategy's answers at one set of positions."""
    rules = get_rules(preset)
    strategy = STRATEGIES[label]()
    strategy.prepare(rules)
    view = preset_positions(preset, rolls_left, first_turn, seed)
    out = strategy.keep(view) if rolls_left else strategy.box(view)
    return digest(out)


def simulation_cases():
    """``(label, preset, seed)`` of every simulation digest."""
    for label in STRATEGIES:
        for preset in SIM_PRESETS:
            for seed in SEEDS:
                yield label, preset, seed


def play(label: str, preset: str, seed: int) -> str:
    res = simulate(STRATEGIES[label](), N_GAMES, seed=seed, rules=preset, progress=False)
    return res.digest()


def record() -> dict:
    """Every digest: ``decisions`` and ``simulate``."""
    decisions = {decision_key(*case[:4]): decide(*case) for case in decision_cases()}
    print(len(decisions), "decision digests", flush=True)
    sims = {
        f"{label}|{preset}|{seed}": play(label, preset, seed)
        for label, preset, seed in simulation_cases()
    }
    print(len(sims), "simulation digests", flush=True)
    return {"decisions": decisions, "simulate": sims}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
