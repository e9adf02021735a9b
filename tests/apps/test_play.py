"""The terminal game: scripted input, over a pipe, with the coach."""

from __future__ import annotations

import subprocess
import sys

import pytest

from yahtzee_sim import simulate
from yahtzee_sim.apps.game import Game, MoveError, keep_reason
from yahtzee_sim.apps.score_sheet import upper_outlook
from yahtzee_sim.apps.terminal import HELP, play, sheet_lines
from yahtzee_sim.engine.observation import observe
from yahtzee_sim.engine.records import check_record
from yahtzee_sim.game.boxnames import BoxNameError, match_box, normalize
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.strategies import as_policy

from helpers import scripted_answers


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
            words.append(game.box(rules.box_names[a - t.n_keeps]))
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
    rec = play(
        "yahtzee", ask=scripted_answers(["7 7", "9", "-", "all", "zzz", "ch"]), say=said.append
    )
    text = "\n".join(said)
    assert "hold some of" in text and "'zzz' names no open box; open: Ones, Twos" in text
    assert rec["turns"][0]["box"] == "chance" and rec["turns"][0]["keeps"] == [[]]
    assert "input ended" in text and "score so far" in said[-1]


def test_manual_dice_must_hold_the_kept_dice():
    said = []
    answers = ["1 2 3 4 5", "1 2 3 4", "5 5 5 5 5", "1 2 3 4 6", "all", "large"]
    rec = play("yahtzee", ask=scripted_answers(answers), say=said.append, manual=True)
    assert rec["turns"][0]["rolls"] == [[1, 2, 3, 4, 5], [1, 2, 3, 4, 6]]
    assert any("lost the kept" in s for s in said)
    assert "seed" not in rec  # a real game's dice: no seed


def test_coach_reasons():
    rules = get_rules("yahtzee")
    open_ = list(rules.box_names)
    assert "Large straight" in keep_reason(rules, (2, 3, 4, 5), open_)
    assert "Sixes" in keep_reason(rules, (6, 6, 6), open_)
    assert "fresh roll" in keep_reason(rules, (), open_)
    assert "20 more needed" in upper_outlook(rules, ["sixes", "fives"], 43)
    assert "secured" in upper_outlook(rules, [], 63)


def _cli_play(*args: str, script: str = ""):
    """``yahtzee-sim play ARGS`` in a subprocess, ``script`` as its input."""
    return subprocess.run(
        [sys.executable, "-m", "yahtzee_sim.cli", "play", *args],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_cli_play_over_a_pipe(tmp_path):
    rec = tmp_path / "g.jsonl"
    out = _cli_play("--seed", "1", "--record", str(rec), script="all\nchance\n5 5\n-\nfives\n")
    assert out.returncode == 0, out.stderr
    assert "coach:" in out.stdout and "game record written" in out.stdout
    assert rec.exists()
    bad = _cli_play("--rules", "nope")
    assert bad.returncode == 2 and "nope" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["yatzy"])
def test_plays_other_rules(rules):
    said = []
    rec = play(rules, ask=scripted_answers(["all", "chance"]), say=said.append, seed=2)
    assert rec["rules"] == rules and rec["turns"][0]["box"] == "chance"
    assert any(s.startswith("  boxes:") and "One pair" in s for s in said)


@pytest.mark.parametrize(
    ("rules", "typed", "box"),
    [
        ("yahtzee", "ss", "small_straight"),
        ("yahtzee", "SM", "small_straight"),
        ("yahtzee", "small", "small_straight"),
        ("yahtzee", "Small Straight", "small_straight"),
        ("yahtzee", "small-straight", "small_straight"),
        ("yahtzee", " sm st ", "small_straight"),
        ("yahtzee", "ls", "large_straight"),
        ("yahtzee", "large", "large_straight"),
        ("yahtzee", "fh", "full_house"),
        ("yahtzee", "full", "full_house"),
        ("yahtzee", "3k", "three_of_a_kind"),
        ("yahtzee", "3x", "three_of_a_kind"),
        ("yahtzee", "toak", "three_of_a_kind"),
        ("yahtzee", "three", "three_of_a_kind"),
        ("yahtzee", "Three of a kind", "three_of_a_kind"),
        ("yahtzee", "threes", "threes"),
        ("yahtzee", "3s", "threes"),
        ("yahtzee", "4k", "four_of_a_kind"),
        ("yahtzee", "four", "four_of_a_kind"),
        ("yahtzee", "fours", "fours"),
        ("yahtzee", "y", "yahtzee"),
        ("yahtzee", "Yatzy", "yahtzee"),
        ("yahtzee", "ch", "chance"),
        ("yahtzee", "1s", "ones"),
        ("yahtzee", "ONES", "ones"),
        ("yahtzee", "six", "sixes"),
        ("yatzy", "1p", "one_pair"),
        ("yatzy", "pair", "one_pair"),
        ("yatzy", "one pair", "one_pair"),
        ("yatzy", "2p", "two_pairs"),
        ("yatzy", "two_pairs", "two_pairs"),
        ("yatzy", "y", "yatzy"),
        ("yatzy", "yahtzee", "yatzy"),
        ("yatzy", "3k", "three_of_a_kind"),
    ],
)
def test_box_names_abbreviations_and_prefixes(rules, typed, box):
    assert match_box(get_rules(rules), typed) == box


def test_box_name_errors_list_candidates_in_score_sheet_order():
    rules = get_rules("yahtzee")
    with pytest.raises(BoxNameError, match=r"'f' fits Fours, Fives, Four of a kind, Full house"):
        match_box(rules, "f")
    with pytest.raises(BoxNameError, match=r"'t' fits Twos, Threes, Three of a kind"):
        match_box(rules, "t")
    # among the open boxes only: a prefix that fits one open box picks it
    assert match_box(rules, "f", ["ones", "full_house", "chance"]) == "full_house"
    with pytest.raises(BoxNameError, match=r"Small straight: already filled; open: Ones, Chance"):
        match_box(rules, "ss", ["chance", "ones"], filled=["small_straight"])
    with pytest.raises(BoxNameError, match=r"Chance: not open to this roll; open: Sixes"):
        match_box(rules, "chance", ["sixes"])
    with pytest.raises(BoxNameError, match=r"'nothing' names no open box"):
        match_box(rules, "  ")
    assert normalize(" Small -_ Straight ") == "small_straight"
    assert rules.box_labels[6] == "Three of a kind"
    assert get_rules("yatzy").box_labels[:8][-2:] == ("One pair", "Two pairs")


def test_abbreviations_play_and_the_sheet_and_help_commands():
    said = []
    answers = ["help", "sheet", "all", "CH", "card", "quit", "never read"]  # card: alias
    rec = play("yahtzee", ask=scripted_answers(answers), say=said.append, seed=3)
    assert rec["turns"][0]["box"] == "chance"
    text = "\n".join(said)
    assert HELP in said and "(the game stops here)" in said
    sheets = [s for s in said if s.startswith("  score sheet")]
    assert len(sheets) == 2
    first = sheets[0]
    chance = [next(ln for ln in c.splitlines() if "Chance" in ln).split() for c in sheets]
    assert chance == [["Chance"], ["Chance", str(sum(rec["turns"][0]["rolls"][0]))]]
    assert "upper total" in first and "63 more needed" in first and "Yahtzee bonuses" in first
    assert "boxes: Ones" in text  # labels, in score-sheet order


@pytest.mark.slow
def test_sheet_lines_show_every_box_bonus_progress_and_total():
    rules = get_rules("yatzy")
    game = Game(rules, seed=1)
    game.keep(game.dice())
    game.box("chance")
    lines = sheet_lines(game)
    assert len([ln for ln in lines if ln.startswith("    ") and not ln.startswith("      ")]) == (
        rules.n_boxes + 2  # upper total, total (no Yahtzee bonus in Yatzy)
    )
    assert lines[-1].split() == ["total", str(game.state()["score"])]
    chance = next(ln for ln in lines if ln.strip().startswith("Chance"))
    assert chance.split()[-1] == str(game.state()["sheet"]["chance"])
    assert next(ln for ln in lines if ln.strip().startswith("Ones")).split() == ["Ones"]


def test_a_terminal_game_against_an_opponent_with_a_second_opinion():
    boxes = list(get_rules("yahtzee").box_names)

    def ask(prompt):  # stop rolling at once; try the boxes in score-sheet order
        if prompt.startswith("keep>"):
            return "all"
        ask.n += 1
        return boxes[ask.n % len(boxes)]

    ask.n = -1
    said = []
    rec = play("yahtzee", ask=ask, say=said.append, seed=2, opponent="greedy", compare="card-30")
    opp_lines = [s for s in said if s.startswith("  greedy: rolled ")]
    says = [s for s in said if s.startswith("  card-30 says: ")]
    assert len(opp_lines) == 13 and len(says) == 26
    mine, total = check_record(rec).final, check_record(rec["opponent"]).final
    end = ": you win" if mine > total else ": greedy wins" if total > mine else ": a tie"
    assert opp_lines[-1].endswith(f"you {mine}, greedy {total}{end}")
    assert f"greedy {total}" in opp_lines[-1]
    assert rec == play(  # the same seed and moves: the same game, the same opponent
        "yahtzee", ask=_reset(ask), say=lambda s: None, seed=2, opponent="greedy"
    )


def _reset(ask):
    ask.n = -1
    return ask


@pytest.mark.slow
def test_cli_play_against_an_opponent():
    args = ("--seed", "1", "--opponent", "win-aware", "--compare", "card-10")
    out = _cli_play(*args, script="all\nchance\n")
    assert out.returncode == 0, out.stderr
    assert "win-aware: rolled" in out.stdout and "card-10 says:" in out.stdout
    bad = _cli_play("--opponent", "nope")
    assert bad.returncode == 2 and "unknown strategy 'nope'" in bad.stderr
