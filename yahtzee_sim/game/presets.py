"""The rule presets and the house-rule switches.

Every variant pinned in ``docs/references.md`` is a preset: a function giving the fields
of its :class:`~yahtzee_sim.game.rules.RuleSet` (:data:`PRESET_FIELDS`). A house-rule
switch (:data:`MODIFIERS`: ``NAME+fh5+tp4``, ``NAME+forced``, ``NAME+bonusN``,
``NAME+capN``) changes a rule set built from them. :func:`~yahtzee_sim.game.rules.get_rules`
reads a name such as ``"yatzy+fh5@4"`` and builds the rule set; a new preset is a builder
here, its entry in :data:`PRESET_FIELDS` and its row in ``docs/rules.md``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from yahtzee_sim.errors import RulesError
from yahtzee_sim.game.scoring import Box

#: Names of the upper boxes, face 1 first.
UPPER_NAMES = ("ones", "twos", "threes", "fours", "fives", "sixes")
#: Bonus of the Maxi Yatzy preset (rule books say 50 or 100; ``+bonus100`` switches).
MAXI_UPPER_BONUS = 50
#: Saved-roll cap of the ``maxi-yatzy`` preset: every unused roll saved (two rolls a turn
#: over the 19 turns before the last; ``+capN`` sets a lower cap).
MAXI_SAVED_ROLL_CAP = 38

Fields = dict[str, Any]


def _upper(names: Sequence[str], n_faces: int) -> list[Box]:
    return [Box(names[f], "upper", param=f + 1) for f in range(n_faces)]


def _five_dice(name: str, boxes: Sequence[Box], **rules: Any) -> Fields:
    """The fields of a game of five six-sided dice rolled up to three times a turn (the
    dice of Yahtzee, Yatzy and Yacht), its boxes and its other ``rules``."""
    return dict(name=name, n_dice=5, n_faces=6, rolls_per_turn=3, boxes=tuple(boxes), **rules)


def _yahtzee_boxes() -> list[Box]:
    return [
        *_upper(UPPER_NAMES, 6),
        Box("three_of_a_kind", "n_kind", param=3),
        Box("four_of_a_kind", "n_kind", param=4),
        Box("full_house", "full_house", points=25, joker_points=25),
        Box("small_straight", "straight", param=4, points=30, joker_points=30),
        Box("large_straight", "straight", param=5, points=40, joker_points=40),
        Box("yahtzee", "yahtzee", points=50, joker_points=50),
        Box("chance", "chance"),
    ]


def _yahtzee(name: str, yahtzee_bonus: int, joker: str, bonus_limit: int = 0) -> Fields:
    return _five_dice(
        name,
        _yahtzee_boxes(),
        upper_bonus_threshold=63,
        upper_bonus=35,
        yahtzee_bonus=yahtzee_bonus,
        yahtzee_bonus_limit=bonus_limit,
        joker=joker,
    )


def _yatzy(name: str, upper_bonus: int = 50, allow_one_pair: bool = False) -> Fields:
    boxes = [
        *_upper(UPPER_NAMES, 6),
        Box("one_pair", "n_equal", param=2),
        Box("two_pairs", "two_pairs"),
        Box("three_of_a_kind", "n_equal", param=3),
        Box("four_of_a_kind", "n_equal", param=4),
        Box("small_straight", "straight", points=15, faces=(1, 2, 3, 4, 5)),
        Box("large_straight", "straight", points=20, faces=(2, 3, 4, 5, 6)),
        Box("full_house", "full_house", points=0),
        Box("chance", "chance"),
        Box("yatzy", "yahtzee", points=50),
    ]
    return _five_dice(
        name,
        boxes,
        upper_bonus_threshold=63,
        upper_bonus=upper_bonus,
        yahtzee_bonus=0,
        joker="none",
        two_pairs_allows_one_pair=allow_one_pair,
    )


def _two_yatzy() -> Fields:
    return dict(
        name="2-yatzy",
        n_dice=2,
        n_faces=2,
        rolls_per_turn=2,
        boxes=tuple(_upper(("ones", "twos"), 2)),
        upper_bonus_threshold=0,
        upper_bonus=0,
    )


def _upper_mini() -> Fields:
    """The upper section alone, scaled down for exact two-player solving: three dice with
    four faces, bonus 15 at 20 (two of each face)."""
    return dict(
        name="upper-3d4f",
        n_dice=3,
        n_faces=4,
        rolls_per_turn=3,
        boxes=tuple(_upper(UPPER_NAMES, 4)),
        upper_bonus_threshold=20,
        upper_bonus=15,
    )


def _six_box() -> Fields:
    """Six boxes of official Yahtzee (five dice, three rolls, no bonuses): small enough
    for exact two-player solving."""
    keep = ("sixes", "three_of_a_kind", "full_house", "small_straight", "yahtzee", "chance")
    return _five_dice(
        "yahtzee-6box",
        [c for c in _yahtzee_boxes() if c.name in keep],
        upper_bonus_threshold=0,
        upper_bonus=0,
    )


def _yacht() -> Fields:
    """Yacht as in the Clubhouse Games collection: twelve boxes, no Yahtzee bonus."""
    boxes = [
        *_upper(UPPER_NAMES, 6),
        Box("choice", "chance"),
        Box("four_of_a_kind", "n_kind", param=4),
        Box("full_house", "full_house", points=0, share_face=True),
        Box("small_straight", "straight", param=4, points=15),
        Box("large_straight", "straight", param=5, points=30),
        Box("yacht", "yahtzee", points=50),
    ]
    return _five_dice("yacht", boxes)


def _maxi_yatzy(name: str, saved_roll_cap: int) -> Fields:
    """Maxi Yatzy: six dice, twenty boxes, bonus at 84; unused rolls saved (up to a
    cap: 38 saves every one)."""
    boxes = [
        *_upper(UPPER_NAMES, 6),
        Box("one_pair", "n_equal", param=2),
        Box("two_pairs", "two_pairs"),
        Box("three_pairs", "groups", groups=(2, 2, 2)),
        Box("three_of_a_kind", "n_equal", param=3),
        Box("four_of_a_kind", "n_equal", param=4),
        Box("five_of_a_kind", "n_equal", param=5),
        Box("small_straight", "straight", points=15, faces=(1, 2, 3, 4, 5)),
        Box("large_straight", "straight", points=20, faces=(2, 3, 4, 5, 6)),
        Box("full_straight", "straight", points=21, faces=(1, 2, 3, 4, 5, 6)),
        Box("full_house", "groups", groups=(3, 2)),
        Box("villa", "groups", groups=(3, 3)),
        Box("tower", "groups", groups=(4, 2)),
        Box("chance", "chance"),
        Box("maxi_yatzy", "yahtzee", points=100),
    ]
    return dict(
        name=name,
        n_dice=6,
        n_faces=6,
        rolls_per_turn=3,
        boxes=tuple(boxes),
        upper_bonus_threshold=84,
        upper_bonus=MAXI_UPPER_BONUS,
        saved_roll_cap=saved_roll_cap,
    )


#: Each preset's name and the function giving its rule set's fields.
PRESET_FIELDS: dict[str, Callable[[], Fields]] = {
    "yahtzee": lambda: _yahtzee("yahtzee", 100, "forced"),
    "yahtzee-free-joker": lambda: _yahtzee("yahtzee-free-joker", 100, "free"),
    "yahtzee-no-joker": lambda: _yahtzee("yahtzee-no-joker", 100, "none"),
    "yahtzee-no-bonus": lambda: _yahtzee("yahtzee-no-bonus", 0, "none"),
    "yahtzee-single-bonus": lambda: _yahtzee("yahtzee-single-bonus", 100, "none", bonus_limit=1),
    "yatzy": lambda: _yatzy("yatzy"),
    "yatzy-no-bonus": lambda: _yatzy("yatzy-no-bonus", upper_bonus=0),
    "yatzy-kth2012": lambda: _yatzy("yatzy-kth2012", allow_one_pair=True),
    "2-yatzy": _two_yatzy,
    "upper-3d4f": _upper_mini,
    "yahtzee-6box": _six_box,
    "yacht": _yacht,
    "maxi-yatzy": lambda: _maxi_yatzy("maxi-yatzy", MAXI_SAVED_ROLL_CAP),
    "maxi-yatzy-3": lambda: _maxi_yatzy("maxi-yatzy-3", 0),
}

#: Names accepted by :func:`~yahtzee_sim.game.rules.get_rules`.
PRESETS: tuple[str, ...] = tuple(PRESET_FIELDS)

#: The presets ``yatzy-solver`` (Python package, 2026) plays too, and its variant with the
#: same rules: every state's value equals ours (``tests/contracts/test_peer_oracle.py``).
YATZY_SOLVER_VARIANTS: dict[str, str] = {
    "yahtzee": "american+forced-joker",
    "yahtzee-free-joker": "american",
    "yahtzee-no-joker": "american+no-joker",
    "yahtzee-no-bonus": "american+no-bonus",
    "yatzy": "yatzy-scandinavian",
}

#: House-rule switches: ``NAME+fh5+tp4``, ``NAME+forced``, ``NAME+bonusN``, ``NAME+capN``.
MODIFIERS: tuple[str, ...] = ("fh5", "tp4", "forced", "bonusN", "capN")


class SwitchableRules(Protocol):
    """What a house-rule switch reads of a rule set
    (:class:`~yahtzee_sim.game.rules.RuleSet` has it all)."""

    name: str
    boxes: tuple[Box, ...]
    rolls_per_turn: int
    upper_bonus_threshold: int
    upper_bonus: int
    saved_roll_cap: int


R = TypeVar("R", bound=SwitchableRules)


def _share_face(rules: R, kind: str, switch: str) -> R:
    if not any(b.kind == kind for b in rules.boxes):
        raise RulesError(f"+{switch} needs a {kind.replace('_', ' ')} box; {rules.name!r} has none")
    boxes = tuple(
        dataclasses.replace(b, share_face=True) if b.kind == kind else b for b in rules.boxes
    )
    return dataclasses.replace(rules, boxes=boxes)


def _number(switch: str, prefix: str) -> int:
    digits = switch.removeprefix(prefix)
    if not digits.isdigit():
        raise RulesError(f"+{switch}: expected {prefix} followed by a number, e.g. +{prefix}4")
    return int(digits)


def _with_bonus(rules: R, switch: str) -> R:
    if not rules.upper_bonus_threshold or not rules.upper_bonus:
        raise RulesError(f"+{switch}: {rules.name!r} has no upper bonus to change")
    return dataclasses.replace(rules, upper_bonus=_number(switch, "bonus"))


def _with_cap(rules: R, switch: str) -> R:
    if not rules.saved_roll_cap:
        raise RulesError(
            f"+{switch}: {rules.name!r} does not save rolls (a saved-roll cap needs a game "
            "with saved rolls, e.g. maxi-yatzy)"
        )
    cap = _number(switch, "cap")
    most = (rules.rolls_per_turn - 1) * (len(rules.boxes) - 1)  # every roll saved
    if not 1 <= cap <= most:
        raise RulesError(
            f"+{switch}: the saved-roll cap must be 1..{most} under {rules.name!r} "
            f"({most}: every unused roll saved)"
        )
    return dataclasses.replace(rules, saved_roll_cap=cap)


def apply_switch(rules: R, switch: str) -> R:
    """``rules`` with one house-rule switch of :data:`MODIFIERS` applied (``"fh5"``,
    ``"bonus100"``, ...).

    Raises
    ------
    RulesError
        For an unknown switch, or one that does not fit the rule set.
    """
    if switch == "fh5":
        return _share_face(rules, "full_house", switch)
    if switch == "tp4":
        return _share_face(rules, "two_pairs", switch)
    if switch == "forced":
        return dataclasses.replace(rules, forced_order=True)
    if switch.startswith("bonus"):
        return _with_bonus(rules, switch)
    if switch.startswith("cap"):
        return _with_cap(rules, switch)
    raise RulesError(
        f"unknown house rule +{switch}; expected one of: " + ", ".join("+" + m for m in MODIFIERS)
    )
