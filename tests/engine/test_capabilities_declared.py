"""A strategy's capabilities, declared as data: the flat spelling (``deterministic =
False``) and ``capabilities = Capabilities(...)`` agree, ``supports`` reads the games they
declare, a strategy built from a user's objects answers per instance, and bad declarations
are refused in one line."""

import pytest

from yahtzee_sim import StrategyError, get_rules
from yahtzee_sim.engine.strategy import DECISION_KEYS, Capabilities, Strategy, capabilities_of
from yahtzee_sim.game.capabilities import FIXED_ROLLS, GameNeeds
from yahtzee_sim.strategies import FunctionStrategy


class Flat(Strategy):
    deterministic = False


class Declared(Flat):
    capabilities = Capabilities(uses_total=True, solved_table=True, plays=FIXED_ROLLS)


class FlatOnDeclared(Declared):
    requires = "a table of my own"


def test_the_flat_spelling_declares_the_capability():
    assert Flat.capabilities == Capabilities(deterministic=False)
    assert (Flat.deterministic, Flat.uses_total, Flat.requires) == (False, False, "")


def test_declared_capabilities_set_the_flat_attributes():
    assert (Declared.deterministic, Declared.uses_total) == (True, True)
    assert Declared.requires == "games without saved rolls"  # described from the data
    assert FlatOnDeclared.capabilities == Capabilities(
        uses_total=True, solved_table=True, plays=FIXED_ROLLS, requires="a table of my own"
    )


def test_supports_reads_the_games_declared():
    assert Declared.supports(get_rules("yatzy")) and not Declared.supports(get_rules("maxi-yatzy"))
    with pytest.raises(StrategyError, match="needs games without saved rolls, not rules 'maxi-"):
        Declared().check_rules(get_rules("maxi-yatzy"))

    class FiveDice(Strategy):
        capabilities = Capabilities(plays=GameNeeds(n_dice=5))

    assert FiveDice.supports(get_rules("yatzy"))
    assert not FiveDice.supports(get_rules("maxi-yatzy-3"))


def test_a_user_strategy_answers_per_instance():
    def keep(position):
        return position.dice

    def box(position):
        return position.open_boxes[0]

    random_one = FunctionStrategy(keep, box, is_deterministic=False)
    assert not random_one.capabilities.deterministic and not random_one.deterministic
    assert FunctionStrategy(keep, box).capabilities.deterministic
    assert FunctionStrategy.capabilities == Capabilities()  # on the class: the defaults
    assert FunctionStrategy.supports(get_rules("maxi-yatzy"))


def test_capabilities_of_an_object_that_only_plays():
    class Duck:
        deterministic = False

    assert capabilities_of(Duck()) == Capabilities(deterministic=False)
    assert capabilities_of(Declared) is Declared.capabilities
    assert capabilities_of(Declared()).exact is False  # uses the score
    assert capabilities_of(Strategy).exact


def test_a_bad_decision_key_is_refused_in_one_line():
    assert DECISION_KEYS == ("state", "own", "match", "full")
    with pytest.raises(StrategyError, match="^decision_key must be one of state, own, match, full"):
        Capabilities(decision_key="everything")
