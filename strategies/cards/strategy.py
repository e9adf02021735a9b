"""Rule cards played as strategies: :class:`CardStrategy` (``card:PATH``, ``card``) and
the shipped cards of each size (``card-10`` … ``card-100``), and the line of a card that
decides at a position (:func:`explain_position`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from yahtzee_sim.engine.strategy import Capabilities, Strategy
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.strategies.cards.compiled import CompiledCard, filled_count
from yahtzee_sim.strategies.cards.format import Card, load_card, parse_card
from yahtzee_sim.strategies.cards.keep_moves import KEEP_FALLBACK
from yahtzee_sim.strategies.cards.language import BOX_FALLBACK
from yahtzee_sim.strategies.cards.shipped import SIZES, shipped_card_games, shipped_card_path
from yahtzee_sim.strategies.cards.tables import card_decision_tables

if TYPE_CHECKING:  # (imported when called: the advisor is not needed to play a card)
    from yahtzee_sim.solving.advisor import AdvisorPosition

#: What a card strategy needs of the rules, in words.
CARD_BOXES = "a card made for these boxes (shipped cards: official Yahtzee and Yatzy boxes)"


class ShippedCardCapabilities:
    """The :class:`~yahtzee_sim.engine.strategy.Capabilities` of the shipped card of
    ``size`` rules, worked out when first read (the score sheets come from the presets'
    rule sets: nothing is built at import)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.value: Capabilities | None = None

    def __get__(self, obj, owner=None) -> Capabilities:
        if self.value is None:  # two threads at once compute the same value
            self.value = Capabilities(plays=shipped_card_games(self.size), requires=CARD_BOXES)
        return self.value


class CardStrategy(Strategy):
    """A rule card played as a strategy (deterministic, position-only).

    Parameters
    ----------
    path : str, optional
        A card file (``card:PATH``). Default: the shipped card of ``size`` rules for
        the rules being played.
    size : int
        Size of the shipped card (10, 20, 30, 50; 100 for Yatzy) when no ``path`` is given.
    card : Card, optional
        A card in memory (what :func:`yahtzee_sim.analysis.decisions.distill.distill` plays);
        takes precedence over ``path`` and ``size``.
    """

    in_all = False
    references = ()  # learned here: no published figures
    id_path_parameter = "path"
    default_size = 30
    # the games of a shipped card of default_size rules (a card file given as path is
    # checked against the rules when play starts); the mirror of its ``requires``
    capabilities = ShippedCardCapabilities(default_size)
    requires = CARD_BOXES

    def __init__(
        self, path: str | None = None, size: int | None = None, card: Card | None = None
    ) -> None:
        self.path = path
        self.size = size
        self.card = card

    def _card(self, rules: RuleSet) -> Card:
        if self.card is not None:
            return self.card
        if self.path is not None:
            return load_card(self.path)
        size = self.default_size if self.size is None else self.size
        ref = shipped_card_path(rules, size)
        if ref is None:
            raise StrategyError(
                f"no shipped {size}-rule card for rules {rules.name!r} (cards of 10, 20, 30 "
                "and 50 rules exist for the Yahtzee and Yatzy boxes, of 100 for Yatzy)"
            )
        return parse_card(ref.read_text(encoding="utf-8"), f"shipped card {ref.name}")

    def check_rules(self, rules) -> None:
        if self.card is not None:
            self.card.check(rules)
        elif self.path is not None:
            load_card(self.path).check(rules)
        else:
            super().check_rules(rules)

    def prepare(self, rules) -> None:
        compiled = getattr(self, "_compiled", None)
        if compiled is not None and compiled.vocab.rules == rules:
            return
        self._compiled = CompiledCard.build(self._card(rules), rules)

    def _conditions(self, view: TurnView, points: np.ndarray) -> np.ndarray:
        roll = np.asarray(view.roll_index)
        used = np.asarray(view.used)
        return self._compiled.vocab.conditions(
            roll,
            used,
            np.asarray(view.upper_total),
            np.full(len(roll), view.rolls_left),
            filled_count(used),
            points,
            self._compiled.columns,
        )

    def keep(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        v = self._compiled.vocab
        points = np.asarray(view.box_points) if self._compiled.needs_points else None
        move = self._compiled.keep_moves(self._conditions(view, points))
        keep = v.keep_table[np.asarray(view.roll_index), move]
        return view.rules.tables.keep_counts[keep]

    def box(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        points = np.asarray(view.box_points)
        return self._compiled.box_moves(
            self._conditions(view, points), np.asarray(view.roll_index), points
        )

    def decision_table(self, rules, states: np.ndarray):
        """Decisions at every roll of ``states`` for exact evaluation (the batched
        protocol of :func:`yahtzee_sim.exact.decision_tables.decision_tables`), those of
        :meth:`keep` and :meth:`box` found in one compiled pass
        (:func:`~yahtzee_sim.strategies.cards.tables.card_decision_tables`)."""
        self.prepare(rules)
        return card_decision_tables(self._compiled, rules, states)

    def explain(self, view: TurnView) -> list[CardDecision]:
        """The line of the card that decides each game of ``view`` (the rule whose move
        :meth:`keep` / :meth:`box` play there, or the ``otherwise`` line).

        Examples
        --------
        >>> from yahtzee_sim.solving.advisor import AdvisorPosition
        >>> from yahtzee_sim.strategies.cards import Card10, explain_position
        >>> explain_position(Card10(), AdvisorPosition([2, 3, 3, 3, 6], 0, used=["chance"])).line()
        'rule 4: if 3 of a kind: score in the upper box of the most common face'
        """
        self.prepare(view.rules)
        c = self._compiled
        if view.rolls_left:
            points = np.asarray(view.box_points) if c.needs_points else None
            rule = c.keep_rules(self._conditions(view, points))
            section, lines, fallback = "keep", c.card.keeps, KEEP_FALLBACK
        else:
            points = np.asarray(view.box_points)
            rule = c.box_rules(self._conditions(view, points), np.asarray(view.roll_index), points)
            section, lines, fallback = "box", c.card.boxes, BOX_FALLBACK
        return [
            CardDecision(section, i + 1, lines[i].text())
            if i >= 0
            else CardDecision(section, None, f"otherwise: {fallback}")
            for i in rule.tolist()
        ]


@dataclass(frozen=True)
class CardDecision:
    """The line of a card that decides at one position.

    Attributes
    ----------
    section : {"keep", "box"}
    number : int or None
        The rule's number on the card (1-based); ``None`` for the ``otherwise`` line.
    text : str
        The line as the card prints it, without its number (``"if 3 of a kind: score
        in ..."``, ``"otherwise: keep the most common face"``).
    """

    section: str
    number: int | None
    text: str

    def line(self) -> str:
        """``"rule 7: if ...: MOVE"`` or ``"otherwise: MOVE"``."""
        return self.text if self.number is None else f"rule {self.number}: {self.text}"

    def to_dict(self) -> dict:
        return {"section": self.section, "number": self.number, "text": self.text}


def explain_position(strategy: CardStrategy, position: AdvisorPosition) -> CardDecision:
    """The line of a card (a :class:`CardStrategy`) that decides at ``position`` (an
    :class:`~yahtzee_sim.solving.advisor.AdvisorPosition`). See also
    :func:`yahtzee_sim.solving.strategy_move.strategy_move`, which adds the move and its loss."""
    from yahtzee_sim.solving.advisor import check_position

    pos = check_position(position)
    strategy.check_rules(pos.rules)
    return strategy.explain(pos.view())[0]


def _sized(size: int):
    class Sized(CardStrategy):
        __doc__ = f"The shipped {size}-rule card for the rules being played."
        default_size = size
        references = ()
        capabilities = ShippedCardCapabilities(size)
        in_all = False  # distilled cards: named explicitly (report --strategies card-10,...)

        def __init__(
            self, path: str | None = None, size: int | None = None, card: Card | None = None
        ) -> None:
            super().__init__(path, size, card)

    Sized.__name__ = Sized.__qualname__ = f"Card{size}"
    return Sized


Card10, Card20, Card30, Card50, Card100 = (_sized(s) for s in SIZES)
