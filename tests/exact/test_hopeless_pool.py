"""Pooling the hopeless upper totals in the forward pass of games with saved rolls: the
charges are those of the unpooled pass, and a strategy that decides by the hopeless total
sends the pass round again without pooling."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim.analysis.decisions.saved_regret import SavedRegretAccumulator
from yahtzee_sim.exact import hopeless_pool
from yahtzee_sim.exact import saved_forward as forward
from yahtzee_sim.exact.laws import evaluate, prepared
from yahtzee_sim.solving.levels import upper_lanes

from helpers import BatchedOnly, small_saved_game

REAL_POOL = forward.pool_hopeless


class OddTotals(BatchedOnly):
    """Greedy, but from four filled boxes on, at an odd upper total with rerolls left, it
    keeps its highest die only: it decides by the upper total where the bonus is out of
    reach, after the pass has pooled reach at the lower levels."""

    def keep(self, view):
        out = np.asarray(self.inner.keep(view)).copy()
        filled = np.array([bin(int(u)).count("1") for u in view.used])
        odd = (filled >= 4) & (view.upper_total % 2 == 1)
        top = view.dice.shape[1] - 1 - np.argmax(view.dice[:, ::-1] > 0, axis=1)
        out[odd] = 0
        out[np.flatnonzero(odd), top[odd]] = 1
        return out


def pass_of(strategy, rules, pooled: bool, monkeypatch, path=None, top=0):
    """The regret tables and forward-pass figures of ``strategy``, whether a call of
    :func:`~yahtzee_sim.exact.hopeless_pool.pool_hopeless` moved reach, and how many
    times the pass started (level 0 run)."""
    monkeypatch.setattr(forward, "POOL_HOPELESS", pooled)
    moved, starts = [], []

    def spy_pool(*args):
        moved.append(REAL_POOL(*args))
        return moved[-1]

    monkeypatch.setattr(forward, "pool_hopeless", spy_pool)
    strategy, rules = prepared(strategy, rules, moments_only=True)
    acc = SavedRegretAccumulator(rules, top)
    fw = forward.saved_forward(strategy, rules, acc, path=path, on_level=starts.append)
    return acc.result("s", fw, 0.0), fw, any(moved), starts.count(0)


@pytest.mark.parametrize(("cap", "forced", "n_dice"), [(1, False, 3), (2, False, 4)])
def test_pooled_hopeless_totals_charge_what_the_unpooled_pass_does(monkeypatch, cap, forced,
                                                                     n_dice):  # fmt: skip
    rules = small_saved_game(cap, forced, n_dice)
    pooled, fw, moved, starts = pass_of("greedy", rules, True, monkeypatch)
    plain, fw_plain, moved_plain, _ = pass_of("greedy", rules, False, monkeypatch)
    assert moved and not moved_plain and starts == 1
    assert fw.pooled and not fw_plain.pooled
    assert pooled.total == pytest.approx(plain.total, abs=1e-12)
    assert np.allclose(pooled.by_decision, plain.by_decision, atol=1e-12, rtol=0)
    assert np.allclose(pooled.by_turn, plain.by_turn, atol=1e-12, rtol=0)
    assert np.allclose(pooled.by_box, plain.by_box, atol=1e-12, rtol=0)
    assert fw.mean == pytest.approx(fw_plain.mean, abs=1e-12)
    assert fw.n_positions < fw_plain.n_positions  # positions run


@pytest.mark.parametrize("in_file", [False, True], ids=["memory", "file"])
def test_a_strategy_deciding_by_the_hopeless_total_is_charged_unpooled(monkeypatch, tmp_path,
                                                                       in_file):  # fmt: skip
    rules = small_saved_game(1, False, 3)
    path = tmp_path / "reach.bin" if in_file else None
    res, fw, moved, starts = pass_of(OddTotals(), rules, True, monkeypatch, path)
    assert moved and starts == 2 and not fw.pooled  # pooled, broke, went round again without
    plain, _, _, _ = pass_of(OddTotals(), rules, False, monkeypatch)
    assert res.total == plain.total and list(res.by_decision) == list(plain.by_decision)
    mean = evaluate(OddTotals(), rules, distribution=False).mean  # the backward pass
    assert abs(res.total - (res.optimal_value - mean)) < 1e-9
    assert fw.total == pytest.approx(1.0, abs=1e-12)


def test_pooling_moves_reach_only_where_every_hopeless_total_decides_alike():
    # one used-mask, flag 0, upper totals 0..3, hopeless up to 2; total 1 decides apart
    pos = np.array([[1, u, 0] for u in range(4)], dtype=np.int64)
    reach = np.array([[0.1, 0.0], [0.2, 0.1], [0.0, 0.3], [0.4, 0.0]])
    keep = np.zeros((4, 2, 3), dtype=np.int16)
    cat = np.zeros((4, 1, 3), dtype=np.int8)
    hopeless = np.array([True, True, True, False])
    split = keep.copy()
    split[1, 1, 2] = 5
    r = reach.copy()
    assert not hopeless_pool.pool_hopeless(pos, r, split, cat, hopeless, False)
    assert np.array_equal(r, reach)  # a group that decides apart keeps its totals
    with pytest.raises(hopeless_pool.PoolingBroken):
        hopeless_pool.pool_hopeless(pos, reach.copy(), split, cat, hopeless, True)
    assert hopeless_pool.pool_hopeless(pos, r, keep, cat, hopeless, True)
    assert np.array_equal(r, [[0.1 + 0.2, 0.1 + 0.3], [0, 0], [0, 0], [0.4, 0.0]])


def test_a_costliest_situation_on_a_hopeless_sheet_stands_at_upper_total_0(monkeypatch):
    rules = small_saved_game(2, False, 4)
    every = 10**6  # every candidate situation: one per position and decision type
    res, _, moved, _ = pass_of("greedy", rules, True, monkeypatch, top=every)
    plain, _, _, _ = pass_of("greedy", rules, False, monkeypatch, top=every)
    names = [b.name for b in rules.boxes]

    def bound(filled: str) -> int:
        used = sum(1 << names.index(n) for n in filled.split(", ") if n in names)
        return int(upper_lanes(rules, np.array([used]))[0][0])

    def hopeless(table):
        bounds = table.filled.map(bound)
        return table[(bounds > 0) & (table.upper_total <= bounds)]

    pooled, unpooled = hopeless(res.situations), hopeless(plain.situations)
    assert moved and (pooled.upper_total == 0).all() and (unpooled.upper_total > 0).any()


class SheetLosses:
    """Collects, per sheet (turn, used-mask, flag), the losses charged at its hopeless
    upper totals; restartable, so the pass pools."""

    def __init__(self, rules):
        self.rules, self.by_sheet = rules, {}

    def __call__(self, charges):
        bound = upper_lanes(self.rules, charges.positions[:, 0])[0]
        for (used, upper, flag), b, loss in zip(charges.positions, bound, charges.loss,
                                                 strict=True):  # fmt: skip
            if 0 < b and upper <= b:
                key = (charges.turn, int(used), int(flag))
                self.by_sheet[key] = self.by_sheet.get(key, 0.0) + loss

    def checkpoint_state(self):
        return {}

    def restore_checkpoint(self, state):
        self.by_sheet = {}


def test_pooled_losses_of_a_sheet_are_those_of_its_hopeless_totals(monkeypatch):
    strategy, rules = prepared("greedy", small_saved_game(2, False, 4), moments_only=True)
    got = {}
    for pooled in (True, False):
        monkeypatch.setattr(forward, "POOL_HOPELESS", pooled)
        sheets = SheetLosses(rules)
        assert forward.saved_forward(strategy, rules, sheets).pooled == pooled
        got[pooled] = sheets.by_sheet
    assert set(got[True]) == set(got[False]) and len(got[True]) > 5
    for key, loss in got[False].items():
        assert np.allclose(got[True][key], loss, atol=1e-13, rtol=0), key


class Killed(Exception):
    """Stands for the process dying between two levels."""


def test_a_resumed_pass_whose_pooling_breaks_starts_again_from_a_fresh_analysis(
    monkeypatch, tmp_path
):
    rules = small_saved_game(1, False, 3)
    path = tmp_path / "reach.bin"
    strategy, prepared_rules = prepared(OddTotals(), rules, moments_only=True)

    def die_after_level_3(k):  # recorded pooled, with reach moved; level 4 splits
        if k == 3:
            raise Killed

    acc = SavedRegretAccumulator(prepared_rules, 0)
    with pytest.raises(Killed):
        forward.saved_forward(strategy, prepared_rules, acc, path=path, on_level=die_after_level_3)
    res, fw, _, starts = pass_of(OddTotals(), rules, True, monkeypatch, path)
    assert starts == 1 and not fw.pooled  # resumed at level 4, broke, went round afresh
    plain, _, _, _ = pass_of(OddTotals(), rules, False, monkeypatch)
    assert res.total == plain.total and list(res.by_turn) == list(plain.by_turn)
