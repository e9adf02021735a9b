"""The rule card format: a :class:`Card` of :class:`Rule` lines, read from Markdown
(:func:`parse_card`, :func:`load_card`) and written back (:meth:`Card.format`,
:meth:`Card.save`); every condition and move checked against the card's rule set
(:mod:`~yahtzee_sim.strategies.cards.language`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from yahtzee_sim.engine.atomic import write_atomic
from yahtzee_sim.errors import CardError
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.strategies.cards.keep_moves import KEEP_FALLBACK
from yahtzee_sim.strategies.cards.language import BOX_FALLBACK, CardLanguage, vocabulary

#: The two sections of a card, in order.
SECTIONS = ("keep", "box")
_HEADERS = {"keep": "## Keeps", "box": "## Boxes"}
_RULE = re.compile(r"^(\d+)\.\s+(?:if\s+(?P<cond>.+?)|(?P<always>always)):\s+(?P<move>.+?)\s*$")
_OTHERWISE = re.compile(r"^-\s+otherwise:\s+(?P<move>.+?)\s*$")
_RULES_LINE = re.compile(r"^rules:\s*(?P<name>\S+)\s*$")


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


class _CardReader:
    """Reads a card's Markdown line by line: the ``rules:`` line, the two sections' rules
    and their ``otherwise`` lines (each refusal a :class:`CardError` naming the line)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.section: str | None = None
        self.card_rules: str | None = None
        self.sections: dict[str, list[tuple[int, Rule]]] = {"keep": [], "box": []}
        self.fallbacks: dict[str, int] = {}
        self.seen: list[str] = []

    def read(self, n: int, line: str) -> None:
        """Take line ``n`` (1-based, stripped)."""
        if line.startswith("## "):
            self.header(n, line)
        elif self.section is None:
            m = _RULES_LINE.match(line)
            if m and self.card_rules is None and not self.seen:
                self.card_rules = m.group("name")
        elif line:
            self.rule_line(n, line)

    def header(self, n: int, line: str) -> None:
        head = line.lower()
        self.section = next((s for s in SECTIONS if head == _HEADERS[s].lower()), None)
        if self.section in self.seen:
            raise CardError(f"{self.source}, line {n}: section {line!r} appears twice")
        if self.section is not None:
            self.seen.append(self.section)
        elif len(self.seen) < len(SECTIONS) and self.seen:
            raise CardError(
                f"{self.source}, line {n}: unexpected section {line!r} before "
                f"{_HEADERS[SECTIONS[len(self.seen)]]!r}"
            )

    def rule_line(self, n: int, line: str) -> None:
        source, section = self.source, self.section
        if section in self.fallbacks:
            raise CardError(f"{source}, line {n}: text after the 'otherwise' line: {line!r}")
        m = _OTHERWISE.match(line)
        if m:
            want = KEEP_FALLBACK if section == "keep" else BOX_FALLBACK
            if m.group("move") != want:
                raise CardError(
                    f"{source}, line {n}: the {section} section ends with "
                    f"'- otherwise: {want}', not {line!r}"
                )
            self.fallbacks[section] = n
            return
        m = _RULE.match(line)
        if not m:
            raise CardError(
                f"{source}, line {n}: not a rule ('N. if CONDITION and ...: MOVE', "
                f"'N. always: MOVE' or '- otherwise: ...'): {line!r}"
            )
        number = int(m.group(1))
        want_number = len(self.sections[section]) + 1
        if number != want_number:
            raise CardError(
                f"{source}, line {n}: {section} rule numbered {number}, expected {want_number}"
            )
        conds = (
            () if m.group("always") else tuple(c.strip() for c in m.group("cond").split(" and "))
        )
        if any(not c for c in conds):
            raise CardError(f"{source}, line {n}, {section} rule {number}: an empty condition")
        self.sections[section].append((n, Rule(section, conds, m.group("move"))))

    def card(self) -> Card:
        """The card read, its rules checked against its rule set's language."""
        source = self.source
        if self.card_rules is None:
            raise CardError(f"{source}: no 'rules: NAME' line before the first section")
        for s in SECTIONS:
            if s not in self.seen:
                raise CardError(f"{source}: no {_HEADERS[s]!r} section")
            if s not in self.fallbacks:
                raise CardError(f"{source}: the {_HEADERS[s]!r} section has no '- otherwise:' line")
        try:
            rules = get_rules(self.card_rules)
        except ValueError as exc:
            raise CardError(f"{source}: {exc}") from None
        vocab = vocabulary(rules)
        for s in SECTIONS:
            for i, (n, rule) in enumerate(self.sections[s], 1):
                _check_rule(vocab, rule, f"{s} rule {i}", n)
        keeps, boxes = self.sections["keep"], self.sections["box"]
        return Card(self.card_rules, [r for _, r in keeps], [r for _, r in boxes])


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
    reader = _CardReader(source)
    for n, raw in enumerate(text.splitlines(), 1):
        reader.read(n, raw.strip())
    return reader.card()


def load_card(path) -> Card:
    """Read a card file (:func:`parse_card`); a missing file is a :class:`CardError`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CardError(f"cannot read card {str(path)!r}: {exc.strerror}") from None
    return parse_card(text, str(path))
