"""Exact moments on games with saved rolls: a plain recursion over ordered dice that
follows the strategy's own decisions, the solver's optimum, simulation, the refusals and
the command line."""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from yahtzee_sim import simulate_aggregate
from yahtzee_sim.cli import main
from yahtzee_sim.engine.decide import prepare
from yahtzee_sim.exact.laws import ExactEvaluationError, evaluate
from yahtzee_sim.exact.level_file import HEADER_BYTES
from yahtzee_sim.exact.saved_moments import (
    hopeless_shared,
    level_pass,
    level_positions,
    position_decisions,
    saved_moments,
)
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import filled_counts, state_layout
from yahtzee_sim.solving.levels import levels, upper_lanes
from yahtzee_sim.solving.solver import solve
from yahtzee_sim.strategies import get_strategy

from helpers import BatchedOnly, decision_book, small_saved_game


def brute_moments(rules, keep, box) -> tuple[float, float]:
    """E[score], E[score²] of the play ``keep``/``box`` by recursion over ordered dice:
    keeping every die scores now and saves the rolls left (at most the cap)."""
    F, N, C = rules.n_faces, rules.n_dice, rules.n_boxes
    cap = rules.upper_cap
    t = rules.tables

    def roll_of(dice):
        counts = np.array([dice.count(f + 1) for f in range(F)], dtype=np.int8)
        return int(t.roll_index(counts[None])[0])

    def ordered(m):
        return list(itertools.product(range(1, F + 1), repeat=m))

    @cache
    def state(used, upper, saved):
        if used == (1 << C) - 1:
            return 0.0, 0.0
        outs = [at(tuple(sorted(d)), rules.rolls_per_turn - 1 + saved, used, upper)
                for d in ordered(N)]  # fmt: skip
        return tuple(float(x) for x in np.mean(outs, axis=0))

    @cache
    def at(dice, left, used, upper):
        if left:
            counts = keep[(used, upper, roll_of(dice), left)]
            kept = tuple(f + 1 for f in range(F) for _ in range(counts[f]))
            if len(kept) == N:
                return score(dice, min(left, rules.saved_roll_cap), used, upper)
            rerolls = ordered(N - len(kept))
            outs = [at(tuple(sorted(kept + r)), left - 1, used, upper) for r in rerolls]
            return tuple(float(x) for x in np.mean(outs, axis=0))
        return score(dice, 0, used, upper)

    def score(dice, bank, used, upper):
        c = box[(used, upper, roll_of(dice), bank)]
        assert not (used >> c) & 1
        b = rules.boxes[c]
        p = b.score([dice.count(f + 1) for f in range(F)], rules.two_pairs_allows_one_pair)
        up, bonus = upper, 0
        if b.is_upper and cap:
            up = min(upper + p, cap)
            bonus = rules.upper_bonus if upper < cap <= upper + p else 0
        n1, n2 = state(used | (1 << c), up, bank)
        q = p + bonus
        return q + n1, q * q + 2 * q * n1 + n2

    return state(0, 0, 0)


@pytest.mark.parametrize("name", ["greedy", "optimal"])
@pytest.mark.parametrize(("cap", "forced"), [(1, False), (5, False), (3, True)])
def test_moments_equal_a_recursion_that_follows_the_strategy(name, cap, forced):
    rules = small_saved_game(cap, forced)
    strategy = get_strategy(name)
    got = evaluate(strategy, rules, distribution=False)
    mean, second = brute_moments(rules, *decision_book(strategy, rules))
    assert got.mean == pytest.approx(mean, abs=1e-9)
    assert got.sd**2 + got.mean**2 == pytest.approx(second, abs=1e-7)
    assert got.pmf is None and np.isnan(got.box_means).all()


@pytest.mark.parametrize("cap", [2, 5])
def test_optimal_mean_is_the_solved_value(cap):
    rules = small_saved_game(cap, n_dice=4)
    got = evaluate("optimal", rules, distribution=False)
    assert got.mean == pytest.approx(solve(rules).expected_value(), abs=1e-9)
    greedy = evaluate("greedy", rules, distribution=False)
    assert greedy.mean < got.mean - 0.1  # the moments follow the strategy, not the optimum


@pytest.mark.slow
def test_mean_agrees_with_simulation():
    rules = small_saved_game(5, n_dice=4)
    exact = evaluate("greedy", rules, distribution=False)
    n = 20_000
    sim = simulate_aggregate("greedy", n, seed=11, rules=rules).summary()
    assert abs(sim["mean"] - exact.mean) < 3 * exact.sd / np.sqrt(n)
    assert sim["sd"] == pytest.approx(exact.sd, rel=0.05)


def test_the_score_law_is_refused_in_one_line():
    with pytest.raises(ExactEvaluationError, match=r"^the exact score law is not available .*"):
        evaluate("greedy", small_saved_game(2), distribution=True)


class _FirstBox(BatchedOnly):
    """Greedy's keeps, and always the first box: illegal from the second turn on."""

    def box(self, view):
        return np.zeros(len(view), dtype=np.int64)


def test_an_illegal_box_in_a_reached_position_is_refused():
    with pytest.raises(ExactEvaluationError, match="chooses a box the rules do not allow"):
        evaluate(_FirstBox(), small_saved_game(2), distribution=False)


@pytest.mark.parametrize(
    "rules",
    [small_saved_game(1), small_saved_game(5), small_saved_game(3, True, n_dice=4),
     pytest.param("maxi-yatzy+forced+cap2", marks=pytest.mark.slow),
     pytest.param("maxi-yatzy+forced", marks=pytest.mark.slow)],
    ids=["cap1", "cap5", "forced-cap3", "maxi-forced-cap2", "maxi-forced"],
)  # fmt: skip
def test_a_compiled_decision_fill_gives_the_moments_of_the_batched_answers(rules):
    rules = get_rules(rules)
    greedy = get_strategy("greedy")
    greedy.prepare(rules)
    asked = BatchedOnly()
    asked.prepare(rules)
    masks = np.array([3] if rules.forced_order else [3, 5, 6], dtype=np.int64)  # two filled
    pos = level_positions(rules, masks)
    k = 2
    n_layers = rules.rolls_per_turn - 1 + int(state_layout(rules).saved_count[k]) - 1
    fast = position_decisions(greedy, rules, pos, k, n_layers)
    slow = position_decisions(asked, rules, pos, k, n_layers, np.random.default_rng(0))
    for a, b in zip(fast, slow, strict=True):  # the fill's one row serves every layer/bank
        assert a.dtype == b.dtype and a.shape[::2] == b.shape[::2] and a.shape[1] == 1
        np.testing.assert_array_equal(np.broadcast_to(a, b.shape), b)
    got = evaluate(greedy, rules, distribution=False)
    want = evaluate(asked, rules, distribution=False)
    assert (got.mean, got.sd, got.n_states) == (want.mean, want.sd, want.n_states)


class _Sneaky(_FirstBox):
    """Greedy, but the last legal box once the running score passes 100."""

    def box(self, view):
        out = np.asarray(self.inner.box(view)).copy()
        last = view.legal_boxes.shape[1] - 1 - np.argmax(view.legal_boxes[:, ::-1], axis=1)
        return np.where(view.score > 100, last, out)


def test_a_strategy_that_reads_the_score_is_refused():
    with pytest.raises(ExactEvaluationError, match="position only"):
        evaluate(_Sneaky(), small_saved_game(2), distribution=False)


@pytest.mark.slow
def test_cli_moments_only_on_saved_rolls(capsys):
    assert main(["exact", "--strategy", "greedy", "--rules", "maxi-yatzy+forced+cap2",
                 "--moments-only", "--json"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["pmf"] is None and out["bonus_rate"] is None
    assert 0 < out["sd"] < out["mean"]
    code = main(["exact", "--strategy", "greedy", "--rules", "maxi-yatzy+forced+cap2"])
    assert code == 2
    assert "the exact score law is not available" in capsys.readouterr().err


def stopped_after_level_3(strategy, rules, tmp_path):
    """The moments file of a pass in a file stopped (Ctrl-C) once level 3 is recorded (levels
    ``n_boxes - 1`` down to 3 in the file)."""
    path = tmp_path / "moments.bin"

    def stop(k):
        if k == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        saved_moments(strategy, rules, path=path, on_level=stop)
    return path


def test_a_pass_in_a_file_stopped_after_a_level_resumes_to_the_same_moments(tmp_path):
    rules = small_saved_game(5)
    strategy = get_strategy("greedy")
    prepare(strategy, rules)
    in_memory = saved_moments(strategy, rules)
    path = stopped_after_level_3(strategy, rules, tmp_path)
    assert path.exists()
    seen = []
    again = saved_moments(strategy, rules, path=path, on_level=seen.append)
    assert seen == [2, 1, 0]  # the levels above were recorded: not computed again
    assert again == in_memory  # bit for bit
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")] == []


def test_a_file_of_another_strategy_is_not_resumed(tmp_path):
    rules = small_saved_game(5)
    greedy, optimal = get_strategy("greedy"), get_strategy("optimal")
    for s in (greedy, optimal):
        prepare(s, rules)
    path = tmp_path / "moments.bin"

    def stop(k):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        saved_moments(greedy, rules, path=path, on_level=stop)
    seen = []
    got = saved_moments(optimal, rules, path=path, on_level=seen.append)
    assert seen == list(range(rules.n_boxes - 1, -1, -1))
    assert got == saved_moments(optimal, rules)


def test_a_damaged_recorded_level_is_computed_again(tmp_path):
    rules = small_saved_game(5)
    strategy = get_strategy("greedy")
    prepare(strategy, rules)
    path = stopped_after_level_3(strategy, rules, tmp_path)
    lo = int(state_layout(rules).level_start[4])
    with open(path, "r+b") as fh:  # one moment of level 4, changed after it was recorded
        fh.seek(HEADER_BYTES + 8 * lo)
        fh.write(np.float64(-1.0).tobytes())
    seen = []
    got = saved_moments(strategy, rules, path=path, on_level=seen.append)
    # level 4 computed again; level 3, recorded from level 4's sound bytes, kept
    assert seen == [4, 2, 1, 0]
    assert got == saved_moments(strategy, rules)


_CHILD = """
import os, signal, sys
sys.path[:0] = [{tests!r}, os.path.dirname({tests!r})]
from helpers import small_saved_game
from yahtzee_sim.engine.decide import prepare
from yahtzee_sim.exact.saved_moments import saved_moments
from yahtzee_sim.strategies import get_strategy

rules, strategy = small_saved_game(5), get_strategy("greedy")
prepare(strategy, rules)
die = lambda k: k == 3 and os.kill(os.getpid(), signal.SIGKILL)
saved_moments(strategy, rules, path=sys.argv[1], on_level=die)
"""


@pytest.mark.slow
def test_a_killed_pass_resumes_from_its_last_recorded_level(tmp_path):
    path = tmp_path / "moments.bin"
    script = tmp_path / "child.py"
    script.write_text(_CHILD.format(tests=str(Path(__file__).resolve().parents[1])))
    child = subprocess.run([sys.executable, str(script), str(path)], check=False)
    assert child.returncode == -signal.SIGKILL and path.exists()
    rules, strategy = small_saved_game(5), get_strategy("greedy")
    prepare(strategy, rules)
    seen = []
    got = saved_moments(strategy, rules, path=path, on_level=seen.append)
    assert seen == [2, 1, 0]
    assert got == saved_moments(strategy, rules) and not path.exists()


class _UpperParity(_FirstBox):
    """Greedy, but with three boxes or more filled and an odd upper total, the last legal
    box: decisions that differ between hopeless lanes below a level whose lanes agree."""

    def box(self, view):
        out = np.asarray(self.inner.box(view)).copy()
        last = view.legal_boxes.shape[1] - 1 - np.argmax(view.legal_boxes[:, ::-1], axis=1)
        filled = np.array([bin(int(u)).count("1") for u in view.used])
        return np.where((filled >= 3) & (view.upper % 2 == 1), last, out)


@pytest.mark.parametrize("cap", [1, 5])
def test_hopeless_lanes_share_moments_only_when_the_level_above_does(cap):
    rules = small_saved_game(cap)
    strategy = _UpperParity()
    got = evaluate(strategy, rules, distribution=False)
    mean, second = brute_moments(rules, *decision_book(strategy, rules))
    assert got.mean == pytest.approx(mean, abs=1e-9)
    assert got.sd**2 + got.mean**2 == pytest.approx(second, abs=1e-7)


@pytest.mark.parametrize("name", ["greedy", "optimal"])
def test_copied_hopeless_lanes_are_the_bits_of_their_own_run(name):
    rules = small_saved_game(5)
    strategy = get_strategy(name)
    prepare(strategy, rules)
    layout = state_layout(rules)
    n = int(layout.level_start[-1])
    store = (np.zeros(n), np.zeros(n))
    copied = 0
    for masks in levels(rules.n_boxes):
        k = int(filled_counts(rules.n_boxes)[masks[0]])
        lo, stop = int(layout.level_start[k]), int(layout.level_start[k + 1])
        above = (store[0][stop:], store[1][stop:])
        runs = []
        for shared in (True, False):
            out = (np.zeros(stop - lo), np.zeros(stop - lo))
            runs.append((level_pass(strategy, rules, masks, above, out, lo, shared), out))
        (computed, out), (every, alone) = runs
        assert every == len(level_positions(rules, masks))
        np.testing.assert_array_equal(out[0], alone[0])
        np.testing.assert_array_equal(out[1], alone[1])
        assert hopeless_shared(rules, masks, (out[0], out[1]))
        copied += every - computed
        store[0][lo:stop], store[1][lo:stop] = out
    assert copied > 0


def test_unequal_hopeless_lanes_are_seen():
    rules = small_saved_game(5)
    layout = state_layout(rules)
    masks = np.array([0b000110], dtype=np.int64)  # twos and threes filled: 0 .. 4 hopeless
    assert upper_lanes(rules, masks)[0][0] >= 1
    k = 2
    lo, stop = int(layout.level_start[k]), int(layout.level_start[k + 1])
    m1, m2 = np.zeros(stop - lo), np.zeros(stop - lo)
    assert hopeless_shared(rules, masks, (m1, m2))
    m2[int(layout.block_offset[masks[0] * rules.flag_size]) - lo + 1] = 1.0  # lane 1, none saved
    assert not hopeless_shared(rules, masks, (m1, m2))
