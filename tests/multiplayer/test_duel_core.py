"""The compiled core's two-player kernels (:mod:`yahtzee_sim._core.duel`): the same tables,
policies' values and recorded mover turns, byte for byte, as the numba kernels they
replaced (digests recorded by ``tools/duel_digests.py`` before the port), whatever the
number of threads, and clear errors for arguments they do not take."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from yahtzee_sim._core.duel import mover_turn, policy_stage, solve_stage, successors
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.threads import threads_limited
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.multiplayer.duel import solve_duel

ROOT = Path(__file__).resolve().parents[2]
DIGESTS = json.loads((ROOT / "tests" / "golden" / "duel_digests.json").read_text())


def _tool():
    path = ROOT / "tools" / "duel_digests.py"
    spec = importlib.util.spec_from_file_location("duel_digests", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOL = _tool()


@pytest.mark.slow
def test_every_duel_digest_is_the_numba_kernels_byte_for_byte():
    got = TOOL.duel_digests()
    assert len(got) == len(TOOL.DUELS) + 2 * len(TOOL.MOVES)
    assert got == {key: DIGESTS[key] for key in got}


def test_the_small_duels_are_the_numba_kernels_byte_for_byte():
    tiny = TOOL.tiny_duel_game()
    for k, (name, sheets, policies) in enumerate(TOOL.DUELS[:6]):
        rules = tiny if name == "tiny-duel" else get_rules(name)
        table = solve_duel(rules, sheets, policies=policies)
        layout = [np.r_[s.movers, s.waiters, s.m_mr, s.w_mr, s.offset] for s in table.stages]
        assert TOOL.digest(np.asarray(table.values), *layout) == DIGESTS[f"duel|{k}|{name}"]


@pytest.mark.parametrize("policies", [(None, None), ("optimal", None), (None, "greedy")])
def test_the_duel_tables_do_not_depend_on_the_number_of_threads(policies):
    tiny = TOOL.tiny_duel_game()
    tables = []
    for threads in (1, 2, 3):
        with threads_limited(threads):
            tables.append(solve_duel(tiny, policies=policies).values)
    assert all(np.array_equal(t, tables[0]) for t in tables[1:])


def test_successors_are_every_open_box_at_every_score():
    rules = get_rules("2-yatzy")
    kr = kernel_rules(rules)
    assert len(successors(kr, np.zeros(0, np.int64))) == 0
    first = successors(kr, np.zeros(1, np.int64))
    assert len(first) == kr.slot_points.shape[0]
    assert len(successors(kr, np.zeros(3, np.int64))) == 3 * len(first)
    with pytest.raises(ValueError, match="state indices"):
        successors(kr, np.array([-1], np.int64))


def test_duel_stage_arguments_it_does_not_take_are_refused_with_a_clear_error():
    tiny = TOOL.tiny_duel_game()
    table = solve_duel(tiny)
    st, nxt = table.stages[0], table.stages[1]
    kr, values, d = kernel_rules(tiny), table.values, table.d
    out = np.empty(len(values))
    args = (st.m_mr, st.w_mr, st.offset, nxt.offset, nxt.waiters, nxt.w_mr)
    with pytest.raises(ValueError, match="iy_lo"):
        solve_stage(kr, values, d, st.movers, *args, 0, len(st.waiters) + 1, out, 0)
    with pytest.raises(ValueError, match="inside out"):
        solve_stage(kr, values, d, st.movers, *args, 0, 1, out[:1], 0)
    with pytest.raises(ValueError, match="inside values"):
        solve_stage(kr, values[:2], d, st.movers, *args, 0, 1, out, 0)
    with pytest.raises(ValueError, match="state indices"):
        solve_stage(kr, values, d, st.movers + 10**6, *args, 0, 1, out, 0)
    with pytest.raises(ValueError, match="saved rolls"):
        saved = kernel_rules(get_rules("maxi-yatzy"))
        mover_turn(saved, values, d, 0, 1, 1, nxt.offset, 1, 0, nxt.waiters, nxt.w_mr, d)
    with pytest.raises(ValueError, match="state must"):
        mover_turn(kr, values, d, -1, 1, 1, nxt.offset, 1, 0, nxt.waiters, nxt.w_mr, d)
    ptr = np.zeros(len(st.movers) + 1, np.int64)
    empty, no_prob = np.zeros(0, np.int64), np.zeros(0)
    with pytest.raises(ValueError, match="CSR"):
        policy_stage(values, d, st.m_mr, st.w_mr, st.offset, ptr[:-1], empty, empty, no_prob,
                     nxt.offset, nxt.w_mr, 0, 1, out, 0)  # fmt: skip
    ptr[-1] = 1
    with pytest.raises(ValueError, match="every outcome"):
        policy_stage(values, d, st.m_mr, st.w_mr, st.offset, ptr, empty, empty, no_prob,
                     nxt.offset, nxt.w_mr, 0, 1, out, 0)  # fmt: skip
