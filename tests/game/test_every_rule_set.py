"""Every rule set the package offers passes ``check_rules``: every preset, each with every
house-rule switch that fits it, with all of them at once, and with one and four rolls a
turn — enumerated from the code (``PRESETS``, ``MODIFIERS``), never listed by hand. The
solver's part runs on every small rule set here, on the larger ones in the slow run; and
every play-changing field of ``RuleSet`` takes more than one value among them."""

from __future__ import annotations

import dataclasses

import pytest

from yahtzee_sim import RulesError, check_rules, get_rules
from yahtzee_sim.game.presets import MODIFIERS, PRESETS
from yahtzee_sim.game.rules import JOKER_MODES, RuleSet
from yahtzee_sim.game.state import n_states

#: The number a numbered switch takes here (``bonusN``, ``capN``).
NUMBERED = {"bonusN": "bonus100", "capN": "cap3"}
#: Rolls a turn each preset is also checked with (``NAME@N``).
ROLLS = (1, 4)
#: Games solved in the development loop: at most this many states.
QUICK_STATES = 100_000
#: Games solved in the slow run: at most this many states (Maxi Yatzy's tables take far
#: longer: ``benchmarks/maxi_caps.py``).
SLOW_STATES = 3_000_000


def _fits(name: str) -> bool:
    try:
        get_rules(name)
    except RulesError:
        return False
    return True


def switched(preset: str) -> list[str]:
    """``preset`` with each house-rule switch of ``MODIFIERS`` that fits it."""
    names = (f"{preset}+{NUMBERED.get(m, m)}" for m in MODIFIERS)
    return [name for name in names if _fits(name)]


def every_switch(preset: str) -> str:
    """``preset`` with every house-rule switch that fits it at once."""
    return "+".join([preset, *(s.removeprefix(preset + "+") for s in switched(preset))])


#: Every preset; each with each switch that fits, and with all of them; each at ``ROLLS``.
RULE_SETS: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            *PRESETS,
            *(name for p in PRESETS for name in switched(p)),
            *(every_switch(p) for p in PRESETS),
            *(f"{p}@{n}" for p in PRESETS for n in ROLLS),
        ]
    )
)


@pytest.mark.parametrize("rules", RULE_SETS)
def test_every_rule_set_passes_the_checks(rules):
    assert check_rules(rules, solve=False, n_games=300) == (
        "dice tables",
        "box scores",
        "state encoding",
        "play",
    )


def _states(rules: str) -> int:
    return n_states(get_rules(rules))


def solved() -> list:
    """The rule sets whose value tables the suite can afford: every small one, and, in the
    slow run, the larger presets and each switch on the first larger preset it fits."""
    small = [r for r in RULE_SETS if _states(r) <= QUICK_STATES]
    larger = [p for p in PRESETS if QUICK_STATES < _states(p) <= SLOW_STATES]
    for switch in MODIFIERS:
        fits = [s for p in larger for s in switched(p) if s.endswith(NUMBERED.get(switch, switch))]
        larger += fits[:1]
    return [*small, *(pytest.param(r, marks=pytest.mark.slow) for r in larger)]


SOLVED = solved()


@pytest.mark.parametrize("rules", SOLVED)
def test_every_affordable_rule_set_passes_the_solver_checks(rules):
    assert check_rules(rules)[-1] == "solver"


def test_every_switch_and_every_preset_is_checked():
    for switch in MODIFIERS:
        assert any("+" + NUMBERED.get(switch, switch) in r for r in RULE_SETS), switch
    assert set(PRESETS) <= set(RULE_SETS)


def test_every_play_changing_field_takes_several_values():
    """Each field of ``RuleSet`` (but its name and boxes) and each joker mode varies among
    the rule sets checked, and every box field is set somewhere: a new switch gets a
    preset or a house rule the checks run on."""
    checked = [get_rules(r) for r in RULE_SETS]
    for field in dataclasses.fields(RuleSet):
        if field.name not in ("name", "boxes"):
            values = {getattr(r, field.name) for r in checked}
            assert len(values) > 1, f"RuleSet.{field.name} is {values} in every rule set"
    assert {r.joker for r in checked} == set(JOKER_MODES)
    boxes = [b for r in checked for b in r.boxes]
    for field in dataclasses.fields(boxes[0]):
        assert len({getattr(b, field.name) for b in boxes}) > 1, f"Box.{field.name}"
