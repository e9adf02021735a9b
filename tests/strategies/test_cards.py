"""Rule cards: the Markdown format, its errors, and the card strategies."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim import get_rules, simulate
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.strategies import check_strategy, get_strategy
from yahtzee_sim.strategies.cards import (
    BOX_FALLBACK,
    KEEP_FALLBACK,
    SIZES,
    Card,
    CardError,
    CardStrategy,
    Rule,
    load_card,
    parse_card,
    shipped_card_path,
    vocabulary,
)

from helpers import view_for

YAHTZEE = get_rules("yahtzee")
VOCAB = vocabulary(YAHTZEE)
KEEP_CONDS = [c for c, ok in zip(VOCAB.condition_texts, VOCAB.keep_groups, strict=True) if ok]
BOX_CONDS = [c for c, ok in zip(VOCAB.condition_texts, VOCAB.box_groups, strict=True) if ok]


def _rules(section: str):
    conds = KEEP_CONDS if section == "keep" else BOX_CONDS
    moves = VOCAB.keep_texts if section == "keep" else VOCAB.box_texts
    return st.builds(
        lambda c, m: Rule(section, tuple(c), m),
        st.lists(st.sampled_from(conds), max_size=3, unique=True),
        st.sampled_from(moves),
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(_rules("keep"), max_size=6), st.lists(_rules("box"), max_size=6))
def test_format_parse_round_trip(keeps, boxes):
    card = Card("yahtzee", keeps, boxes)
    text = card.format()
    assert parse_card(text) == card
    assert card.n_rules == len(keeps) + len(boxes)
    assert text.count("- otherwise:") == 2


GOOD = """# A card

rules: yahtzee

## Keeps
1. if 2 rerolls left and run of 4+: keep the longest run, one die of each face
- otherwise: keep the most common face

## Boxes
1. if sixes scores >= 18: score in sixes
2. always: score in chance
- otherwise: score the box with the most points (the first on the card if equal)

## Notes
anything goes here
"""


def test_good_card_parses():
    card = parse_card(GOOD)
    assert card.rules == "yahtzee" and card.n_rules == 3
    assert card.boxes[1] == Rule("box", (), "score in chance")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("rules: yahtzee", "", "no 'rules: NAME' line"),
        ("rules: yahtzee", "rules: nope", "unknown rules"),
        ("run of 4+", "run of 9+", r"line 6, keep rule 1: unknown condition 'run of 9\+'"),
        ("2. always", "3. always", "line 11: box rule numbered 3, expected 2"),
        ("score in chance", "score in the bin", "line 11, box rule 2: unknown box move"),
        ("keep the longest run", "keep the best", "line 6, keep rule 1: unknown keep move"),
        ("2 rerolls left and", "sixes scores >= 18 and", "cannot be used in a keep rule"),
        ("sixes scores >= 18", "2 rerolls left", "cannot be used in a box rule"),
        ("- otherwise: keep the most common face", "", "has no '- otherwise:' line"),
        ("- otherwise: keep the most", "- otherwise: keep the least", "line 7: the keep section"),
        ("2. always: score in chance", "2. score in chance", "line 11: not a rule"),
        ("## Boxes", "## Scores", "line 9: unexpected section"),
    ],
)
def test_malformed_cards_name_line_and_rule(old, new, message):
    with pytest.raises(CardError, match=message) as info:
        parse_card(GOOD.replace(old, new))
    assert isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)


def test_missing_card_file(tmp_path):
    with pytest.raises(CardError, match="cannot read card"):
        load_card(tmp_path / "none.md")
    with pytest.raises(CardError, match="cannot read card"):
        simulate(f"card:{tmp_path / 'none.md'}", 5)


def test_card_decides_first_rule_that_holds(tmp_path):
    path = tmp_path / "c.md"
    path.write_text(GOOD)
    s = get_strategy(f"card:{path}")
    assert isinstance(s, CardStrategy) and s.path == str(path)
    s.prepare(YAHTZEE)
    # 18 in sixes: rule 1
    assert s.box(view_for("yahtzee", (6, 6, 6, 2, 3)))[0] == YAHTZEE.box_index("sixes")
    # sixes filled: rule 2 (always chance)
    v = view_for("yahtzee", (6, 6, 6, 2, 3), used=("sixes",))
    assert s.box(v)[0] == YAHTZEE.box_index("chance")
    # chance filled too: the box with the most points, the first on ties
    v = view_for("yahtzee", (6, 6, 6, 2, 3), used=("sixes", "chance"))
    assert s.box(v)[0] == YAHTZEE.box_index("three_of_a_kind")
    # keeps: a run of 4 with 2 rerolls left, else the most common face
    keep = s.keep(view_for("yahtzee", (1, 2, 3, 4, 4), rolls_left=2))[0]
    assert keep.tolist() == [1, 1, 1, 1, 0, 0]
    keep = s.keep(view_for("yahtzee", (1, 2, 3, 4, 4), rolls_left=1))[0]
    assert keep.tolist() == [0, 0, 0, 2, 0, 0]


def test_fallback_lines_are_the_vocabulary_moves():
    assert KEEP_FALLBACK in VOCAB.keep_texts
    assert BOX_FALLBACK not in VOCAB.box_texts


@pytest.mark.parametrize("family", ["yahtzee", "yatzy"])
@pytest.mark.parametrize("size", SIZES)
def test_shipped_cards_parse_and_fit_their_size(family, size):
    ref = shipped_card_path(get_rules(family), size)
    if (family, size) == ("yahtzee", 100):
        assert ref is None  # the 100-rule card is Yatzy's (the published size to beat)
        with pytest.raises(ValueError, match="no shipped 100-rule card"):
            get_strategy("card-100").prepare(get_rules(family))
        return
    assert ref is not None, f"no shipped {family} card of {size} rules"
    card = parse_card(ref.read_text(encoding="utf-8"))
    assert card.rules == family and 0 < card.n_rules <= size


@pytest.mark.slow
def test_card_strategy_passes_check_strategy():
    check_strategy("card-10", rules="yahtzee", n_games=100, n_positions=60)
    check_strategy("card-10", rules="yatzy", n_games=100, n_positions=60)


def _noted_mean(text: str) -> float:
    m = re.search(r"exact mean ([0-9.]+)", text)
    assert m, "the shipped card states its exact mean"
    return float(m.group(1))


@pytest.mark.slow
@pytest.mark.parametrize("family", ["yahtzee", "yatzy"])
@pytest.mark.parametrize("size", SIZES)
def test_shipped_card_exact_mean_matches_simulation(family, size):
    """The exact mean written on every shipped card agrees with 20,000 simulated games
    (4 SE ≈ 1.2 points). The engine and the exact evaluator agree on card play (box by
    box, ``test_exact``'s ``card-10`` case); this pins each card file's stated figure."""
    ref = shipped_card_path(get_rules(family), size)
    if ref is None:
        pytest.skip(f"no shipped {family} card of {size} rules")
    exact = _noted_mean(ref.read_text(encoding="utf-8"))
    res = simulate(f"card-{size}", 20_000, seed=5, rules=family)
    se = res.total.std() / np.sqrt(len(res.total))
    assert abs(res.total.mean() - exact) < 4 * se


def test_small_card_exact_law_equals_simulation():
    two = get_rules("2-yatzy")
    ref = shipped_card_path(two, 10)
    exact = evaluate("card-10", two)
    assert exact.mean == pytest.approx(_noted_mean(ref.read_text(encoding="utf-8")), abs=5e-5)
    res = simulate("card-10", 20_000, seed=2, rules=two)
    se = res.total.std() / np.sqrt(len(res.total))
    assert abs(res.total.mean() - exact.mean) < 4 * se
