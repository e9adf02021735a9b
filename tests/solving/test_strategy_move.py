"""A strategy's move at one position (yahtzee_sim.solving.strategy_move) and the rule of a card
that decides it (CardStrategy.explain)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim import advise, get_rules
from yahtzee_sim.errors import IllegalMoveError, StrategyError
from yahtzee_sim.solving.advisor import AdvisorPosition, check_position, reachable_upper_totals
from yahtzee_sim.solving.strategy_move import strategy_move
from yahtzee_sim.strategies import Strategy, get_strategy
from yahtzee_sim.strategies.cards import (
    BOX_FALLBACK,
    KEEP_FALLBACK,
    explain_position,
    filled_count,
    vocabulary,
)

YAHTZEE = get_rules("yahtzee")


@st.composite
def positions(draw, rules=YAHTZEE):
    """A position the rules can produce: dice, rerolls left, filled boxes, upper total."""
    dice = draw(st.lists(st.integers(1, rules.n_faces), min_size=5, max_size=5))
    rolls_left = draw(st.integers(0, rules.rolls_per_turn - 1))
    names = rules.box_names
    used = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names) - 1))
    mask = sum(1 << rules.box_index(n) for n in used)
    upper = draw(st.sampled_from(sorted(reachable_upper_totals(rules, mask))))
    return dice, rolls_left, used, upper


def all_hold(vocab, pos, rule) -> bool:
    """Whether every condition of ``rule`` holds at ``pos`` (the vocabulary evaluates)."""
    view = pos.view()
    points = np.asarray(view.box_points)
    cols = [vocab.condition_index[c] for c in rule.conditions]
    X = vocab.conditions(
        np.array([pos.roll]),
        np.array([pos.used]),
        np.array([pos.upper]),
        np.array([pos.rolls_left]),
        filled_count(np.array([pos.used])),
        points,
        cols,
    )
    return bool(X.all())


@pytest.mark.parametrize("size", [10, 30])
@settings(max_examples=50, deadline=None)
@given(position=positions())
def test_the_rule_that_decides_is_the_first_that_holds_and_plays_the_move(size, position):
    dice, rolls_left, used, upper = position
    card = get_strategy(f"card-{size}")
    card.prepare(YAHTZEE)
    pos = check_position(AdvisorPosition(dice, rolls_left, used, upper, rules=YAHTZEE))
    said = explain_position(card, AdvisorPosition(dice, rolls_left, used, upper))
    vocab = vocabulary(YAHTZEE)
    view = pos.view()
    section = card._compiled.card.keeps if rolls_left else card._compiled.card.boxes
    points = view.box_points[0]

    def fires(rule) -> bool:
        if not all_hold(vocab, pos, rule):
            return False
        if rule.section == "keep":
            return True
        box = vocab.box_table[pos.roll, vocab.box_index[rule.move]]
        return points[box] >= 0  # a box rule whose box cannot take the roll is skipped

    first = next((i for i, r in enumerate(section) if fires(r)), None)
    assert said.section == ("keep" if rolls_left else "box")
    assert said.number == (None if first is None else first + 1)
    if rolls_left:
        move = section[first].move if first is not None else KEEP_FALLBACK
        assert said.text.endswith(move)
        keep = vocab.keep_table[pos.roll, vocab.keep_index[move]]
        want = YAHTZEE.tables.keep_counts[keep]
        assert (card.keep(view)[0] == want).all()
    else:
        move = section[first].move if first is not None else BOX_FALLBACK
        assert said.text.endswith(move)
        if first is None:
            assert card.box(view)[0] == int(np.argmax(points))
        else:
            box = vocab.box_table[pos.roll, vocab.box_index[move]]
            assert card.box(view)[0] == box


@settings(max_examples=25, deadline=None)
@given(position=positions(), sid=st.sampled_from(["card-20", "greedy", "optimal", "defensive"]))
def test_the_move_is_the_strategys_and_valued_by_the_advisor(position, sid):
    dice, rolls_left, used, upper = position
    options = advise(dice, rolls_left, used, upper)
    says = strategy_move(sid, AdvisorPosition(dice, rolls_left, used, upper))
    strategy = get_strategy(sid)
    strategy.prepare(YAHTZEE)
    view = check_position(AdvisorPosition(dice, rolls_left, used, upper)).view()
    if rolls_left:
        keep = strategy.keep(view)[0]
        assert says.option.keep == tuple(YAHTZEE.tables.faces_from_counts(keep))
    else:
        assert says.option.box == YAHTZEE.box_names[int(strategy.box(view)[0])]
    assert says.option in options and options[says.rank - 1] == says.option
    assert says.loss == pytest.approx(options[0].value - says.option.value, abs=1e-12)
    assert says.loss >= 0
    if sid == "optimal":
        assert says.loss == pytest.approx(0, abs=1e-9)
    assert (says.reason is not None) == sid.startswith("card")
    d = says.to_dict()
    assert d["label"] == sid and d["text"].startswith(f"{sid} says: {says.move}")


def test_a_card_says_its_rule_in_one_line():
    says = strategy_move("card-10", AdvisorPosition([2, 3, 3, 3, 6], 0, used=["chance"]))
    assert says.move == "Threes" and says.reason.number == 4
    assert says.line() == (
        "card-10 says: Threes (rule 4: if 3 of a kind: score in the upper box of the most "
        "common face): the best move"
    )
    says = strategy_move("card-10", AdvisorPosition([1, 3, 4, 5, 5], 2))
    assert says.loss > 0 and says.rank > 1
    assert says.line().endswith(f"-{says.loss:.2f} points against optimal (option {says.rank})")
    other = strategy_move("card-10", AdvisorPosition([1, 2, 4, 5, 6], 0, used=["chance"]))
    assert other.reason.number is None and other.reason.line() == f"otherwise: {BOX_FALLBACK}"


def test_yatzy_cards_and_bad_strategies():
    says = strategy_move("card-30", AdvisorPosition([1, 1, 2, 2, 6], 1, rules="yatzy"))
    assert says.reason is not None and says.option in advise([1, 1, 2, 2, 6], 1, rules="yatzy")
    with pytest.raises(StrategyError, match="unknown strategy 'nope'"):
        strategy_move("nope", AdvisorPosition([1, 2, 3, 4, 5], 1))
    with pytest.raises(StrategyError, match="at random"):
        strategy_move("random", AdvisorPosition([1, 2, 3, 4, 5], 1))
    with pytest.raises(StrategyError, match="needs the 13 Yahtzee boxes"):
        strategy_move("defensive", AdvisorPosition([1, 2, 3, 4, 5], 1, rules="yatzy"))
    with pytest.raises(StrategyError, match="score so far"):
        strategy_move("chase", AdvisorPosition([1, 2, 3, 4, 5], 1))
    assert strategy_move("chase", AdvisorPosition([1, 2, 3, 4, 5], 1), score=100).loss >= 0


class _Cheat(Strategy):
    """Keeps a six it does not have; writes every roll in Chance."""

    def keep(self, view):
        out = np.zeros((len(view), view.rules.n_faces), dtype=np.int64)
        out[:, 5] = 1
        return out

    def box(self, view):
        return np.full(len(view), view.rules.box_index("chance"))


def test_an_illegal_move_is_named():
    with pytest.raises(IllegalMoveError, match=r"illegal keep at rolls left 2.*keep \[6\]"):
        strategy_move(_Cheat(), AdvisorPosition([1, 2, 3, 4, 5], 2))
    with pytest.raises(IllegalMoveError, match=r"chance \(already filled\)"):
        strategy_move(_Cheat(), AdvisorPosition([1, 2, 3, 4, 5], 0, used=["chance"]))


def test_cli_advise_with_a_strategy(capsys):
    from yahtzee_sim.cli import main

    args = ["advise", "--dice", "2,3,3,3,6", "--rolls-left", "0", "--used", "chance"]
    assert main([*args, "--strategy", "card-10", "--top", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    says = strategy_move("card-10", AdvisorPosition([2, 3, 3, 3, 6], 0, used=["chance"]))
    assert len(lines) == 3 and lines[-1] == says.line()
    assert main([*args, "--strategy", "greedy", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["strategy"]
    assert got["id"] == "greedy" and got["rule"] is None and got["move"] == "Three of a kind"
    assert got["loss"] > 0 and got["rank"] == 2
    for bad in ("random", "card:/no/such/card.md", "target:300"):
        assert main([*args, "--strategy", bad]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "error" in err
