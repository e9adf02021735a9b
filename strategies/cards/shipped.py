"""The shipped rule cards (the Markdown files of this folder): which exist, for which score
sheets, and the games each size plays."""

from __future__ import annotations

from importlib import resources

from yahtzee_sim.game.capabilities import GameNeeds
from yahtzee_sim.game.rules import RuleSet, get_rules

#: Shipped card sizes (``card-10`` ...).
SIZES = (10, 20, 30, 50, 100)  # shipped sizes (100: Yatzy only)


def shipped_card_path(rules: RuleSet, size: int):
    """The packaged card of ``size`` rules for ``rules`` (by its boxes), or ``None``."""
    family = _family(rules)
    if family is None:
        return None
    ref = resources.files(__package__).joinpath(f"{family}-{size}.md")
    return ref if ref.is_file() else None


#: The presets whose score sheets have shipped cards.
CARD_FAMILIES = ("yahtzee", "yatzy", "2-yatzy")


def _family(rules: RuleSet) -> str | None:
    for family in CARD_FAMILIES:
        if rules.box_names == get_rules(family).box_names:
            return family
    return None


def shipped_card_games(size: int) -> GameNeeds:
    """The games a shipped card of ``size`` rules plays: the score sheets it was made
    for (data for :class:`CardStrategy`'s capabilities)."""
    return GameNeeds(
        box_names=tuple(
            get_rules(family).box_names
            for family in CARD_FAMILIES
            if shipped_card_path(get_rules(family), size) is not None
        )
    )
