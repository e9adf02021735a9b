"""The forward pass of games with saved rolls: reach probabilities against a brute-force
walk over the dice, and a pass in a file killed mid-level resumes bit for bit."""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from yahtzee_sim.analysis.decisions.saved_regret import SavedRegretAccumulator
from yahtzee_sim.exact import saved_forward as forward
from yahtzee_sim.exact.laws import prepared
from yahtzee_sim.game.state import encode_state

from helpers import decision_book, small_saved_game


class Killed(Exception):
    """Stands for the process dying in the middle of a level."""


def roll_law(rules, n: int) -> dict:
    """P(sorted dice) of ``n`` dice."""
    law = defaultdict(float)
    for dice in itertools.product(range(1, rules.n_faces + 1), repeat=n):
        law[tuple(sorted(dice))] += rules.n_faces**-n
    return law


def brute_reach(rules, keep, box) -> dict:
    """P(reach) of every turn-start state ``(used, upper, saved)`` by walking the turns
    over the dice, the decisions read from the book (a stop saves the rolls left, at most
    the cap)."""
    F, N, C = rules.n_faces, rules.n_dice, rules.n_boxes
    t = rules.tables
    reach = defaultdict(float, {(0, 0, 0): 1.0})

    def roll_of(dice):
        counts = np.array([dice.count(f + 1) for f in range(F)], dtype=np.int8)
        return int(t.roll_index(counts[None])[0])

    def score(used, upper, dice, bank, p):
        c = box[(used, upper, roll_of(dice), bank)]
        b = rules.boxes[c]
        points = b.score([dice.count(f + 1) for f in range(F)], rules.two_pairs_allows_one_pair)
        up = min(upper + points, rules.upper_cap) if b.is_upper else upper
        reach[(used | (1 << c), up, bank)] += p

    for filled in range(C):
        for (used, upper, saved), p0 in list(reach.items()):
            if bin(used).count("1") != filled or p0 == 0.0:
                continue
            rolls = {d: p0 * q for d, q in roll_law(rules, N).items()}
            for left in range(rules.rolls_per_turn - 1 + saved, 0, -1):
                after = defaultdict(float)
                for dice, p in rolls.items():
                    counts = keep[(used, upper, roll_of(dice), left)]
                    kept = tuple(f + 1 for f in range(F) for _ in range(counts[f]))
                    if len(kept) == N:
                        score(used, upper, dice, min(left, rules.saved_roll_cap), p)
                        continue
                    for extra, q in roll_law(rules, N - len(kept)).items():
                        after[tuple(sorted(kept + extra))] += p * q
                rolls = after
            for dice, p in rolls.items():
                score(used, upper, dice, 0, p)
    return reach


def test_reach_equals_a_walk_over_the_dice():
    rules = small_saved_game(3)
    strategy, rules = prepared("greedy", rules, moments_only=True)
    want = brute_reach(rules, *decision_book(strategy, rules))
    got = {}

    def collect(charges):
        for (used, upper, _), row in zip(charges.positions, charges.reach, strict=True):
            for s, p in enumerate(row):
                if p > 0:
                    got[(int(used), int(upper), s)] = float(p)

    fw = forward.saved_forward(strategy, rules, collect)
    assert len(got) > 50
    assert {s for (_, _, s) in got} == {0, 1, 2, 3}
    for key, p in want.items():
        if bin(key[0]).count("1") < rules.n_boxes:
            assert got.get(key, 0.0) == pytest.approx(p, abs=1e-14), key
    assert set(got) <= set(want)
    assert fw.total == pytest.approx(1.0, abs=1e-12)
    assert encode_state(rules, 0, 0, 0, 0) == 0


def run(path=None, acc=None, on_level=None):
    """Greedy's saved-roll regret pass on a small game, in a file given ``path``."""
    strategy, rules = prepared("greedy", small_saved_game(2, n_dice=4), moments_only=True)
    acc = SavedRegretAccumulator(rules, 6) if acc is None else acc
    fw = forward.saved_forward(strategy, rules, acc, path=path, on_level=on_level)
    return acc.result("greedy", fw, 0.0).to_dict(), acc


@pytest.mark.parametrize("level", [0, 2, 4])
def test_a_saved_roll_pass_killed_mid_level_resumes_bit_for_bit(monkeypatch, tmp_path, level):
    monkeypatch.setattr(forward, "OUTCOME_BYTES", 1)  # a chunk per used-mask: several a level
    path = tmp_path / "reach.bin"
    whole, _ = run()
    assert run(tmp_path / "straight.bin")[0] == whole  # the file gives the figures in memory
    real, seen = forward.scatter_reach, []

    def dying(*args):  # the next level half written, then the process dies
        real(*args)
        seen.append(1)
        if len(seen) == 2 and stopped:
            raise Killed

    stopped = []
    monkeypatch.setattr(forward, "scatter_reach", dying)

    def stop_after(k):
        if k == level:
            stopped.append(k)
            seen.clear()

    with pytest.raises(Killed):
        run(path, on_level=stop_after)
    monkeypatch.setattr(forward, "scatter_reach", real)
    record = json.loads(path.with_name("reach.bin.progress").read_text())
    assert record["turn"] == level + 1  # killed in the level after the recorded one
    assert run(path)[0] == whole
    left = [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")]
    assert left == []  # the files go when the pass is over


CHILD = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[3])
    from yahtzee_sim.exact import saved_forward as forward
    from yahtzee_sim.analysis.decisions.saved_regret import SavedRegretAccumulator
    from yahtzee_sim.exact.laws import prepared
    from helpers import kill_after_calls, small_saved_game
    forward.OUTCOME_BYTES = 1
    kill_after_calls(forward, "scatter_reach", int(sys.argv[2]))
    strategy, rules = prepared("greedy", small_saved_game(2, n_dice=4), moments_only=True)
    forward.saved_forward(strategy, rules, SavedRegretAccumulator(rules, 6), path=sys.argv[1])
    """
)


@pytest.mark.slow
def test_a_saved_roll_pass_killed_with_sigkill_resumes_bit_for_bit(monkeypatch, tmp_path):
    monkeypatch.setattr(forward, "OUTCOME_BYTES", 1)
    path = tmp_path / "reach.bin"
    tests = str(Path(__file__).resolve().parents[1])
    child = subprocess.run([sys.executable, "-c", CHILD, str(path), "40", tests], check=False)
    assert child.returncode == -signal.SIGKILL
    # 40 chunks of one used-mask: levels 0 to 2 have 22, level 3 the next 20
    assert json.loads(path.with_name("reach.bin.progress").read_text())["turn"] == 3
    assert run(path)[0] == run()[0]


def test_more_next_states_than_the_bound_is_an_error_not_a_wrong_reach(monkeypatch):
    # the next-state table of a position holds its bound's worth and counts the rest
    monkeypatch.setattr(forward, "outcome_width", lambda rules, k: 1)
    strategy, rules = prepared("greedy", small_saved_game(1), moments_only=True)
    with pytest.raises(AssertionError, match="more next states"):
        forward.saved_forward(strategy, rules, lambda charges: None)
