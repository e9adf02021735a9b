"""Rule cards: short decision lists a person can follow while playing, as strategies.

A card has two sections read top to bottom: **keeps** (while rerolls are left) and
**boxes** (after the last roll). Each rule reads ``if CONDITION and CONDITION: MOVE``;
the first rule whose conditions all hold decides (a box rule is skipped when its box
cannot take the roll), and the fixed last line of each section (``otherwise: ...``)
decides when none does. The conditions and moves are those of
:mod:`~yahtzee_sim.strategies._card_language`.

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

import re
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

import numpy as np

from yahtzee_sim.engine.atomic import write_atomic
from yahtzee_sim.engine.strategy import Capabilities, Strategy
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.game.capabilities import GameNeeds
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.strategies._card_language import (
    BOX_FALLBACK,
    KEEP_FALLBACK,
    CardLanguage,
    vocabulary,
)

SECTIONS = ("keep", "box")
_HEADERS = {"keep": "## Keeps", "box": "## Boxes"}
_RULE = re.compile(r"^(\d+)\.\s+(?:if\s+(?P<cond>.+?)|(?P<always>always)):\s+(?P<move>.+?)\s*$")
_OTHERWISE = re.compile(r"^-\s+otherwise:\s+(?P<move>.+?)\s*$")
_RULES_LINE = re.compile(r"^rules:\s*(?P<name>\S+)\s*$")
#: Shipped card sizes (``card-10`` ...).
SIZES = (10, 20, 30, 50, 100)  # shipped sizes (100: Yatzy only)


class CardError(StrategyError):
    """A malformed rule card: the message names the line, the rule and what is wrong."""


@dataclass(frozen=True)
class Rule:
    """One line of a card: ``if conditions: move`` in section ``"keep"`` or ``"box"``."""

    section: str
    conditions: tuple[str, ...]
    move: str

    def text(self) -> str:
        """The rule as a card prints it (without its number)."""
        cond = f"if {' and '.join(self.conditions)}" if self.conditions else "always"
        return f"{cond}: {self.move}"


@dataclass(eq=True)
class Card:
    """A rule card: the rule set it was made for, its keep rules and box rules in order.

    Attributes
    ----------
    rules : str
        Name of the rule set the card was made for.
    keeps, boxes : list of Rule
        The two sections, first rule first.
    notes : str
        Free text printed after the rules (exact figures, provenance).
    """

    rules: str
    keeps: list[Rule] = field(default_factory=list)
    boxes: list[Rule] = field(default_factory=list)
    notes: str = ""

    @property
    def n_rules(self) -> int:
        """Rules on the card (the two ``otherwise`` lines are not counted)."""
        return len(self.keeps) + len(self.boxes)

    def section(self, name: str) -> list[Rule]:
        return self.keeps if name == "keep" else self.boxes

    def format(self, title: str | None = None) -> str:
        """The card as Markdown (what :func:`parse_card` reads back)."""
        title = title or f"Rule card: {self.rules}, {self.n_rules} rules"
        lines = [f"# {title}", "", f"rules: {self.rules}", ""]
        for name, fallback in (("keep", KEEP_FALLBACK), ("box", BOX_FALLBACK)):
            lines.append(_HEADERS[name])
            lines += [f"{i}. {r.text()}" for i, r in enumerate(self.section(name), 1)]
            lines += [f"- otherwise: {fallback}", ""]
        if self.notes:
            lines += ["## Notes", "", self.notes.strip(), ""]
        return "\n".join(lines)

    def save(self, path) -> Path:
        """Write the card to ``path`` (Markdown), atomically
        (:func:`~yahtzee_sim.engine.atomic.write_atomic`)."""
        return write_atomic(path, self.format())

    def check(self, rules: RuleSet) -> None:
        """Raise :class:`CardError` unless every condition and move is known for ``rules``."""
        vocab = vocabulary(rules)
        for name in SECTIONS:
            for i, rule in enumerate(self.section(name), 1):
                _check_rule(vocab, rule, f"{name} rule {i}", None)


def _check_rule(vocab: CardLanguage, rule: Rule, where: str, line: int | None) -> None:
    at = f"line {line}, {where}" if line is not None else where
    moves = vocab.keep_index if rule.section == "keep" else vocab.box_index
    allowed = vocab.keep_groups if rule.section == "keep" else vocab.box_groups
    for cond in rule.conditions:
        i = vocab.condition_index.get(cond)
        if i is None:
            raise CardError(f"{at}: unknown condition {cond!r} for rules {vocab.rules.name!r}")
        if not allowed[i]:
            raise CardError(f"{at}: condition {cond!r} cannot be used in a {rule.section} rule")
    if rule.move not in moves:
        kind = "keep move" if rule.section == "keep" else "box move"
        raise CardError(f"{at}: unknown {kind} {rule.move!r}; expected one of: {', '.join(moves)}")


def parse_card(text: str, source: str = "card") -> Card:
    """Read a card from its Markdown text.

    Raises
    ------
    CardError
        Naming the line (1-based), the rule and what is wrong: a missing ``rules:``
        line or section, a rule out of numbering, a line that is not a rule, an
        unknown condition or move (checked against the card's rule set), a wrong
        ``otherwise`` line.
    """
    section = None
    card_rules = None
    sections: dict[str, list[tuple[int, Rule]]] = {"keep": [], "box": []}
    fallbacks: dict[str, int] = {}
    seen: list[str] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("## "):
            head = line.lower()
            section = next((s for s in SECTIONS if head == _HEADERS[s].lower()), None)
            if section in seen:
                raise CardError(f"{source}, line {n}: section {line!r} appears twice")
            if section is not None:
                seen.append(section)
            elif len(seen) < len(SECTIONS) and seen:
                raise CardError(
                    f"{source}, line {n}: unexpected section {line!r} before "
                    f"{_HEADERS[SECTIONS[len(seen)]]!r}"
                )
            continue
        if section is None:
            m = _RULES_LINE.match(line)
            if m and card_rules is None and not seen:
                card_rules = m.group("name")
            continue
        if not line:
            continue
        if section in fallbacks:
            raise CardError(f"{source}, line {n}: text after the 'otherwise' line: {line!r}")
        m = _OTHERWISE.match(line)
        if m:
            want = KEEP_FALLBACK if section == "keep" else BOX_FALLBACK
            if m.group("move") != want:
                raise CardError(
                    f"{source}, line {n}: the {section} section ends with "
                    f"'- otherwise: {want}', not {line!r}"
                )
            fallbacks[section] = n
            continue
        m = _RULE.match(line)
        if not m:
            raise CardError(
                f"{source}, line {n}: not a rule ('N. if CONDITION and ...: MOVE', "
                f"'N. always: MOVE' or '- otherwise: ...'): {line!r}"
            )
        number = int(m.group(1))
        want_number = len(sections[section]) + 1
        if number != want_number:
            raise CardError(
                f"{source}, line {n}: {section} rule numbered {number}, expected {want_number}"
            )
        conds = (
            () if m.group("always") else tuple(c.strip() for c in m.group("cond").split(" and "))
        )
        if any(not c for c in conds):
            raise CardError(f"{source}, line {n}, {section} rule {number}: an empty condition")
        sections[section].append((n, Rule(section, conds, m.group("move"))))
    if card_rules is None:
        raise CardError(f"{source}: no 'rules: NAME' line before the first section")
    for s in SECTIONS:
        if s not in seen:
            raise CardError(f"{source}: no {_HEADERS[s]!r} section")
        if s not in fallbacks:
            raise CardError(f"{source}: the {_HEADERS[s]!r} section has no '- otherwise:' line")
    try:
        rules = get_rules(card_rules)
    except ValueError as exc:
        raise CardError(f"{source}: {exc}") from None
    vocab = vocabulary(rules)
    for s in SECTIONS:
        for i, (n, rule) in enumerate(sections[s], 1):
            _check_rule(vocab, rule, f"{s} rule {i}", n)
    return Card(card_rules, [r for _, r in sections["keep"]], [r for _, r in sections["box"]])


def load_card(path) -> Card:
    """Read a card file (:func:`parse_card`); a missing file is a :class:`CardError`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CardError(f"cannot read card {str(path)!r}: {exc.strerror}") from None
    return parse_card(text, str(path))


def shipped_card_path(rules: RuleSet, size: int):
    """The packaged card of ``size`` rules for ``rules`` (by its boxes), or ``None``."""
    family = _family(rules)
    if family is None:
        return None
    ref = resources.files(__package__).joinpath("cards", f"{family}-{size}.md")
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


# ----------------------------------------------------------------- playing
@dataclass
class CompiledCard:
    """A card as column indices of one :class:`CardLanguage` (what play reads).

    ``columns`` are the conditions the card uses; each rule holds positions into them;
    ``card`` is the card compiled.
    """

    vocab: CardLanguage
    columns: np.ndarray
    keeps: list[tuple[np.ndarray, int]]
    boxes: list[tuple[np.ndarray, int]]
    card: Card | None = None

    @classmethod
    def build(cls, card: Card, rules: RuleSet) -> CompiledCard:
        card.check(rules)
        v = vocabulary(rules)
        used = sorted({v.condition_index[c] for r in card.keeps + card.boxes for c in r.conditions})
        where = {c: k for k, c in enumerate(used)}

        def comp(rule, moves):
            idx = [where[v.condition_index[c]] for c in rule.conditions]
            return np.array(idx, dtype=np.int64), moves[rule.move]

        return cls(
            v,
            np.array(used, dtype=np.int64),
            [comp(r, v.keep_index) for r in card.keeps],
            [comp(r, v.box_index) for r in card.boxes],
            card,
        )

    @property
    def needs_points(self) -> bool:
        """Whether a rule asks what a box would score (the conditions then need the
        box points at keep decisions too)."""
        return bool((~self.vocab.keep_groups[self.columns]).any())

    def keep_rules(self, X: np.ndarray) -> np.ndarray:
        """0-based keep rule that decides each row of conditions ``X`` (``columns``):
        the first that holds; -1 where none does (the ``otherwise`` line)."""
        rule = np.full(len(X), -1, dtype=np.int64)
        for i in range(len(self.keeps) - 1, -1, -1):
            rule[all_hold(X, self.keeps[i][0])] = i
        return rule

    def keep_moves(self, X: np.ndarray) -> np.ndarray:
        """Keep move of every row of conditions ``X`` (that of :meth:`keep_rules`)."""
        moves = [a for _, a in self.keeps] + [self.vocab.keep_index[KEEP_FALLBACK]]
        return np.array(moves, dtype=np.int64)[self.keep_rules(X)]

    def box_rules(self, X: np.ndarray, roll: np.ndarray, points: np.ndarray) -> np.ndarray:
        """0-based box rule that decides each row: the first that holds and whose box
        takes the roll (``points`` >= 0); -1 where none does (the ``otherwise`` line)."""
        rule = np.full(len(X), -1, dtype=np.int64)
        rows = np.arange(len(X))
        for i in range(len(self.boxes) - 1, -1, -1):
            idx, b = self.boxes[i]
            box = self.vocab.box_table[roll, b]
            rule[all_hold(X, idx) & (points[rows, box] >= 0)] = i
        return rule

    def box_moves(self, X: np.ndarray, roll: np.ndarray, points: np.ndarray) -> np.ndarray:
        """Box of every row: that of :meth:`box_rules`'s rule, else the box with the most
        points (the first on the card if equal)."""
        rule = self.box_rules(X, roll, points)
        moves = np.array([b for _, b in self.boxes] + [0], dtype=np.int64)[rule]
        fallback = np.argmax(points, axis=1).astype(np.int64)
        return np.where(rule >= 0, self.vocab.box_table[roll, moves], fallback)


def all_hold(X: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Rows of the condition matrix ``X`` where every condition of ``idx`` holds."""
    out = np.ones(len(X), dtype=np.bool_)
    for k in idx:
        out &= X[:, k]
    return out


#: Number of set bits of every 16-bit value.
_POPCOUNT16 = (
    np.unpackbits(np.arange(1 << 16, dtype=">u2").view(np.uint8))
    .reshape(-1, 16)
    .sum(axis=1, dtype=np.int64)
)


def filled_count(used: np.ndarray) -> np.ndarray:
    """Number of filled boxes of each bitmask (the 0-based turn in solitaire)."""
    used = np.asarray(used, dtype=np.int64)
    out = _POPCOUNT16[used & 0xFFFF]
    rest = used >> 16
    while rest.any():
        out = out + _POPCOUNT16[rest & 0xFFFF]
        rest = rest >> 16
    return out


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
    # checked against the rules when play starts)
    capabilities = Capabilities(
        plays=shipped_card_games(default_size),
        requires="a card made for these boxes (shipped cards: official Yahtzee and Yatzy boxes)",
    )

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

    def explain(self, view: TurnView) -> list[CardDecision]:
        """The line of the card that decides each game of ``view`` (the rule whose move
        :meth:`keep` / :meth:`box` play there, or the ``otherwise`` line).

        Examples
        --------
        >>> from yahtzee_sim.strategies.card import Card10, explain_position
        >>> explain_position(Card10(), [2, 3, 3, 3, 6], 0, used=["chance"]).line()
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


def explain_position(
    strategy: CardStrategy,
    dice,
    rolls_left: int,
    used=(),
    upper: int = 0,
    flag: bool = False,
    rules="yahtzee",
    bonuses_paid: int = 0,
) -> CardDecision:
    """The line of a card (a :class:`CardStrategy`) that decides at one position (the
    position as :func:`yahtzee_sim.advise` takes it). See also
    :func:`yahtzee_sim.solving.strategy_move.strategy_move`, which adds the move and its loss."""
    from yahtzee_sim.solving.advisor import check_position

    pos = check_position(dice, rolls_left, used, upper, flag, rules, bonuses_paid)
    strategy.check_rules(pos.rules)
    return strategy.explain(pos.view())[0]


def _sized(size: int):
    class Sized(CardStrategy):
        __doc__ = f"The shipped {size}-rule card for the rules being played."
        default_size = size
        references = ()
        capabilities = replace(CardStrategy.capabilities, plays=shipped_card_games(size))
        in_all = False  # distilled cards: named explicitly (report --strategies card-10,...)

        def __init__(
            self, path: str | None = None, size: int | None = None, card: Card | None = None
        ) -> None:
            super().__init__(path, size, card)

    Sized.__name__ = Sized.__qualname__ = f"Card{size}"
    return Sized


Card10, Card20, Card30, Card50, Card100 = (_sized(s) for s in SIZES)
