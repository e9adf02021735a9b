"""Rule sets for Yahtzee-family games.

A :class:`RuleSet` is a frozen description of one game: the dice, the number of
rolls per turn, the scoring boxes and the bonus/joker rules. Presets for
every variant pinned in ``docs/references.md`` are available through :func:`get_rules`.

Scoring is defined on *face counts*: ``counts[f]`` is the number of dice showing
face ``f + 1``. Every box is a :class:`Box` whose ``kind`` selects the
scoring function; :meth:`RuleSet.score_table` evaluates all of them once for
every possible roll.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from yahtzee_sim.errors import RulesError
from yahtzee_sim.game.capabilities import FIXED_ROLLS, Feature, GameType
from yahtzee_sim.game.dice import DiceTables
from yahtzee_sim.validation import Integer, check

JokerMode = Literal["none", "free", "forced"]
JOKER_MODES: tuple[str, ...] = ("none", "free", "forced")

#: Box kinds and what ``param``/``points`` mean for each.
#:
#: ========== ===================================================================
#: kind       score
#: ========== ===================================================================
#: upper      ``param * counts[param-1]`` (sum of the dice showing ``param``)
#: n_kind     at least ``param`` equal dice: sum of all dice (Yahtzee style)
#: n_equal    at least ``param`` equal dice: ``param`` × the highest such face
#: two_pairs  two different faces with ≥ 2 dice: 2×(a + b) for the two highest;
#:            with ``allow_one_pair`` a single pair scores 2×face (KTH 2012 bug);
#:            with ``share_face`` four of a kind counts too (2×2×face)
#: full_house three of one face and two of another; ``points`` or, if
#:            ``points == 0``, the dice used (3×a + 2×b); with ``share_face`` five
#:            of a kind counts too
#: groups     one face per entry of ``groups`` (different faces, or not with
#:            ``share_face``) with at least that many dice each: ``points``, or if
#:            ``points == 0`` the dice used, the best choice of faces (three pairs
#:            ``(2, 2, 2)``, villa ``(3, 3)``, tower ``(4, 2)``, full house ``(3, 2)``)
#: straight   every face in ``faces`` present; ``points``
#: yahtzee    all dice equal; ``points``
#: chance     sum of all dice
#: ========== ===================================================================
BOX_KINDS: tuple[str, ...] = (
    "upper",
    "n_kind",
    "n_equal",
    "two_pairs",
    "full_house",
    "groups",
    "straight",
    "yahtzee",
    "chance",
)


def group_points(counts: Sequence[int], groups: Sequence[int], share_face: bool = False) -> int:
    """Points of the dice used by the best choice of one face per group: group ``i``
    takes ``groups[i]`` dice of its face; faces differ unless ``share_face`` (then a face
    with enough dice serves several groups). 0 when no choice fits."""
    n_faces = len(counts)
    best = 0
    for faces in itertools.product(range(n_faces), repeat=len(groups)):
        if not share_face and len(set(faces)) < len(faces):
            continue
        need = [0] * n_faces
        for f, size in zip(faces, groups, strict=True):
            need[f] += size
        if all(need[f] <= counts[f] for f in range(n_faces)):
            best = max(best, sum((f + 1) * size for f, size in zip(faces, groups, strict=True)))
    return best


@dataclass(frozen=True)
class Box:
    """One box on the score sheet.

    Parameters
    ----------
    name : str
        Identifier used on the command line and in results (``"ones"``,
        ``"full_house"``, ...).
    kind : str
        One of :data:`BOX_KINDS`.
    param : int
        Face (``upper``) or number of equal dice (``n_kind``, ``n_equal``).
    points : int
        Fixed score for ``full_house`` (0 = sum of dice), ``straight`` and ``yahtzee``.
    faces : tuple of int
        Faces a ``straight`` needs (1-based). For Yahtzee straights, the
        straight scores if *any* run of ``param`` consecutive faces is present;
        ``faces`` is then empty.
    joker_points : int or None
        Score of this box when a Yahtzee is played as a joker (``None`` = sum of dice).
    groups : tuple of int
        Dice per face of a ``groups`` box (``(3, 3)``: a villa).
    share_face : bool
        Whether one face may fill several groups (``full_house``: five of a kind counts,
        house rule ``+fh5``; ``two_pairs``: four of a kind counts, ``+tp4``).
    """

    name: str
    kind: str
    param: int = 0
    points: int = 0
    faces: tuple[int, ...] = ()
    joker_points: int | None = None
    groups: tuple[int, ...] = ()
    share_face: bool = False

    @property
    def label(self) -> str:
        """The box's name for people: ``"three_of_a_kind"`` → ``"Three of a kind"``
        (the terminal game, the web page and the coach show it)."""
        text = self.name.replace("_", " ")
        return text[:1].upper() + text[1:]

    @property
    def is_upper(self) -> bool:
        """Whether the box belongs to the upper section."""
        return self.kind == "upper"

    def score(self, counts: Sequence[int], allow_one_pair: bool = False) -> int:
        """Score of a roll given as face counts (index 0 = face 1)."""
        c = list(counts)
        total = sum((f + 1) * n for f, n in enumerate(c))
        kind = self.kind
        if kind == "upper":
            return self.param * c[self.param - 1]
        if kind == "n_kind":
            return total if max(c) >= self.param else 0
        if kind == "n_equal":
            faces = [f + 1 for f, n in enumerate(c) if n >= self.param]
            return self.param * max(faces) if faces else 0
        if kind == "two_pairs":
            points = group_points(c, (2, 2), self.share_face)
            if not points and allow_one_pair:
                pairs = [f + 1 for f, n in enumerate(c) if n >= 2]
                return 2 * max(pairs) if pairs else 0
            return points
        if kind in ("full_house", "groups"):
            points = group_points(c, self.groups or (3, 2), self.share_face)
            return self.points if points and self.points else points
        if kind == "straight":
            if self.faces:
                return self.points if all(c[f - 1] >= 1 for f in self.faces) else 0
            run = best = 0
            for n in c:
                run = run + 1 if n > 0 else 0
                best = max(best, run)
            return self.points if best >= self.param else 0
        if kind == "yahtzee":
            return self.points if max(c) == sum(c) else 0
        if kind == "chance":
            return total
        raise RulesError(f"box {self.name!r}: unknown kind {kind!r}")

    def joker_score(self, counts: Sequence[int]) -> int:
        """Score of a Yahtzee roll placed here under a joker rule."""
        if self.kind == "upper":
            return self.score(counts)
        if self.joker_points is None:
            return sum((f + 1) * n for f, n in enumerate(counts))
        return self.joker_points


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


def _upper(names: Sequence[str], n_faces: int) -> list[Box]:
    return [Box(names[f], "upper", param=f + 1) for f in range(n_faces)]


UPPER_NAMES = ("ones", "twos", "threes", "fours", "fives", "sixes")


def _yahtzee(name: str, yahtzee_bonus: int, joker: str, bonus_limit: int = 0) -> RuleSet:
    cats = [
        *_upper(UPPER_NAMES, 6),
        Box("three_of_a_kind", "n_kind", param=3),
        Box("four_of_a_kind", "n_kind", param=4),
        Box("full_house", "full_house", points=25, joker_points=25),
        Box("small_straight", "straight", param=4, points=30, joker_points=30),
        Box("large_straight", "straight", param=5, points=40, joker_points=40),
        Box("yahtzee", "yahtzee", points=50, joker_points=50),
        Box("chance", "chance"),
    ]
    return RuleSet(
        name=name,
        n_dice=5,
        n_faces=6,
        rolls_per_turn=3,
        boxes=tuple(cats),
        upper_bonus_threshold=63,
        upper_bonus=35,
        yahtzee_bonus=yahtzee_bonus,
        yahtzee_bonus_limit=bonus_limit,
        joker=joker,
    )


def _yatzy(name: str, upper_bonus: int = 50, allow_one_pair: bool = False) -> RuleSet:
    cats = [
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
    return RuleSet(
        name=name,
        n_dice=5,
        n_faces=6,
        rolls_per_turn=3,
        boxes=tuple(cats),
        upper_bonus_threshold=63,
        upper_bonus=upper_bonus,
        yahtzee_bonus=0,
        joker="none",
        two_pairs_allows_one_pair=allow_one_pair,
    )


def _two_yatzy() -> RuleSet:
    return RuleSet(
        name="2-yatzy",
        n_dice=2,
        n_faces=2,
        rolls_per_turn=2,
        boxes=tuple(_upper(("ones", "twos"), 2)),
        upper_bonus_threshold=0,
        upper_bonus=0,
    )


def _upper_mini() -> RuleSet:
    """The upper section alone, scaled down for exact two-player solving: three dice with
    four faces, bonus 15 at 20 (two of each face)."""
    return RuleSet(
        name="upper-3d4f",
        n_dice=3,
        n_faces=4,
        rolls_per_turn=3,
        boxes=tuple(_upper(UPPER_NAMES, 4)),
        upper_bonus_threshold=20,
        upper_bonus=15,
    )


def _six_box() -> RuleSet:
    """Six boxes of official Yahtzee (five dice, three rolls, no bonuses): small enough
    for exact two-player solving."""
    cats = _yahtzee("yahtzee", 0, "none").boxes
    keep = ("sixes", "three_of_a_kind", "full_house", "small_straight", "yahtzee", "chance")
    return RuleSet(
        name="yahtzee-6box",
        n_dice=5,
        n_faces=6,
        rolls_per_turn=3,
        boxes=tuple(c for c in cats if c.name in keep),
        upper_bonus_threshold=0,
        upper_bonus=0,
    )


def _yacht() -> RuleSet:
    """Yacht as in the Clubhouse Games collection: twelve boxes, no Yahtzee bonus."""
    cats = [
        *_upper(UPPER_NAMES, 6),
        Box("choice", "chance"),
        Box("four_of_a_kind", "n_kind", param=4),
        Box("full_house", "full_house", points=0, share_face=True),
        Box("small_straight", "straight", param=4, points=15),
        Box("large_straight", "straight", param=5, points=30),
        Box("yacht", "yahtzee", points=50),
    ]
    return RuleSet(name="yacht", n_dice=5, n_faces=6, rolls_per_turn=3, boxes=tuple(cats))


#: Bonus of the Maxi Yatzy preset (rule books say 50 or 100; ``+bonus100`` switches).
MAXI_UPPER_BONUS = 50
#: Saved-roll cap of the ``maxi-yatzy`` preset: every unused roll saved (two rolls a turn
#: over the 19 turns before the last; ``+capN`` sets a lower cap).
MAXI_SAVED_ROLL_CAP = 38


def _maxi_yatzy(name: str, saved_roll_cap: int) -> RuleSet:
    """Maxi Yatzy: six dice, twenty boxes, bonus at 84; unused rolls saved (up to a
    cap: 38 saves every one)."""
    cats = [
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
    return RuleSet(
        name=name,
        n_dice=6,
        n_faces=6,
        rolls_per_turn=3,
        boxes=tuple(cats),
        upper_bonus_threshold=84,
        upper_bonus=MAXI_UPPER_BONUS,
        saved_roll_cap=saved_roll_cap,
    )


_PRESETS = {
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

#: House-rule switches: ``NAME+fh5+tp4``, ``NAME+forced``, ``NAME+bonusN``, ``NAME+capN``.
MODIFIERS: tuple[str, ...] = ("fh5", "tp4", "forced", "bonusN", "capN")


def _share_face(rules: RuleSet, kind: str, switch: str) -> RuleSet:
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


def _apply_modifier(rules: RuleSet, switch: str) -> RuleSet:
    """``rules`` with one house-rule switch of :data:`MODIFIERS` applied."""
    if switch == "fh5":
        return _share_face(rules, "full_house", switch)
    if switch == "tp4":
        return _share_face(rules, "two_pairs", switch)
    if switch == "forced":
        return dataclasses.replace(rules, forced_order=True)
    if switch.startswith("bonus"):
        if not rules.upper_bonus_threshold or not rules.upper_bonus:
            raise RulesError(f"+{switch}: {rules.name!r} has no upper bonus to change")
        return dataclasses.replace(rules, upper_bonus=_number(switch, "bonus"))
    if switch.startswith("cap"):
        if not rules.saved_roll_cap:
            raise RulesError(
                f"+{switch}: {rules.name!r} does not save rolls (a saved-roll cap needs a game "
                "with saved rolls, e.g. maxi-yatzy)"
            )
        cap = _number(switch, "cap")
        most = (rules.rolls_per_turn - 1) * (rules.n_boxes - 1)  # every roll saved
        if not 1 <= cap <= most:
            raise RulesError(
                f"+{switch}: the saved-roll cap must be 1..{most} under {rules.name!r} "
                f"({most}: every unused roll saved)"
            )
        return dataclasses.replace(rules, saved_roll_cap=cap)
    raise RulesError(
        f"unknown house rule +{switch}; expected one of: " + ", ".join("+" + m for m in MODIFIERS)
    )


def _with_modifiers(base: str, switches: list[str]) -> RuleSet:
    rules = _PRESETS[base]()
    for switch in switches:
        rules = _apply_modifier(rules, switch)
    return dataclasses.replace(rules, name="+".join([base, *switches]))


#: Names accepted by :func:`get_rules`.
PRESETS: tuple[str, ...] = tuple(_PRESETS)

_instances: dict[tuple[str, int | None], RuleSet] = {}


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
        name = rules
        if "@" in name:
            name, _, rolls = name.partition("@")
            try:
                parsed = int(rolls.removesuffix("rolls"))
            except ValueError:
                raise RulesError(
                    f"rules {rules!r}: the part after '@' must be a number of rolls per turn"
                ) from None
            if rolls_per_turn is not None and rolls_per_turn != parsed:
                raise RulesError(f"rules {rules!r} conflicts with rolls_per_turn={rolls_per_turn}")
            rolls_per_turn = parsed
        base_name, *switches = name.split("+")
        if base_name not in _PRESETS:
            raise RulesError(
                f"unknown rules {rules!r}; expected one of: {', '.join(PRESETS)} "
                f"(with house rules: {', '.join('+' + m for m in MODIFIERS)})"
            )
        if len(set(switches)) < len(switches):
            raise RulesError(f"rules {rules!r}: a house rule is given twice")
        base = _instances.get((name, None))
        if base is None:
            base = _instances.setdefault((name, None), _with_modifiers(base_name, switches))
    if rolls_per_turn is None or rolls_per_turn == base.rolls_per_turn:
        return base
    rolls_per_turn = check("rolls_per_turn", rolls_per_turn, Integer(1, 10), RulesError)
    key = (base.name, rolls_per_turn)
    if key not in _instances:
        _instances[key] = dataclasses.replace(
            base, rolls_per_turn=rolls_per_turn, name=f"{base.name}@{rolls_per_turn}"
        )
    return _instances[key]
