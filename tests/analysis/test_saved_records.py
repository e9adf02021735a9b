"""Records of every preset read back, and the analysis of games with saved rolls."""

from __future__ import annotations

import re

import numpy as np
import pytest

from yahtzee_sim import get_rules, simulate
from yahtzee_sim.analysis.decisions.coach import (
    SOLVE_ON_DEMAND_STATES,
    TableMissingError,
    analyze_records,
)
from yahtzee_sim.apps.game import Game
from yahtzee_sim.cli import main
from yahtzee_sim.engine.records import (
    RecordError,
    check_record,
    read_records,
    record_games,
    write_records,
)
from yahtzee_sim.game.presets import PRESETS
from yahtzee_sim.game.state import n_states
from yahtzee_sim.solving.advisor import advise

from helpers import small_saved_game

#: Every preset, and house-rule switches on them (one of each kind, saved-roll caps too).
RULE_NAMES = (
    *PRESETS,
    "yatzy+fh5+tp4",
    "yahtzee+forced",
    "yatzy@4",
    "maxi-yatzy+cap1",
    "maxi-yatzy+bonus100",
    "maxi-yatzy-3+bonus100",
)


@pytest.mark.parametrize("name", RULE_NAMES)
def test_simulated_records_of_every_preset_read_back(name, tmp_path):
    rules = get_rules(name)
    recs = record_games("greedy", 4, seed=5, rules=rules)
    path = write_records(tmp_path / "g.jsonl", recs)
    games = read_records(path)
    np.testing.assert_array_equal(
        [g.final for g in games], simulate("greedy", 4, seed=5, rules=rules).total
    )
    assert all(g.complete for g in games)


@pytest.mark.slow
@pytest.mark.parametrize("name", RULE_NAMES)
def test_records_of_every_preset_are_graded_or_refused_in_one_line(name):
    rules = get_rules(name)
    games = [check_record(r) for r in record_games("greedy", 3, seed=5, rules=rules)]
    if n_states(rules) <= SOLVE_ON_DEMAND_STATES:
        assert analyze_records(games).identity_error() < 1e-9
    else:  # no hour-long solve on its own: one line naming the command
        with pytest.raises(TableMissingError, match=re.escape(f"yahtzee-sim solve --rules {name}")):
            analyze_records(games)


def _play_greedy_by_hand(game: Game) -> None:
    """Play ``game`` to the end: keep the most common face, stop when a box scores its
    best, write the best-scoring box."""
    rng = np.random.default_rng(3)
    while not game.over:
        if game.rolls_left and rng.random() < 0.7:
            dice = game.dice()
            face = max(set(dice), key=dice.count)
            game.keep([d for d in dice if d == face])
        else:
            if game.rolls_left:
                game.keep(game.dice())  # stop rolling (saving the rolls left)
            pts = game.points()
            game.box(max(pts, key=pts.get))


@pytest.mark.parametrize(
    "rules",
    ["yahtzee", "yatzy", "yacht", "2-yatzy", small_saved_game(cap=5), small_saved_game(cap=2)],
    ids=lambda r: r if isinstance(r, str) else f"small-saved-cap{r.saved_roll_cap}",
)
def test_played_records_read_back_and_are_graded(rules, tmp_path):
    game = Game(rules, seed=2, game=1)
    _play_greedy_by_hand(game)
    path = write_records(tmp_path / "p.jsonl", [game.record_so_far()])
    (rec,) = read_records(path, rules)
    assert rec.complete and rec.final == game.state()["score"]
    res = analyze_records([rec])
    assert res.identity_error() < 1e-9
    # the coach's losses are the analysis's, decision for decision
    np.testing.assert_allclose(res.decisions["loss"], game.losses, atol=1e-9)


def test_saved_roll_records_count_the_bank():
    rules = small_saved_game(cap=2)
    # turn 1 stops after its first roll (1 roll saved), turn 2 uses 3 rolls
    turns = [
        {"rolls": [[3, 3, 3]], "keeps": [], "box": "all"},
        {"rolls": [[1, 2, 2], [1, 2, 3], [2, 2, 3]], "keeps": [[1, 2], [2]], "box": "twos"},
    ]
    rec = check_record({"rules": rules.name, "turns": turns}, rules)
    assert [(d.rolls_left, d.bank, d.saved) for d in rec.decisions] == [
        (1, 0, 1),  # stop with one reroll left: saves it
        (0, 0, 1),
        (2, 1, 0),
        (1, 1, 0),
        (0, 1, 0),
    ]
    assert rec.saved == 0
    too_many = [turns[0], {**turns[1], "rolls": [*turns[1]["rolls"], [2, 2, 2]]}]
    too_many[1]["keeps"] = [*turns[1]["keeps"], [2, 2]]
    with pytest.raises(RecordError, match=r"4 rolls, the rules allow 3 \(2 and 1 saved\)"):
        check_record({"rules": rules.name, "turns": too_many}, rules)


@pytest.mark.parametrize("strategy", ["greedy", "random"])
def test_saved_roll_grades_are_the_advisors_and_add_up(strategy):
    rules = small_saved_game(cap=2)
    games = [check_record(r, rules) for r in record_games(strategy, 40, seed=9, rules=rules)]
    res = analyze_records(games)
    assert res.identity_error() < 1e-9
    np.testing.assert_allclose(res.games["expected_final"], res.games["score"])
    t, names = rules.tables, rules.box_names
    stops = 0
    for i, dec in enumerate(d for g in games[:8] for d in g.decisions):
        row = res.decisions.iloc[i]
        opts = advise(
            list(t.faces_from_counts(t.roll_counts[dec.roll])),
            dec.rolls_left,
            [n for c, n in enumerate(names) if (dec.used >> c) & 1],
            dec.upper_total,
            rules=rules,
            saved_rolls=dec.saved if dec.rolls_left == 0 else 0,
        )
        if dec.rolls_left:
            taken = t.faces_from_counts(t.keep_counts[dec.action])
            chosen = next(o for o in opts if o.keep == taken)
            stops += len(taken) == rules.n_dice
        else:
            chosen = next(o for o in opts if o.box == names[dec.action - t.n_keeps])
        assert row["expected_before"] - dec.score == pytest.approx(opts[0].value, abs=1e-9)
        assert row["expected_after"] - dec.score == pytest.approx(chosen.value, abs=1e-9)
    assert stops > 0  # stopping early to bank rolls was graded


def test_optimal_play_of_a_saved_roll_game_loses_nothing():
    rules = small_saved_game(cap=5)
    games = [check_record(r, rules) for r in record_games("optimal", 60, seed=1, rules=rules)]
    res = analyze_records(games)
    assert res.games["regret"].max() < 1e-9
    np.testing.assert_allclose(res.games["luck"], res.games["score"] - res.start_value)


def test_analyze_of_maxi_yatzy_without_its_table_names_the_solve(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    rc = main(["simulate", "--rules", "maxi-yatzy", "--strategy", "greedy", "--games", "2",
               "--record", str(path), "--quiet"])  # fmt: skip
    assert rc == 0
    capsys.readouterr()
    assert main(["analyze", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "yahtzee-sim solve --rules maxi-yatzy" in err and "not solved yet" in err
