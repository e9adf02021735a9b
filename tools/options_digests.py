"""Record the SHA-256 of the decision options and of the score-dependent exact laws that the
compiled core must keep bit for bit, into ``tests/golden/options_digests.json``.

Usage::

    python tools/options_digests.py [--out tests/golden/options_digests.json]

What is recorded, each output array's digest (:func:`digest`):

- :data:`DATASETS`: the graded columns and the options of
  :func:`~yahtzee_sim.analysis.decisions.dataset.decision_dataset` (games played by a
  strategy; on games with saved rolls graded by
  :func:`~yahtzee_sim.analysis.decisions.saved_options.grade_saved_decisions`);
- :data:`MIXED`: :func:`~yahtzee_sim.analysis.decisions.dataset.grade_decisions` of
  random decisions at random states (several decisions of one state with different
  rerolls left: the levels each needs);
- :data:`SAVED_BOXES`: :func:`~yahtzee_sim.analysis.decisions.saved_options.box_values`
  of random decisions of Maxi Yatzy, against a made-up table (:class:`IndexValues`: no
  solve);
- :data:`LAWS`: :func:`~yahtzee_sim.exact.score_dependent.lane_law` (the pmf and every
  statistic) of need-lane strategies on small games.

Games: presets, and (:func:`game`) ``small-saved:CAP[:ORDER][:DICE]`` (the tests' small
game with saved rolls, ``tests/helpers.py``: ``small_saved_game``) and
``small-limit:LIMIT[:JOKER][:forced]`` (``bonus_limit_game``: a Yahtzee box and bonus;
``JOKER`` ``none``, ``free`` or ``forced``; ``forced``: boxes in order).
``tests/analysis/test_options_core.py`` checks that today's code gives the same bytes.
Record again only on purpose (a deliberate change of values), and say so in the commit.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from yahtzee_sim.analysis.decisions.dataset import decision_dataset, grade_decisions
from yahtzee_sim.analysis.decisions.saved_options import box_values
from yahtzee_sim.exact.score_dependent import lane_law
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import (
    decode_state,
    filled_counts,
    flag_size,
    n_states,
    state_layout,
)
from yahtzee_sim.strategies import get_strategy

TESTS = Path(__file__).resolve().parents[1] / "tests"
OUT = TESTS / "golden" / "options_digests.json"
#: ``(game, strategy, games, seed)`` of the decision datasets recorded.
DATASETS = (
    ("2-yatzy", "greedy", 40, 1),
    ("2-yatzy", "random", 40, 2),
    ("upper-3d4f", "greedy", 20, 1),
    ("yahtzee-6box", "greedy", 20, 1),
    ("yahtzee-6box+forced", "random", 20, 1),
    ("yahtzee", "greedy", 20, 1),
    ("yahtzee", "random", 10, 3),
    ("yahtzee", "prioritize-yahtzee", 15, 4),
    ("yahtzee+forced", "greedy", 15, 1),
    ("yahtzee-free-joker", "prioritize-yahtzee", 15, 1),
    ("yahtzee-no-joker", "greedy", 15, 1),
    ("yahtzee-single-bonus", "prioritize-yahtzee", 15, 1),
    ("yatzy", "greedy", 20, 1),
    ("yacht", "greedy", 15, 1),
    ("small-limit:0", "greedy", 30, 1),
    ("small-limit:2:forced", "random", 30, 1),
    ("small-limit:1:free", "greedy", 30, 2),
    ("small-limit:0:forced:forced", "greedy", 30, 1),
    ("small-saved:1", "random", 20, 1),
    ("small-saved:2", "greedy", 20, 3),
    ("small-saved:5", "greedy", 20, 1),
    ("small-saved:3:forced", "greedy", 20, 1),
    ("small-saved:2:free:4", "greedy", 20, 1),
)
#: Games whose random decisions at random states are recorded.
MIXED = (
    "2-yatzy",
    "yahtzee",
    "yahtzee+forced",
    "yahtzee-single-bonus",
    "yahtzee-free-joker",
    "yatzy",
    "yacht",
    "small-limit:2:forced",
)
#: Games with saved rolls whose box values are recorded against a made-up table.
SAVED_BOXES = ("maxi-yatzy", "maxi-yatzy+forced+cap2", "small-saved:2:free:4")
#: ``(game, strategy)`` of the score-dependent laws recorded.
LAWS = (
    ("2-yatzy", "target:5"),
    ("2-yatzy", "win:2"),
    ("upper-3d4f", "target:20"),
    ("upper-3d4f", "win:2"),
    ("yahtzee-6box", "target:60"),
    ("yahtzee-6box", "win:2"),
    ("yahtzee-6box+forced", "target:60"),
    ("small-limit:0", "target:20"),
    ("small-limit:2", "win:2"),
    ("small-limit:0:forced", "target:20"),
    ("small-limit:1:free", "win:2"),
    ("small-limit:0:forced:forced", "target:20"),
)
#: The graded columns of a decision dataset (numbers: the option columns apart).
GRADE_COLUMNS = ("value", "optimal_action", "optimal_value", "regret", "n_options")


def digest(values) -> str:
    """SHA-256 of an array's bytes as float64 (little-endian, C order)."""
    return hashlib.sha256(np.ascontiguousarray(values, dtype="<f8").tobytes()).hexdigest()


def game(name: str) -> RuleSet:
    """The rules of a recorded game name (see the module's docstring)."""
    kind, *parts = name.split(":")
    if kind not in ("small-saved", "small-limit"):
        return get_rules(name)
    sys.path.insert(0, str(TESTS))
    from helpers import bonus_limit_game, small_saved_game

    if kind == "small-saved":
        cap, order, dice = parts + ["0", "free", "3"][len(parts) :]
        return small_saved_game(int(cap), order == "forced", int(dice))
    limit, joker, order = parts + ["0", "none", "free"][len(parts) :]
    rules = bonus_limit_game(int(limit))
    return dataclasses.replace(
        rules, name=f"{rules.name}-{joker}-{order}", joker=joker, forced_order=order == "forced"
    )


def dataset_key(name: str, strategy: str, n_games: int, seed: int) -> str:
    """The key of one recorded dataset."""
    return f"{name}/{strategy}/{n_games}/{seed}"


def dataset_digests(name: str, strategy: str, n_games: int, seed: int) -> dict[str, str]:
    """The digests of one decision dataset's graded columns and options."""
    ds = decision_dataset(strategy, n_games, seed=seed, rules=game(name), progress=False)
    out = {k: digest(ds.columns[k]) for k in GRADE_COLUMNS}
    out["option_ptr"] = digest(ds.option_ptr)
    out["option_actions"] = digest(ds.option_actions)
    out["option_values"] = digest(ds.option_values)
    return out


def mixed_decisions(rules: RuleSet, seed: int = 53) -> dict:
    """Random decisions at up to 60 random live states, three per state on average (any
    rerolls left, any roll; the action taken: keep 0 or the first box)."""
    rng = np.random.default_rng(seed)
    full = (1 << rules.n_boxes) - 1
    states = rng.choice(n_states(rules), min(400, n_states(rules)), replace=False)
    used, upper, flag = (np.asarray(x, dtype=np.int64) for x in decode_state(rules, states))
    live = (used != full) & (upper <= rules.upper_cap)
    used, upper, flag = used[live][:60], upper[live][:60], flag[live][:60]
    n = len(used)
    pick = np.r_[np.arange(n), rng.integers(0, n, 2 * n)]
    rolls_left = rng.integers(0, rules.rolls_per_turn, len(pick))
    return {
        "turn": np.zeros(len(pick), dtype=np.int64),
        "rolls_left": rolls_left,
        "roll": rng.integers(0, rules.tables.n_rolls, len(pick)),
        "used": used[pick],
        "upper_total": upper[pick],
        "flag": flag[pick],
        "action": np.where(rolls_left > 0, 0, rules.tables.n_keeps),
    }


def grade_digests(grades: dict) -> dict[str, str]:
    """The digest of every array :func:`grade_decisions` returns."""
    return {k: digest(v) for k, v in sorted(grades.items())}


class IndexValues:
    """A made-up value table: the value of state ``i`` is ``(i % 1000003) / 1024`` (any
    index, no solve), so that box values show the next state each box leads to."""

    def __init__(self) -> None:
        self.values = self

    def __getitem__(self, index) -> np.ndarray:
        return (np.asarray(index, dtype=np.int64) % 1000003) / 1024.0


def saved_box_decisions(rules: RuleSet, n: int = 400, seed: int = 7) -> tuple:
    """``(roll, used, upper, flag, saved)`` of ``n`` random box decisions at states of the
    rules' layout (under forced order, the first boxes filled; a flag only with the
    Yahtzee box filled; an upper total the filled boxes make, as many saved rolls as the
    next state may hold)."""
    rng = np.random.default_rng(seed)
    C = rules.n_boxes
    if rules.forced_order:
        used = (1 << rng.integers(0, C, n)) - 1
    else:
        used = rng.integers(0, (1 << C) - 1, n)
    yi = rules.yahtzee_index
    has_yahtzee = (used >> yi) & 1 if yi is not None else np.zeros(n, dtype=np.int64)
    flag = rng.integers(0, flag_size(rules), n) * has_yahtzee
    layout = state_layout(rules)
    upper = (rng.random(n) * layout.upper_count[used]).astype(np.int64)
    most = layout.saved_count[filled_counts(C)[used] + 1]
    saved = (rng.random(n) * most).astype(np.int64)
    roll = rng.integers(0, rules.tables.n_rolls, n)
    return roll, used, upper, flag, saved


def saved_box_digest(name: str) -> str:
    """The digest of the box values of random decisions of a game with saved rolls."""
    rules = game(name)
    return digest(box_values(rules, IndexValues(), *saved_box_decisions(rules)))


def law_digests(name: str, strategy: str) -> dict[str, str]:
    """The digests of one score-dependent law: its pmf and every statistic."""
    pmf, stats = lane_law(get_strategy(strategy), game(name))
    head = [stats.mean, stats.second, stats.total, stats.n_states]
    return {
        "pmf": digest(pmf),
        "moments": digest(np.array(head, dtype=float)),
        "cat_sum": digest(stats.cat_sum),
        "cat_zero": digest(stats.cat_zero),
        "cat_turn": digest(stats.cat_turn),
        "stats": digest(stats.stats),
    }


def record() -> dict:
    """Every digest: ``datasets``, ``mixed``, ``saved_boxes`` and ``laws``, by key."""
    datasets = {}
    for case in DATASETS:
        datasets[dataset_key(*case)] = dataset_digests(*case)
        print(dataset_key(*case), flush=True)
    mixed = {}
    for name in MIXED:
        rules = game(name)
        mixed[name] = grade_digests(grade_decisions(rules, mixed_decisions(rules)))
        print(name, flush=True)
    saved_boxes = {name: saved_box_digest(name) for name in SAVED_BOXES}
    laws = {}
    for name, strategy in LAWS:
        laws[f"{name}/{strategy}"] = law_digests(name, strategy)
        print(name, strategy, flush=True)
    return {"datasets": datasets, "mixed": mixed, "saved_boxes": saved_boxes, "laws": laws}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
