"""The terminal game: scripted input, over a pipe, with the coach."""

from __future__ import annotations

import subprocess
import sys

import pytest

from yahtzee_sim import simulate
from yahtzee_sim.observation import observe
from yahtzee_sim.play import EndOfInput, Game, MoveError, keep_reason, play, upper_outlook
from yahtzee_sim.records import check_record
from yahtzee_sim.rules import get_rules
from yahtzee_sim.strategies import as_policy


def _scripted(lines):
    it = iter(lines)

    def ask(prompt):
        try:
            return next(it)
        except StopIteration:
            raise EndOfInput("end") from None

    return ask


def test_a_whole_game_played_as_greedy_matches_the_engine():
    """Play every move as greedy would: the game is greedy's game of that seed."""
    rules = get_rules("yahtzee")
    policy = as_policy("greedy", rules)
    t = rules.tables
    game = Game(rules, seed=9, game=4)
    words = []
    while not game.over:
        b = game.batch
        obs = observe(rules, b.dice, game.rolls_left, b.used, b.upper_total, b.flag, b.score)
        a = int(policy(obs, None)[0])
        if a >= t.n_keeps:
            words.append(game.box(rules.category_names[a - t.n_keeps]))
        else:
            words.append(game.keep(list(t.faces_from_counts(t.keep_counts[a]))))
    rec = check_record(game.record)
    assert rec.complete and rec.final == simulate("greedy", 5, seed=9).total[4]
    assert game.state()["over"] and game.state()["score"] == rec.final
    s = game.summary()
    assert s["regret"] == pytest.approx(sum(w.loss for w in words))
    assert s["expected_final"] == rec.final
    with pytest.raises(MoveError, match="over"):
        game.box("chance")


def test_bad_answers_are_asked_again_and_the_input_may_end():
    said = []
    rec = play("yahtzee", ask=_scripted(["7 7", "9", "-", "all", "zzz", "ch"]), say=said.append)
    text = "\n".join(said)
    assert "hold some of" in text and "name one open box" in text
    assert rec["turns"][0]["box"] == "chance" and rec["turns"][0]["keeps"] == [[]]
    assert "input ended" in text and "score so far" in said[-1]


def test_manual_dice_must_hold_the_kept_dice():
    said = []
    answers = ["1 2 3 4 5", "1 2 3 4", "5 5 5 5 5", "1 2 3 4 6", "all", "large"]
    rec = play("yahtzee", ask=_scripted(answers), say=said.append, manual=True)
    assert rec["turns"][0]["rolls"] == [[1, 2, 3, 4, 5], [1, 2, 3, 4, 6]]
    assert any("lost the kept" in s for s in said)
    assert "seed" not in rec  # a real game's dice: no seed


def test_coach_reasons():
    rules = get_rules("yahtzee")
    open_ = list(rules.category_names)
    assert "large_straight" in keep_reason(rules, (2, 3, 4, 5), open_)
    assert "sixes" in keep_reason(rules, (6, 6, 6), open_)
    assert "fresh roll" in keep_reason(rules, (), open_)
    assert "20 more needed" in upper_outlook(rules, ["sixes", "fives"], 43)
    assert "secured" in upper_outlook(rules, [], 63)


def test_cli_play_over_a_pipe(tmp_path):
    rec = tmp_path / "g.jsonl"
    script = "all\nchance\n5 5\n-\nfives\n"
    out = subprocess.run(
        [sys.executable, "-m", "yahtzee_sim.cli", "play", "--seed", "1", "--record", str(rec)],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "coach:" in out.stdout and "game record written" in out.stdout
    assert rec.exists()
    bad = subprocess.run(
        [sys.executable, "-m", "yahtzee_sim.cli", "play", "--rules", "nope"],
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "nope" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize("rules", ["yatzy"])
def test_plays_other_rules(rules):
    said = []
    rec = play(rules, ask=_scripted(["all", "chance"]), say=said.append, seed=2)
    assert rec["rules"] == rules and rec["turns"][0]["box"] == "chance"
    assert any(s.startswith("  boxes:") and "one_pair" in s for s in said)
