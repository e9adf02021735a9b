"""Rule sets for Yahtzee-family games.

A :class:`RuleSet` is a frozen description of one game: the dice, the number of
rolls per turn, the scoring boxes and the bonus/joker rules. :func:`get_rules` builds
one from a preset name and house-rule switches (``"yatzy+fh5@4"``).

Where the parts live: the box kinds and their score of a roll in
:mod:`yahtzee_sim.game.scoring` (:class:`Box`), the presets and the house-rule switches in
:mod:`yahtzee_sim.game.presets` (:data:`PRESETS`, :data:`MODIFIERS`); both are importable
from here too. :attr:`RuleSet.tables` evaluates every box once for every possible roll.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import warnings
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from yahtzee_sim.errors import RulesError
from yahtzee_sim.game.capabilities import FIXED_ROLLS, Feature, GameType
from yahtzee_sim.game.dice import DiceTables
from yahtzee_sim.game.presets import MODIFIERS, PRESET_FIELDS, PRESETS, apply_switch
from yahtzee_sim.game.scoring import BOX_KINDS, Box
from yahtzee_sim.validation import Integer, check

JokerMode = Literal["none", "free", "forced"]
JOKER_MODES: tuple[str, ...] = ("none", "free", "forced")


@dataclass(frozen=True)
class RuleSet:
    """A frozen description of one Yahtzee-family game.

    Parameters
    ----------
    name : str
        Preset name (informational; not part of the fingerprint).
    n_dice, n_faces, rolls_per_turn : int
        Dice and rolls per turn (the first roll counts).
    boxes : tuple of Box
        Score-sheet boxes, upper section first.
    upper_bonus_threshold, upper_bonus : int
        Upper bonus paid when the upper total reaches the threshold (``upper_bonus=0``: none).
    yahtzee_bonus : int
        Paid for each extra Yahtzee while the Yahtzee box holds its full points (0: none).
    yahtzee_bonus_limit : int
        Most Yahtzee bonuses paid in a game (0: no limit). "Simulating Yahtzee"'s program
        pays one (for the second Yahtzee only).
    joker : {"none", "free", "forced"}
        How an extra Yahtzee may be placed once the Yahtzee box is filled
        (the handbook's Rules page, ``docs/rules.md``: Joker rules).
    two_pairs_allows_one_pair : bool
        Reproduce the KTH 2012 program in which one pair scores in Two pairs.
    forced_order : bool
        Boxes are filled in score-sheet order, one a turn (Swedish *tvångsyatzy*).
    saved_roll_cap : int
        0: rolls not used in a turn are lost. ``c >= 1``: they are saved for later turns
        (Maxi Yatzy), at most ``c`` of them; a turn then has ``rolls_per_turn`` plus the
        saved rolls, of which it must use at least one.
    """

    name: str
    n_dice: int
    n_faces: int
    rolls_per_turn: int
    boxes: tuple[Box, ...]
    upper_bonus_threshold: int = 63
    upper_bonus: int = 35
    yahtzee_bonus: int = 0
    yahtzee_bonus_limit: int = 0
    joker: str = "none"
    two_pairs_allows_one_pair: bool = False
    forced_order: bool = False
    saved_roll_cap: int = 0

    def __post_init__(self) -> None:
        if self.n_dice < 1 or self.n_faces < 1:
            raise RulesError(
                f"n_dice and n_faces must be >= 1, got n_dice={self.n_dice}, n_faces={self.n_faces}"
            )
        if self.rolls_per_turn < 1:
            raise RulesError(f"rolls_per_turn must be >= 1, got {self.rolls_per_turn}")
        if self.joker not in JOKER_MODES:
            raise RulesError(f"joker must be one of {JOKER_MODES}, got {self.joker!r}")
        if not 1 <= len(self.boxes) <= 20:
            raise RulesError(f"between 1 and 20 boxes allowed, got {len(self.boxes)}")
        names = [c.name for c in self.boxes]
        if len(set(names)) != len(names):
            raise RulesError(f"box names must be unique, got {names}")
        for cat in self.boxes:
            if cat.kind not in BOX_KINDS:
                raise RulesError(f"box {cat.name!r}: kind must be one of {BOX_KINDS}")
            if cat.kind == "upper" and not 1 <= cat.param <= self.n_faces:
                raise RulesError(f"box {cat.name!r}: face {cat.param} out of range")
        uppers = [i for i, c in enumerate(self.boxes) if c.is_upper]
        if uppers != list(range(len(uppers))):
            raise RulesError("upper-section boxes must come first")
        if (self.yahtzee_bonus or self.joker != "none") and self.yahtzee_index is None:
            raise RulesError("a Yahtzee bonus or joker rule needs a 'yahtzee' box")
        if self.upper_bonus < 0 or self.upper_bonus_threshold < 0:
            raise RulesError("upper bonus and threshold must be >= 0")
        cap = check("saved_roll_cap", self.saved_roll_cap, Integer(0, 60), RulesError)
        object.__setattr__(self, "saved_roll_cap", cap)  # a NumPy integer as an int
        for box in self.boxes:
            if box.kind == "groups" and not box.groups:
                raise RulesError(f"box {box.name!r}: a 'groups' box needs groups, e.g. (3, 3)")
            if sum(box.groups) > self.n_dice:
                raise RulesError(
                    f"box {box.name!r}: groups {box.groups} need more than {self.n_dice} dice"
                )
        if self.yahtzee_bonus_limit < 0 or (self.yahtzee_bonus_limit and not self.yahtzee_bonus):
            raise RulesError(
                f"yahtzee_bonus_limit must be >= 0 and needs a yahtzee_bonus, got "
                f"{self.yahtzee_bonus_limit} with yahtzee_bonus={self.yahtzee_bonus}"
            )

    # ------------------------------------------------------------------ derived
    @property
    def n_boxes(self) -> int:
        """Number of score-sheet boxes (= turns in a game)."""
        return len(self.boxes)

    @property
    def box_names(self) -> tuple[str, ...]:
        """Box names in score-sheet order."""
        return tuple(c.name for c in self.boxes)

    @property
    def box_labels(self) -> tuple[str, ...]:
        """:attr:`Box.label` of each box, in score-sheet order."""
        return tuple(c.label for c in self.boxes)

    @property
    def n_upper(self) -> int:
        """Number of upper-section boxes."""
        return sum(c.is_upper for c in self.boxes)

    @property
    def upper_cap(self) -> int:
        """Largest value of the capped upper total kept in the state (0 without a bonus)."""
        return self.upper_bonus_threshold if self.upper_bonus > 0 else 0

    @property
    def yahtzee_index(self) -> int | None:
        """Index of the Yahtzee box, or ``None`` if the game has none."""
        for i, c in enumerate(self.boxes):
            if c.kind == "yahtzee":
                return i
        return None

    @property
    def saved_size(self) -> int:
        """Size of the state's saved-roll axis (:mod:`yahtzee_sim.game.state`): 1 in games
        without saved rolls, ``saved_roll_cap + 1`` with them."""
        return self.saved_roll_cap + 1

    @property
    def max_rolls(self) -> int:
        """Most rolls a turn can have (``rolls_per_turn`` plus the most saved rolls)."""
        return self.rolls_per_turn + self.saved_roll_cap

    @property
    def has_yahtzee_flag(self) -> bool:
        """Whether the state needs the Yahtzee-bonus flag (box holds its full points)."""
        return self.yahtzee_bonus > 0 or self.joker != "none"

    @property
    def flag_size(self) -> int:
        """Size of the state's flag axis (:mod:`yahtzee_sim.game.state`): 1 without the
        Yahtzee-bonus flag, 2 with it, ``2 + L`` when at most ``L`` bonuses are paid."""
        if not self.has_yahtzee_flag:
            return 1
        return 2 + self.yahtzee_bonus_limit

    @property
    def upper_face(self) -> np.ndarray:
        """Face (1-based) of each box for the upper section, 0 for lower ones."""
        return np.array([c.param if c.is_upper else 0 for c in self.boxes], dtype=np.int64)

    @property
    def game_type(self) -> GameType:
        """What kind of game this is (:class:`~yahtzee_sim.game.capabilities.GameType`):
        the facts features and strategies declare their needs against."""
        return GameType.of(self)

    def require_fixed_rolls(self, what: str) -> None:
        """Deprecated: ``Feature(what, FIXED_ROLLS).check(rules)``
        (:mod:`yahtzee_sim.game.capabilities`), which a feature declares once."""
        warnings.warn(
            "RuleSet.require_fixed_rolls is deprecated; declare the feature's needs once, "
            "Feature(what, FIXED_ROLLS), and call its check(rules)",
            DeprecationWarning,
            stacklevel=2,
        )
        Feature(what, FIXED_ROLLS).check(self)

    def box_index(self, name: str) -> int:
        """Index of a box by name; raises :class:`RulesError` listing the valid names."""
        try:
            return self.box_names.index(name)
        except ValueError:
            raise RulesError(
                f"unknown box {name!r} for rules {self.name!r}; "
                f"expected one of: {', '.join(self.box_names)}"
            ) from None

    def describe(self) -> dict:
        """A JSON-serializable description (everything that affects play)."""
        d = dataclasses.asdict(self)
        d.pop("name")
        # fields added after the first presets are absent at their defaults, so that the
        # fingerprints of those presets (and the tables cached under them) stay valid
        for key in ("yahtzee_bonus_limit", "forced_order", "saved_roll_cap"):
            if not d[key]:
                d.pop(key)
        for box in d["boxes"]:
            for key in ("groups", "share_face"):
                if not box[key]:
                    box.pop(key)
        return d

    def fingerprint(self) -> str:
        """Stable 16-hex-digit hash of everything that affects play (not the name)."""
        cached = self.__dict__.get("_fingerprint")
        if cached is None:
            blob = json.dumps(self.describe(), sort_keys=True).encode()
            cached = self.__dict__["_fingerprint"] = hashlib.sha256(blob).hexdigest()[:16]
        return cached

    def __reduce__(self):
        # only the fields travel (e.g. to workers); the receiving process reuses its own
        # instance of an equal rule set, so tables are built once per process
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return (_canonical_rules, (fields,))

    # ------------------------------------------------------------------ tables
    @cached_property
    def tables(self) -> DiceTables:
        """The :class:`~yahtzee_sim.game.dice.DiceTables` of this rule set (built once)."""
        return DiceTables.build(self)


_CANONICAL: dict[RuleSet, RuleSet] = {}


def _canonical_rules(fields: dict) -> RuleSet:
    """The process's instance of the rule set with these fields (made once)."""
    rules = RuleSet(**fields)
    return _CANONICAL.setdefault(rules, rules)


def _with_switches(base: str, switches: list[str]) -> RuleSet:
    """The rule set of preset ``base`` with the house-rule ``switches`` applied in turn."""
    rules = RuleSet(**PRESET_FIELDS[base]())
    for switch in switches:
        rules = apply_switch(rules, switch)
    return dataclasses.replace(rules, name="+".join([base, *switches]))


_instances: dict[tuple[str, int | None], RuleSet] = {}


def _split_rolls(name: str, rolls_per_turn: int | None) -> tuple[str, int | None]:
    """``name`` without its ``@N`` part, and the rolls per turn it and ``rolls_per_turn``
    give (``"yahtzee@4"`` → ``("yahtzee", 4)``)."""
    if "@" not in name:
        return name, rolls_per_turn
    base, _, rolls = name.partition("@")
    try:
        parsed = int(rolls.removesuffix("rolls"))
    except ValueError:
        raise RulesError(
            f"rules {name!r}: the part after '@' must be a number of rolls per turn"
        ) from None
    if rolls_per_turn is not None and rolls_per_turn != parsed:
        raise RulesError(f"rules {name!r} conflicts with rolls_per_turn={rolls_per_turn}")
    return base, parsed


def get_rules(rules: str | RuleSet = "yahtzee", rolls_per_turn: int | None = None) -> RuleSet:
    """Return a preset rule set by name (or pass a :class:`RuleSet` through).

    Parameters
    ----------
    rules : str or RuleSet
        A name from :data:`PRESETS`. ``"NAME@4"`` is shorthand for
        ``rolls_per_turn=4``.
    rolls_per_turn : int, optional
        Override the number of rolls per turn (any preset, e.g. 4).

    Raises
    ------
    RulesError
        For an unknown name (the message lists the presets) or a bad override.
    """
    if isinstance(rules, RuleSet):
        base = rules
    else:
        if not isinstance(rules, str):
            raise RulesError(f"rules must be a preset name or a RuleSet, got {rules!r}")
        name, rolls_per_turn = _split_rolls(rules, rolls_per_turn)
        base_name, *switches = name.split("+")
        if base_name not in PRESET_FIELDS:
            raise RulesError(
                f"unknown rules {rules!r}; expected one of: {', '.join(PRESETS)} "
                f"(with house rules: {', '.join('+' + m for m in MODIFIERS)})"
            )
        if len(set(switches)) < len(switches):
            raise RulesError(f"rules {rules!r}: a house rule is given twice")
        base = _instances.get((name, None))
        if base is None:
            base = _instances.setdefault((name, None), _with_switches(base_name, switches))
    if rolls_per_turn is None or rolls_per_turn == base.rolls_per_turn:
        return base
    rolls_per_turn = check("rolls_per_turn", rolls_per_turn, Integer(1, 10), RulesError)
    key = (base.name, rolls_per_turn)
    if key not in _instances:
        _instances[key] = dataclasses.replace(
            base, rolls_per_turn=rolls_per_turn, name=f"{base.name}@{rolls_per_turn}"
        )
    return _instances[key]
