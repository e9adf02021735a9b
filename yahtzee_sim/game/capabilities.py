"""What kind of game a rule set is, and which games a feature or a strategy takes: data.

As OpenSpiel's ``GameType`` tells an algorithm what a game is before it plays it, a
:class:`GameType` (``rules.game_type``) holds the facts about a rule set that features
and strategies depend on: whether unused rolls are lost (``"fixed"``) or saved for later
turns (``"saved"``, Maxi Yatzy), the dice, the faces and the score sheet. What a feature
or a strategy family takes is declared once, as a :class:`GameNeeds`, and checked against
it; a feature (target-score play, the exact evaluator, the duel...) names itself in a
:class:`Feature`, whose :meth:`Feature.check` refuses another game in one line::

    TARGET_PLAY = Feature("target-score play", FIXED_ROLLS)

    def target_table(rules):
        TARGET_PLAY.check(rules)  # RulesError: target-score play is not available for ...
"""

from __future__ import annotations

from dataclasses import dataclass, field

from yahtzee_sim.errors import RulesError
from yahtzee_sim.validation import OneOf, check

#: How a game treats the rolls a turn leaves unused: lost (``"fixed"``: every turn has
#: the same rolls) or saved for later turns (``"saved"``: Maxi Yatzy).
ROLL_SCHEMES: tuple[str, ...] = ("fixed", "saved")


@dataclass(frozen=True)
class GameType:
    """The facts about a game that features and strategies declare needs against.

    Attributes
    ----------
    rolls : {"fixed", "saved"}
        Whether the rolls a turn leaves unused are lost or saved (:data:`ROLL_SCHEMES`).
    n_dice, n_faces : int
        The dice.
    box_names : tuple of str
        The score sheet, in order.
    forced_order : bool
        Boxes are filled in score-sheet order.
    """

    rolls: str
    n_dice: int
    n_faces: int
    box_names: tuple[str, ...]
    forced_order: bool

    @classmethod
    def of(cls, rules) -> GameType:
        """The game type of ``rules``, a :class:`~yahtzee_sim.game.rules.RuleSet` (what
        its ``game_type`` returns)."""
        return cls(
            rolls="saved" if rules.saved_roll_cap else "fixed",
            n_dice=rules.n_dice,
            n_faces=rules.n_faces,
            box_names=rules.box_names,
            forced_order=rules.forced_order,
        )


@dataclass(frozen=True)
class GameNeeds:
    """Which games something takes, declared once as data (defaults: every game).

    Attributes
    ----------
    rolls : tuple of str
        The roll schemes taken (:data:`ROLL_SCHEMES`).
    n_dice, n_faces : int or None
        The only number of dice / faces taken (``None``: any).
    box_names : tuple of tuple of str, or None
        The score sheets taken, each as its box names in order (``None``: any).
    """

    rolls: tuple[str, ...] = ROLL_SCHEMES
    n_dice: int | None = None
    n_faces: int | None = None
    box_names: tuple[tuple[str, ...], ...] | None = field(default=None)

    def __post_init__(self) -> None:
        for scheme in self.rolls:
            check("rolls", scheme, OneOf(*ROLL_SCHEMES), RulesError)

    def unmet(self, game: GameType) -> str | None:
        """The first need ``game`` does not meet (``"rolls"``, ``"n_dice"``,
        ``"n_faces"``, ``"box_names"``), or ``None`` when it meets them all."""
        if game.rolls not in self.rolls:
            return "rolls"
        if self.n_dice is not None and game.n_dice != self.n_dice:
            return "n_dice"
        if self.n_faces is not None and game.n_faces != self.n_faces:
            return "n_faces"
        if self.box_names is not None and game.box_names not in self.box_names:
            return "box_names"
        return None

    def admits(self, game: GameType) -> bool:
        """Whether ``game`` meets every need."""
        return self.unmet(game) is None

    def describe(self) -> str:
        """The needs in words (``""``: every game)."""
        parts = []
        if self.box_names is not None:
            parts.append(f"one of {len(self.box_names)} score sheets")
        if self.n_dice is not None:
            parts.append(f"{self.n_dice} dice")
        if self.n_faces is not None:
            parts.append(f"{self.n_faces} faces")
        if self.rolls == ("fixed",):
            parts.append("games without saved rolls")
        elif self.rolls == ("saved",):
            parts.append("games with saved rolls")
        return ", ".join(parts)


#: Games whose turns lose the rolls they leave unused (no saved rolls).
FIXED_ROLLS = GameNeeds(rolls=("fixed",))


@dataclass(frozen=True)
class Feature:
    """A feature of the package and the games it takes.

    Attributes
    ----------
    name : str
        The feature as an error names it (``"target-score play"``).
    needs : GameNeeds
        The games it takes.
    """

    name: str
    needs: GameNeeds = GameNeeds()

    def check(self, rules, error: type[ValueError] = RulesError) -> None:
        """Raise ``error`` in one line unless the feature takes ``rules`` (a
        :class:`~yahtzee_sim.game.rules.RuleSet`)."""
        unmet = self.needs.unmet(rules.game_type)
        if unmet == "rolls" and rules.game_type.rolls == "saved":
            raise error(
                f"{self.name} is not available for games with saved rolls ({rules.name!r}); "
                "simulate, the optimal value table and max-EV play are"
            )
        if unmet is not None:
            raise error(
                f"{self.name} is not available for rules {rules.name!r}: it needs "
                f"{self.needs.describe()}"
            )
