"""The compiled decision tables of the rule-based strategies and of rule cards
(``decision_table``, the exact evaluator's fast path: ``strategies/position_tables.pxd``,
``strategies/cards/card_kernels.pyx``): the decisions their batched ``keep``/``box`` give
at every roll, bit for bit, on every preset they play, whatever the number of threads, and
clear errors for arguments the fills do not take."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.threads import threads_limited
from yahtzee_sim.exact.decision_tables import decision_tables, table_method
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.exact.result import ExactEvaluationError
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import encode_state, flag_size
from yahtzee_sim.strategies import get_strategy
from yahtzee_sim.strategies.cards import CardStrategy, parse_card
from yahtzee_sim.strategies.defensive import DEFENSIVE_ZERO_ORDER
from yahtzee_sim.strategies.defensive_kernels import defensive_tables
from yahtzee_sim.strategies.glenn2006_kernels import chaser_tables
from yahtzee_sim.strategies.rule_based_v1_kernels import rules_tables
from yahtzee_sim.strategies.rule_based_v2 import Glenn2007Program
from yahtzee_sim.strategies.rule_based_v2_kernels import program_tables

from helpers import BatchedOnly

STRATEGIES = (
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
PRESETS = (
    "yahtzee",
    "yahtzee-free-joker",
    "yahtzee-no-joker",
    "yahtzee-no-bonus",
    "yahtzee-single-bonus",
    "yahtzee+forced",
    "yahtzee+fh5",
)


def level_states(rules, turn: int, n_masks: int, seed: int) -> np.ndarray:
    """Every state (each upper total and flag) of ``n_masks`` random used-masks with
    ``turn`` boxes filled, in the encoding's order."""
    rng = np.random.default_rng(seed)
    masks = np.array([m for m in range(1 << rules.n_boxes) if m.bit_count() == turn])
    masks = rng.choice(masks, size=min(n_masks, len(masks)), replace=False)
    flags = flag_size(rules) if rules.has_yahtzee_flag else 1
    used, upper, flag = np.meshgrid(
        masks, np.arange(rules.upper_cap + 1), np.arange(flags), indexing="ij"
    )
    return np.unique(encode_state(rules, used.ravel(), upper.ravel(), flag.ravel()))


@pytest.mark.parametrize("sid", STRATEGIES)
def test_the_tables_are_the_batched_decisions_bit_for_bit(sid):
    strategy = get_strategy(sid)
    for k, preset in enumerate(PRESETS):
        rules = get_rules(preset)
        if not strategy.supports(rules):
            continue
        for turn in (0, 4, 9, 12):
            states = level_states(rules, turn, 3, 10 * k + turn)
            fast = strategy.decision_table(rules, states)
            if fast is None:  # asked through keep/box instead (see below)
                assert sid == "prioritize-yahtzee-v1" and not rules.has_yahtzee_flag
                continue
            slow = decision_tables(BatchedOnly(strategy), rules, states, turn)
            for got, want in zip(fast, slow, strict=True):
                assert got.dtype == want.dtype and got.shape == want.shape, (sid, preset)
                assert np.array_equal(got, want), (sid, preset, turn)


#: A card whose rules read every kind of condition: the dice, the sheet, the upper bonus,
#: the turn, the rerolls left, a box's points and the upper box of the most common face.
EVERY_KIND = """# Rule card: yahtzee, 6 rules

rules: yahtzee

## Keeps
1. if 2 rerolls left and upper bonus needs <= 20 and 3+ dice showing 6: keep all 6s
2. if 1 reroll left and upper box of the most common face open: keep the most common face
3. if run of 4+ and small_straight open and turn >= 7: keep the longest run, one die of each face
- otherwise: keep the most common face

## Boxes
1. if chance scores >= 22 and upper bonus out of reach: score in chance
2. if 3 of a kind and upper box of the most common face open: score in sixes
3. if ones scores >= 2 and upper on par: score in ones
- otherwise: score the box with the most points (the first on the card if equal)
"""


@pytest.mark.parametrize(
    ("sid", "presets"),
    [
        ("card-10", ("yahtzee", "yatzy")),
        ("card-30", ("yahtzee",)),
        ("card-50", ("yatzy",)),
        ("card-10", ("2-yatzy",)),
        ("every-kind", ("yahtzee",)),
    ],
)
def test_a_cards_tables_are_its_batched_decisions_bit_for_bit(sid, presets):
    if sid == "every-kind":
        strategy = CardStrategy(card=parse_card(EVERY_KIND, "test card"))
    else:
        strategy = get_strategy(sid)
    for k, preset in enumerate(presets):
        rules = get_rules(preset)
        for turn in (0, 3, 8, rules.n_boxes - 1):
            states = level_states(rules, turn, 3, 7 * k + turn)
            fast = strategy.decision_table(rules, states)
            slow = decision_tables(BatchedOnly(strategy), rules, states, turn)
            for got, want in zip(fast, slow, strict=True):
                assert got.dtype == want.dtype and got.shape == want.shape, (sid, preset)
                assert np.array_equal(got, want), (sid, preset, turn)


class _Chancy(Glenn2007Program):
    """Scores Chance whenever it may: a subclass that changes the boxes."""

    def box(self, view):
        out = super().box(view)
        return np.where(view.box_points[:, -1] >= 0, len(view.rules.box_names) - 1, out)


def test_a_subclass_that_changes_keep_or_box_is_asked_through_them():
    """Its parent's tables would be the parent's decisions: the evaluator asks its own."""
    rules = get_rules("yahtzee")
    assert table_method(get_strategy("glenn-2007-rules-v2")) is not None
    assert table_method(_Chancy()) is None
    states = level_states(rules, 2, 4, 3)
    got = decision_tables(_Chancy(), rules, states, 2)
    assert np.array_equal(got[1], decision_tables(BatchedOnly(_Chancy()), rules, states, 2)[1])
    parent = decision_tables(get_strategy("glenn-2007-rules-v2"), rules, states, 2)
    assert not np.array_equal(got[1], parent[1])


def test_prioritize_yahtzee_v1_without_a_yahtzee_flag_is_still_refused():
    """Its keeps read the Yahtzee box's content, which a state without the flag does not
    hold: the tables are not given, and the position-only check refuses it as before."""
    with pytest.raises(ExactEvaluationError, match="different decisions"):
        evaluate("prioritize-yahtzee-v1", "yahtzee-no-bonus", distribution=False)


@pytest.mark.parametrize("sid", ["prioritize-upper-v2", "glenn-rational-yahtzees-v1"])
def test_the_tables_do_not_depend_on_the_number_of_threads(sid):
    rules = get_rules("yahtzee")
    strategy = get_strategy(sid)
    states = level_states(rules, 6, 40, 1)
    with threads_limited(1):
        one = strategy.decision_table(rules, states)
    with threads_limited(3):
        three = strategy.decision_table(rules, states)
    assert all(np.array_equal(a, b) for a, b in zip(one, three, strict=True))


def _arrays(n: int = 2, rolls: int = 252):
    pos = np.zeros((n, 3), dtype=np.int64)
    return pos, np.empty((n, 1, rolls), np.int16), np.empty((n, 1, rolls), np.int8)


def _fills(kr):
    rank = np.arange(13, dtype=np.int64)
    return {
        "program_tables": lambda p, k, c: program_tables(kr, rank, True, False, False, p, k, c),
        "chaser_tables": lambda p, k, c: chaser_tables(kr, 0, rank, p, k, c),
        "rules_tables": lambda p, k, c: rules_tables(kr, True, rank, False, False, p, k, c),
        "defensive_tables": lambda p, k, c: defensive_tables(kr, DEFENSIVE_ZERO_ORDER, p, k, c),
    }


@pytest.mark.parametrize(
    "name", ["program_tables", "chaser_tables", "rules_tables", "defensive_tables"]
)
def test_the_fills_refuse_what_they_do_not_take(name):
    kr = kernel_rules(get_rules("yahtzee"))
    fill = _fills(kr)[name]
    pos, keep, cat = _arrays()
    with pytest.raises(ValueError, match="3 columns"):
        fill(np.zeros((2, 2), dtype=np.int64), keep, cat)
    with pytest.raises(ValueError, match="shape"):
        fill(pos, keep[:1], cat)
    with pytest.raises(ValueError, match="used-masks"):
        fill(pos + np.array([1 << 13, 0, 0]), keep, cat)
    with pytest.raises(ValueError, match="upper totals"):
        fill(pos + np.array([0, 64, 0]), keep, cat)
    with pytest.raises(ValueError, match="flags"):
        fill(pos + np.array([0, 0, 5]), keep, cat)
    with pytest.raises(ValueError, match="dtype|type"):
        fill(pos.astype(np.int32), keep, cat)
    fill(pos, keep, cat)  # the empty sheet: every roll decided
    assert (keep >= 0).all() and (cat >= 0).all()
    if name != "chaser_tables":  # (the chasers' kernels play any six-face rules)
        with pytest.raises(ValueError, match="13-box, 6-face Yahtzee rules"):
            _fills(kernel_rules(get_rules("yatzy")))[name](pos, keep, cat)
