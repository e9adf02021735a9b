"""Record the SHA-256 of the exact evaluator's outputs that the compiled core must keep bit
for bit, into ``tests/golden/exact_digests.json``.

Usage::

    python tools/exact_digests.py [--out tests/golden/exact_digests.json]

What is recorded (:data:`EVALUATIONS`, :data:`FUTURE`): for each ``(preset, strategy,
kind)`` the digest of an exact evaluation's numbers (:func:`result_arrays`: mean, SD,
per-box means, zero rates and fill turns, bonus statistics, the pmf; ``law`` is
:func:`~yahtzee_sim.exact.laws.evaluate` with the distribution, ``moments`` without it,
the streamed forward pass or, on games with saved rolls, their backward moments pass);
for each preset of :data:`FUTURE` the digests of
:func:`~yahtzee_sim.exact.points_to_come.future_moments`, of
:func:`~yahtzee_sim.exact.points_to_come.future_law` from a few states and positions
inside a turn, and of :func:`~yahtzee_sim.exact.points_to_come.future_laws`.
``tests/exact/test_exact_core.py`` checks that today's code gives the same bytes.
Record again only on purpose (a deliberate change of values), and say so in the commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.exact.points_to_come import future_law, future_laws, future_moments
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import encode_state

TESTS = Path(__file__).resolve().parents[1] / "tests"
OUT = TESTS / "golden" / "exact_digests.json"
#: ``(preset, strategy, kind)`` of the exact evaluations recorded: fixed rolls and saved
#: rolls (``small-saved:CAP[:forced][:DICE]``, :func:`saved_game`), forced order
#: (``+forced``), the joker variants.
EVALUATIONS = (
    ("2-yatzy", "optimal", "law"),
    ("2-yatzy", "greedy", "law"),
    ("upper-3d4f", "optimal", "law"),
    ("upper-3d4f", "greedy", "law"),
    ("small-saved:1", "optimal", "moments"),
    ("small-saved:1", "greedy", "moments"),
    ("small-saved:5", "optimal", "moments"),
    ("small-saved:3:forced", "optimal", "moments"),
    ("small-saved:3:forced", "greedy", "moments"),
    ("small-saved:2:free:4", "optimal", "moments"),
    ("small-saved:2:free:4", "greedy", "moments"),
    ("yahtzee-6box", "optimal", "law"),
    ("yahtzee-6box", "greedy", "law"),
    ("yahtzee-6box+forced", "optimal", "law"),
    ("yahtzee-6box+forced", "greedy", "law"),
    ("yacht", "greedy", "law"),
    ("yahtzee", "optimal", "law"),
    ("yahtzee", "greedy", "law"),
    ("yahtzee", "glenn-heuristic", "moments"),
    ("yahtzee", "prioritize-upper", "law"),
    ("yahtzee-free-joker", "greedy", "moments"),
    ("yahtzee-no-joker", "greedy", "moments"),
    ("yahtzee-single-bonus", "optimal", "moments"),
)
#: Presets whose points to come are recorded, and the open boxes of their laws' table.
FUTURE = {"upper-3d4f": 3, "yahtzee-6box": 3, "yahtzee": 2}


def digest(values: np.ndarray) -> str:
    """SHA-256 of an array's bytes as float64 (little-endian, C order)."""
    return hashlib.sha256(np.ascontiguousarray(values, dtype="<f8").tobytes()).hexdigest()


def saved_game(name: str):
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


def result_arrays(result) -> np.ndarray:
    """Every number of an exact result, in one float64 array (NaN where not computed)."""
    head = [result.mean, result.sd, result.bonus_rate, result.yahtzee_bonuses_mean]
    parts = [np.array([*head, result.n_states], dtype=float)]
    parts += [result.box_means, result.box_zero_rate, result.box_fill_turn]
    if result.pmf is not None:
        parts.append(result.pmf)
    return np.concatenate([np.asarray(p, dtype=float) for p in parts])


def evaluation_key(preset: str, strategy: str, kind: str) -> str:
    """The key of one recorded evaluation."""
    return f"{preset}/{strategy}/{kind}"


def evaluation_digest(preset: str, strategy: str, kind: str) -> str:
    """The digest of one exact evaluation."""
    result = evaluate(strategy, saved_game(preset), distribution=kind == "law")
    return digest(result_arrays(result))


def future_positions(preset: str) -> list[tuple[int, object, object]]:
    """``(state, dice, rolls_left)`` of the laws recorded: the start state, a state with a
    box filled, and two positions inside the first turn."""
    rules = get_rules(preset)
    dice = np.zeros(rules.n_faces, dtype=np.int8)
    dice[0], dice[-1] = rules.n_dice - 1, 1
    one = int(encode_state(rules, 1 << (rules.n_boxes - 1), 0, 0))
    return [(0, None, None), (one, None, None), (0, dice, 1), (0, dice, 0)]


def future_digests(preset: str, max_open: int) -> dict[str, str]:
    """The digests of the points to come of one preset."""
    moments = future_moments(preset, use_cache=False)
    out = {"moments": digest(np.concatenate([moments.mean, moments.sd]))}
    for k, (state, dice, rolls_left) in enumerate(future_positions(preset)):
        out[f"law:{k}"] = digest(future_law(preset, state, dice, rolls_left))
    laws = future_laws(preset, max_open)
    parts = (laws.pool, laws.offset, laws.length, laws.support)
    out[f"laws:{max_open}"] = digest(np.concatenate([np.asarray(p, float) for p in parts]))
    return out


def record() -> dict:
    """Every digest: ``evaluations`` by key, ``future`` by preset."""
    evaluations = {}
    for preset, strategy, kind in EVALUATIONS:
        key = evaluation_key(preset, strategy, kind)
        evaluations[key] = evaluation_digest(preset, strategy, kind)
        print(key, evaluations[key][:12], flush=True)
    future = {}
    for preset, max_open in FUTURE.items():
        future[preset] = future_digests(preset, max_open)
        print(preset, future[preset]["moments"][:12], flush=True)
    return {"evaluations": evaluations, "future": future}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
