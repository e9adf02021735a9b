"""The states a solver values: every state play reaches from the start (found by brute
force, scoring every open box with every score it can take) is one of them."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim._core.scoring import scored_state
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import decode_state, solved_states, start_state


def reached_by_play(rules) -> np.ndarray:
    """Every state reached from the start by scoring any open box with any of its scores,
    the full sheet left out."""
    kr = kernel_rules(rules)
    full = (1 << rules.n_boxes) - 1
    seen, todo = {start_state()}, [start_state()]
    while todo:
        (used,), (upper,), (flag,) = decode_state(rules, np.array([todo.pop()]))
        for c in range(rules.n_boxes):
            if (int(used) >> c) & 1:
                continue
            for slot in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
                nxt, _ = scored_state(kr, int(used), int(upper), int(flag), c, kr.slot_points[slot])
                if nxt not in seen:
                    seen.add(int(nxt))
                    todo.append(int(nxt))
    states = np.array(sorted(seen), dtype=np.int64)
    return states[decode_state(rules, states)[0] != full]


@pytest.mark.parametrize("name", ["2-yatzy", "upper-3d4f", "yahtzee-6box"])
def test_every_state_play_reaches_is_solved(name):
    rules = get_rules(name)
    solved, reached = solved_states(rules), reached_by_play(rules)
    assert np.isin(reached, solved).all()
    # the bound on the upper total is all that separates them: equal where it is exact
    assert np.array_equal(solved, reached) == (name != "upper-3d4f")
