"""The Python peer ``yatzy-solver`` as an external oracle: its exact values of every state
and of sampled decisions equal ours under each shared preset.

The peer encodes a turn-start state as ``filled`` (a bitmask of categories in score-card
order: the order of our boxes), ``upper`` (capped at 63) and ``armed`` (the Yahtzee box
holds 50): our ``(used, upper, flag)``. Its options differ in two ways: before the last roll
it offers scoring any box at once (ours: keeping every die, worth the best box), and it has
no keep of every die.
"""

from __future__ import annotations

import numpy as np
import pytest

ys = pytest.importorskip(
    "yatzy_solver", reason="yatzy-solver is not installed (pip install -e '.[dev]')"
)

from yahtzee_sim.analysis.decisions.dataset import grade_decisions  # noqa: E402
from yahtzee_sim.game.presets import YATZY_SOLVER_VARIANTS  # noqa: E402
from yahtzee_sim.game.rules import get_rules  # noqa: E402
from yahtzee_sim.game.state import decode_state, solved_states  # noqa: E402
from yahtzee_sim.solving.solver import value_table  # noqa: E402

#: Expected number of compared states (the issue's counts).
N_STATES = {"yahtzee": 591_232, "yahtzee-no-bonus": 394_176, "yatzy": 1_576_896}
TOL = 1e-9


@pytest.fixture(scope="module", params=list(YATZY_SOLVER_VARIANTS))
def pair(request):
    rules = get_rules(request.param)
    variant = ys.Variant(YATZY_SOLVER_VARIANTS[request.param])
    assert list(variant.categories) == [
        "five_of_a_kind" if b == "yahtzee" else b for b in rules.box_names
    ], "the peer's categories are in our box order"
    return rules, variant, ys.Solver.build(variant)


@pytest.mark.slow
def test_every_state_value_equals_the_peers(pair):
    rules, _, solver = pair
    states = solved_states(rules)
    if rules.name in N_STATES:
        assert len(states) == N_STATES[rules.name]
    used, upper, flag = decode_state(rules, states)
    theirs = solver.state_values(used.astype(np.uint32), upper.astype(np.uint16), flag > 0)
    ours = value_table(rules).values[states]
    worst = int(np.argmax(np.abs(ours - theirs)))
    assert abs(ours[worst] - theirs[worst]) <= TOL, (
        f"state {decode_state(rules, states[worst])}: ours {ours[worst]!r}, "
        f"yatzy-solver {theirs[worst]!r}"
    )


@pytest.mark.slow
def test_option_values_of_sampled_situations_equal_the_peers(pair):
    rules, variant, solver = pair
    n = 3000
    rng = np.random.default_rng(47)
    used, upper, flag = decode_state(rules, rng.choice(solved_states(rules), n))
    dice = np.sort(rng.integers(1, rules.n_faces + 1, (n, rules.n_dice)), axis=1)
    rolls_left = rng.integers(0, rules.rolls_per_turn, n)
    counts = (dice[:, :, None] == np.arange(1, rules.n_faces + 1)).sum(axis=1)
    got = grade_decisions(
        rules,
        {
            "turn": np.zeros(n, dtype=np.int64),
            "rolls_left": rolls_left,
            "roll": rules.tables.roll_index(counts).astype(np.int64),
            "used": used,
            "upper_total": upper,
            "flag": flag,
            "action": np.zeros(n, dtype=np.int64),
        },
    )
    codes, values, n_opts = solver.option_values_batch(
        used.astype(np.uint32),
        upper.astype(np.uint16),
        flag > 0,
        dice.astype(np.uint8),
        rolls_left.astype(np.uint8),
    )
    dense = variant.dense(codes, values, n_opts)  # n x action codes, NaN where illegal
    t = rules.tables
    n_keeps, nb = len(t.keep_counts), rules.n_boxes
    keep_code = np.array(
        [
            variant.action_code("keep " + (" ".join(map(str, t.faces_from_counts(c))) or "-"))
            if t.keep_size[k] < rules.n_dice
            else -1
            for k, c in enumerate(t.keep_counts)
        ]
    )
    row = np.repeat(np.arange(n), np.diff(got["option_ptr"]))
    action = got["option_actions"]
    theirs = np.full(len(action), np.nan)
    box = action >= n_keeps
    theirs[box] = dense[row[box], action[box] - n_keeps]
    keep = ~box
    code = keep_code[np.where(keep, action, 0)]
    whole = keep & (code < 0)  # every die kept: the best box now
    theirs[whole] = np.nanmax(dense[row[whole], :nb], axis=1)
    part = keep & (code >= 0)
    theirs[part] = dense[row[part], code[part]]
    assert not np.isnan(theirs).any(), "an option of ours the peer does not offer"
    np.testing.assert_allclose(got["option_values"], theirs, rtol=0, atol=TOL)
    # the same options: ours at the last roll are the boxes, before it the keeps (one of
    # them keeping every die, which the peer has not, offering each box instead)
    legal = ~np.isnan(dense)
    theirs_n = np.where(rolls_left > 0, legal[:, nb:].sum(axis=1) + 1, legal[:, :nb].sum(axis=1))
    np.testing.assert_array_equal(got["n_options"], theirs_n)
    np.testing.assert_allclose(got["optimal_value"], np.nanmax(dense, axis=1), rtol=0, atol=TOL)
