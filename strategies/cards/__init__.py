"""Rule cards: short decision lists a person can follow while playing, as strategies.

The card format (:mod:`.format`), what a card may say (:mod:`.language`, its keep moves in
:mod:`.keep_moves`), a card compiled for play (:mod:`.compiled`), cards played as strategies
(:mod:`.strategy`) and the shipped cards (:mod:`.shipped` and this folder's Markdown files).

A card has two sections read top to bottom: **keeps** (while rerolls are left) and
**boxes** (after the last roll). Each rule reads ``if CONDITION and CONDITION: MOVE``;
the first rule whose conditions all hold decides (a box rule is skipped when its box
cannot take the roll), and the fixed last line of each section (``otherwise: ...``)
decides when none does. The conditions and moves are those of
:mod:`~yahtzee_sim.strategies.cards.language`.

Cards are Markdown files::

    # Rule card: yahtzee, 2 rules

    rules: yahtzee

    ## Keeps
    1. if 2 rerolls left and run of 4+: keep the longest run, one die of each face
    - otherwise: keep the most common face

    ## Boxes
    1. if sixes scores >= 18: score in sixes
    - otherwise: score the box with the most points (the first on the card if equal)

Text before ``## Keeps`` is free (the ``rules:`` line names the rule set the card was
made for); sections after ``## Boxes`` whose header is neither are free text too.
Strategy ids: ``card:PATH`` plays the card in a file; ``card-10``, ``card-20``,
``card-30`` (also ``card``), ``card-50`` and ``card-100`` play the shipped card of that
size for the rules being played (official Yahtzee cards for the 13 Yahtzee boxes, Yatzy
cards for the 15 Yatzy boxes; the 100-rule card for Yatzy only).
"""

from __future__ import annotations

from yahtzee_sim.strategies.cards.compiled import CompiledCard, all_hold, filled_count
from yahtzee_sim.strategies.cards.format import (
    SECTIONS,
    Card,
    CardError,
    Rule,
    load_card,
    parse_card,
)
from yahtzee_sim.strategies.cards.keep_moves import KEEP_FALLBACK
from yahtzee_sim.strategies.cards.language import BOX_FALLBACK, CardLanguage, vocabulary
from yahtzee_sim.strategies.cards.shipped import (
    CARD_FAMILIES,
    SIZES,
    shipped_card_games,
    shipped_card_path,
)
from yahtzee_sim.strategies.cards.strategy import (
    Card10,
    Card20,
    Card30,
    Card50,
    Card100,
    CardDecision,
    CardStrategy,
    explain_position,
)

__all__ = [
    "BOX_FALLBACK",
    "CARD_FAMILIES",
    "KEEP_FALLBACK",
    "SECTIONS",
    "SIZES",
    "Card",
    "Card10",
    "Card20",
    "Card30",
    "Card50",
    "Card100",
    "CardDecision",
    "CardError",
    "CardLanguage",
    "CardStrategy",
    "CompiledCard",
    "Rule",
    "all_hold",
    "explain_position",
    "filled_count",
    "load_card",
    "parse_card",
    "shipped_card_games",
    "shipped_card_path",
    "vocabulary",
]
