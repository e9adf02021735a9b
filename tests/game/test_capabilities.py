"""What kind of game a rule set is (``GameType``) and which games a feature takes, declared
as data (``GameNeeds``, ``Feature``): each feature written for fixed rolls refuses a game
with saved rolls in one line naming itself."""

import importlib

import pytest

from yahtzee_sim import RulesError, get_rules
from yahtzee_sim.game.capabilities import (
    FIXED_ROLLS,
    ROLL_SCHEMES,
    Feature,
    GameNeeds,
    GameType,
)

SAVED = "not available for games with saved rolls"


def test_a_rule_set_describes_its_game_type():
    yahtzee = get_rules("yahtzee").game_type
    assert yahtzee == GameType("fixed", 5, 6, get_rules("yahtzee").box_names, False)
    maxi = get_rules("maxi-yatzy").game_type
    assert (maxi.rolls, maxi.n_dice, maxi.n_faces) == ("saved", 6, 6)
    assert get_rules("maxi-yatzy-3").game_type.rolls == "fixed"
    assert get_rules("yatzy+forced").game_type.forced_order


def test_game_needs_name_the_first_need_a_game_does_not_meet():
    yahtzee, yatzy = get_rules("yahtzee").game_type, get_rules("yatzy").game_type
    sheet = GameNeeds(n_dice=5, n_faces=6, box_names=(yahtzee.box_names,))
    assert sheet.admits(yahtzee) and sheet.unmet(yahtzee) is None
    assert sheet.unmet(yatzy) == "box_names"
    assert sheet.unmet(get_rules("maxi-yatzy").game_type) == "n_dice"
    assert GameNeeds(n_faces=4).unmet(yahtzee) == "n_faces"
    assert FIXED_ROLLS.unmet(get_rules("maxi-yatzy").game_type) == "rolls"
    assert GameNeeds().admits(get_rules("maxi-yatzy").game_type)  # the default: every game
    assert GameNeeds().rolls == ROLL_SCHEMES


def test_game_needs_in_words():
    assert GameNeeds().describe() == ""
    assert FIXED_ROLLS.describe() == "games without saved rolls"
    assert GameNeeds(n_dice=5, box_names=((),)).describe() == "one of 1 score sheets, 5 dice"


def test_an_unknown_roll_scheme_is_refused_in_one_line():
    with pytest.raises(RulesError, match="rolls must be one of") as err:
        GameNeeds(rolls=("fixed", "kept"))
    assert "\n" not in str(err.value)


def test_a_feature_refuses_saved_rolls_with_the_one_line_message():
    feature = Feature("target-score play", FIXED_ROLLS)
    feature.check(get_rules("yahtzee"))  # taken
    with pytest.raises(RulesError) as err:
        feature.check(get_rules("maxi-yatzy"))
    assert str(err.value) == (
        "target-score play is not available for games with saved rolls ('maxi-yatzy'); "
        "simulate, the optimal value table and max-EV play are"
    )


def test_a_feature_refuses_other_needs_and_raises_the_error_asked_for():
    class MineError(ValueError):
        pass

    feature = Feature("a five-dice table", GameNeeds(n_dice=5))
    with pytest.raises(MineError, match=r"^a five-dice table is not available for rules "):
        feature.check(get_rules("maxi-yatzy-3"), MineError)


#: Every feature written for fixed rolls, declared once where it lives.
FIXED_ROLL_FEATURES = [
    ("yahtzee_sim.solving.target", "TARGET_PLAY", "target-score play"),
    ("yahtzee_sim.solving.utility", "UTILITY_PLAY", "utility play"),
    ("yahtzee_sim.solving.risk", "RISK_PLAY", "risk-sensitive play"),
    ("yahtzee_sim.exact.laws", "EXACT_EVALUATION", "exact evaluation"),
    ("yahtzee_sim.exact.points_to_come", "FUTURE_MOMENTS", "exact moments"),
    ("yahtzee_sim.exact.points_to_come", "FUTURE_LAWS", "exact future laws"),
    ("yahtzee_sim.multiplayer.duel", "TWO_PLAYER_DUEL", "the two-player duel"),
]


@pytest.mark.parametrize(("module", "constant", "name"), FIXED_ROLL_FEATURES)
def test_each_fixed_roll_feature_declares_its_needs_once(module, constant, name):
    feature = getattr(importlib.import_module(module), constant)
    assert feature == Feature(name, FIXED_ROLLS)
    with pytest.raises(RulesError, match=f"^{name} is {SAVED} \\('maxi-yatzy\\+cap2'\\)"):
        feature.check(get_rules("maxi-yatzy+cap2"))


def test_the_older_require_fixed_rolls_still_refuses_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match="Feature"):
        get_rules("yahtzee").require_fixed_rolls("my feature")
    refused = pytest.raises(RulesError, match=f"^my feature is {SAVED}")
    with pytest.warns(DeprecationWarning), refused:
        get_rules("maxi-yatzy").require_fixed_rolls("my feature")
