"""The advisor: every option at one decision, valued by the optimal value table.

An option's value is the expected total of all points still to be scored from
this decision on under optimal play afterwards: this turn's box score, bonuses
reached this turn or later, and all future turns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from yahtzee_sim._core.decisions import position_values
from yahtzee_sim._core.scoring import saved_box_moves
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import PositionError
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import from_product_index, saved_bound
from yahtzee_sim.solving.solver import ValueTable, value_table
from yahtzee_sim.validation import Integer, check


@dataclass(frozen=True)
class Option:
    """One choice: a keep (sorted faces; ``()`` = reroll all) or a box, and its value.

    In a game with saved rolls, keeping every die with rerolls left stops the rolling:
    ``stop_box`` is then the box it scores in (the best) and ``saves`` the rolls it saves.
    ``odds`` (:func:`with_plan_odds`): a keep's plan odds, ``{box: chance}``."""

    value: float
    keep: tuple[int, ...] | None = None
    box: str | None = None
    stop_box: str | None = None
    saves: int = 0
    odds: dict[str, float] | None = None

    def to_dict(self) -> dict:
        """``{"keep": [...], "value": v}`` or ``{"box": name, "value": v}`` (a stop of a
        game with saved rolls adds ``"stop_box"`` and ``"saves"``; plan odds ``"odds"``)."""
        if self.box is not None:
            return {"box": self.box, "value": self.value}
        out = {"keep": list(self.keep), "value": self.value}
        if self.stop_box is not None:
            out |= {"stop_box": self.stop_box, "saves": self.saves}
        return out | ({} if self.odds is None else {"odds": self.odds})

    def text(self, rules: RuleSet) -> str:
        """The move for a person: the box's label ("Three of a kind"), ``"keep 5 5"``,
        ``"reroll everything"`` or, stopping in a game with saved rolls, ``"score Chance
        now and save 2 rolls"``."""
        if self.box is not None:
            return rules.boxes[rules.box_index(self.box)].label
        if self.stop_box is not None:
            label = rules.boxes[rules.box_index(self.stop_box)].label
            n = self.saves
            return f"score {label} now and save {n} roll{'s' if n != 1 else ''}"
        return "keep " + " ".join(map(str, self.keep)) if self.keep else "reroll everything"


def reachable_upper_totals(rules: RuleSet, used_mask: int) -> set[int]:
    """Upper totals a score sheet with these filled boxes can show."""
    totals = {0}
    for c, cat in enumerate(rules.boxes):
        if cat.is_upper and (used_mask >> c) & 1:
            totals = {t + cat.param * k for t in totals for k in range(rules.n_dice + 1)}
    return totals


def _used_mask(rules: RuleSet, used: Iterable[str]) -> int:
    mask = 0
    for name in used:
        c = rules.box_index(name)
        if (mask >> c) & 1:
            raise PositionError(f"box {name!r} is listed twice in used")
        mask |= 1 << c
    return mask


@dataclass(frozen=True)
class CheckedPosition:
    """One decision, checked (:func:`check_position`): the dice (face counts and roll
    index), rerolls left, filled boxes (bitmask), upper total, Yahtzee flag and, at a box
    decision of a game with saved rolls, the rolls it saves (as
    :class:`~yahtzee_sim.engine.view.TurnView` holds them)."""

    rules: RuleSet
    counts: np.ndarray
    roll: int
    rolls_left: int
    used: int
    upper: int
    flag: int
    saved_rolls: int = 0

    @property
    def turn(self) -> int:
        """0-based turn (filled boxes) of a solitaire game at this position."""
        return self.used.bit_count()

    def view(self, score: int = 0, rolls_left: int | None = None) -> TurnView:
        """A strategy's view of the position as game 0 (``score`` points so far; the
        boxes' points are unknown: zeros)."""
        rules = self.rules
        return TurnView(
            rules,
            np.zeros(1, dtype=np.int64),
            self.counts[None, :],
            np.array([self.roll], dtype=np.int32),
            self.rolls_left if rolls_left is None else rolls_left,
            self.turn,
            np.array([self.used], dtype=np.int64),
            np.array([self.upper], dtype=np.int64),
            np.array([self.flag], dtype=np.int64),
            np.array([score], dtype=np.int64),
            np.zeros((1, rules.n_boxes), dtype=np.int16),
            saved_rolls=np.array([self.saved_rolls], dtype=np.int64),
        )


@dataclass(frozen=True)
class AdvisorPosition:
    """One decision as a person states it: what :func:`advise`, :func:`check_position`,
    :func:`~yahtzee_sim.solving.strategy_move.strategy_move` and a card's
    :func:`~yahtzee_sim.strategies.cards.strategy.explain_position` take (unchecked;
    :func:`check_position` checks it).

    Attributes
    ----------
    dice : tuple of int
        Face values, e.g. ``(1, 3, 5, 5, 6)`` (any order; any iterable is kept as a tuple).
    rolls_left : int
        Rerolls left (``0``: choose a box).
    used : tuple of str
        Filled boxes, by name.
    upper : int
        Upper-section total so far.
    flag : bool
        The Yahtzee flag: the Yahtzee box holds its full points (needs ``"yahtzee"`` in
        ``used``).
    rules : str or RuleSet
    bonuses_paid : int
        Yahtzee bonuses paid so far (rules that limit them only; needs ``flag``).
    saved_rolls : int
        Games with saved rolls, at a box decision: the rolls this turn leaves unused.
    """

    dice: tuple[int, ...]
    rolls_left: int
    used: tuple[str, ...] = ()
    upper: int = 0
    flag: bool = False
    rules: str | RuleSet = "yahtzee"
    bonuses_paid: int = 0
    saved_rolls: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice", tuple(self.dice))
        object.__setattr__(self, "used", tuple(self.used))


def _state_flag(rules: RuleSet, mask: int, flag: bool, bonuses_paid: int) -> int:
    """The state's flag field of a position's Yahtzee flag and bonuses paid, checked."""
    yi = rules.yahtzee_index
    if flag and not rules.has_yahtzee_flag:
        raise PositionError(f"rules {rules.name!r} have no Yahtzee bonus")
    if flag and not (yi is not None and (mask >> yi) & 1):
        raise PositionError("the Yahtzee bonus flag needs 'yahtzee' among the used boxes")
    limit = rules.yahtzee_bonus_limit
    if bonuses_paid and not (flag and limit and 0 <= bonuses_paid <= limit):
        raise PositionError(
            f"bonuses_paid={bonuses_paid!r} needs flag and rules that limit the "
            f"Yahtzee bonus (at most {limit} under {rules.name!r})"
            if limit
            else f"bonuses_paid: rules {rules.name!r} do not limit the Yahtzee bonus"
        )
    return int(bool(flag)) + (int(bonuses_paid) if limit else 0)


def check_position(position: AdvisorPosition) -> CheckedPosition:
    """The decision ``position`` describes, checked.

    Raises
    ------
    PositionError, DiceError, RulesError
        For a position the rules cannot produce (all ``ValueError`` subclasses).
    """
    rules = get_rules(position.rules)
    counts = rules.tables.counts_from_faces(list(position.dice))
    last, cap = rules.max_rolls - 1, rules.saved_roll_cap
    rerolls = Integer(0, last, description=f"0..{last} under {rules.name!r} rules")
    rolls_left = check("rolls_left", position.rolls_left, rerolls, PositionError)
    if position.saved_rolls and not cap:
        raise PositionError(f"saved_rolls: rules {rules.name!r} do not save rolls")
    saved = Integer(0, 0 if rolls_left else cap, description=f"0..{cap} with no reroll left")
    saved_rolls = check(
        "saved_rolls (the rolls a box decision saves)", position.saved_rolls, saved, PositionError
    )
    mask = _used_mask(rules, position.used)
    if mask == (1 << rules.n_boxes) - 1:
        raise PositionError("every box is filled: the game is over")
    filled = mask.bit_count()
    most = rules.rolls_per_turn - 1 + int(saved_bound(rules, filled))
    if rolls_left > most:
        raise PositionError(
            f"rolls_left={rolls_left} cannot happen with {filled} boxes filled: a turn has "
            f"at most {most} rerolls then (the rolls saved in {filled} earlier turns)"
        )
    upper = position.upper
    possible = reachable_upper_totals(rules, mask)
    if upper not in possible:
        lo, hi = min(possible), max(possible)
        raise PositionError(
            f"upper total {upper} is impossible with the filled upper boxes "
            f"(possible totals lie in {lo}..{hi})"
        )
    state_flag = _state_flag(rules, mask, position.flag, position.bonuses_paid)
    roll = int(rules.tables.roll_index(counts))
    return CheckedPosition(
        rules, counts, roll, int(rolls_left), mask, int(upper), state_flag, int(saved_rolls)
    )


def advise(
    dice: Iterable[int],
    rolls_left: int,
    used: Iterable[str] = (),
    upper: int = 0,
    flag: bool = False,
    rules: str | RuleSet = "yahtzee",
    table: ValueTable | None = None,
    bonuses_paid: int = 0,
    saved_rolls: int = 0,
) -> list[Option]:
    """Every distinct option at a decision, best first.

    Parameters
    ----------
    dice : iterable of int
        Face values, e.g. ``[1, 3, 5, 5, 6]`` (any order).
    rolls_left : int
        Rerolls left (``0``: choose a box). Each distinct kept multiset is
        an option when ``rolls_left > 0`` (keeping every die ends the rolling: its
        value is the best box's now); each legal box otherwise.
    used : iterable of str
        Filled boxes, by name.
    upper : int
        Upper-section total so far.
    flag : bool
        The Yahtzee flag: the Yahtzee box holds 50 (extra Yahtzees earn the bonus); needs
        ``"yahtzee"`` in ``used``.
    rules : str or RuleSet
    table : ValueTable, optional
        Defaults to the (cached) optimal table of ``rules``.
    bonuses_paid : int
        Yahtzee bonuses paid so far; matters only under rules that limit them
        (``yahtzee-single-bonus``); needs ``flag``.
    saved_rolls : int
        Games with saved rolls, at a box decision: the rolls this turn leaves unused
        (saved for the next; at most the cap). With rerolls left, keeping every die
        saves them.

    Raises
    ------
    PositionError, DiceError, RulesError
        For a position the rules cannot produce (all ``ValueError`` subclasses).

    See Also
    --------
    position_options : the same for an :class:`AdvisorPosition`.
    """
    position = AdvisorPosition(
        dice, rolls_left, used, upper, flag, rules, bonuses_paid, saved_rolls
    )
    return position_options(position, table)


def position_options(position: AdvisorPosition, table: ValueTable | None = None) -> list[Option]:
    """Every distinct option at ``position``, best first (what :func:`advise` returns).

    Raises
    ------
    PositionError, DiceError, RulesError
        For a position the rules cannot produce.
    """
    pos = check_position(position)
    rolls_left, upper = pos.rolls_left, pos.upper
    rules, t = pos.rules, pos.rules.tables
    roll, mask, flag = pos.roll, pos.used, pos.flag
    table = value_table(rules) if table is None else table
    if rolls_left == 0:
        options = _box_options(pos, table, pos.saved_rolls)
    else:
        keep_vals, _, _ = position_values(
            kernel_rules(rules),
            table.lanes(),
            mask,
            min(upper, rules.upper_cap),
            flag,
        )
        keeps = t.roll_keep_keep[t.roll_keep_ptr[roll] : t.roll_keep_ptr[roll + 1]]
        # keeping every die ends the rolling (as in the engine): the roll's best box now,
        # the rolls left saved in games with saved rolls
        saved = min(rolls_left, rules.saved_roll_cap)
        stop = max(_box_options(pos, table, saved), key=lambda o: o.value)
        options = [
            Option(float(keep_vals[rolls_left, k]), keep=t.faces_from_counts(t.keep_counts[k]))
            if t.keep_size[k] < rules.n_dice
            else _stop_option(pos, stop, saved)
            for k in keeps
        ]
    return sorted(options, key=lambda o: (-o.value, -len(o.keep or ()), o.keep or (), o.box or ""))


def _stop_option(pos: CheckedPosition, best: Option, saved: int) -> Option:
    """Keeping every die with rerolls left: the roll's best box now (``best``), the
    rolls left saved in games with saved rolls (the option says so)."""
    faces = pos.rules.tables.faces_from_counts(pos.counts)
    if not pos.rules.saved_roll_cap:
        return Option(best.value, keep=faces)
    return Option(best.value, keep=faces, stop_box=best.box, saves=saved)


def with_plan_odds(
    options: list[Option],
    rolls_left: int,
    rules: str | RuleSet = "yahtzee",
    boxes: Iterable[str] | None = None,
) -> list[Option]:
    """``options`` (of :func:`advise`) with the plan odds of each keep for ``boxes``
    (default: every box; :func:`yahtzee_sim.game.plan_odds.keep_odds`): the chance it
    makes each box by the end of the turn. Box options are returned as they are."""
    from dataclasses import replace

    from yahtzee_sim.game.plan_odds import keep_odds

    rules = get_rules(rules)
    if rolls_left == 0:
        return list(options)
    columns = sorted({rules.box_index(n) for n in (rules.box_names if boxes is None else boxes)})
    odds = keep_odds(rules, rolls_left)
    names, t = rules.box_names, rules.tables
    return [
        o
        if o.keep is None
        else replace(
            o, odds={names[c]: float(odds[t.keep_from_faces(list(o.keep)), c]) for c in columns}
        )
        for o in options
    ]


def _box_options(pos: CheckedPosition, table: ValueTable, saved: int = 0) -> list[Option]:
    rules = pos.rules
    capped = min(pos.upper, rules.upper_cap)
    one = [np.array([x], dtype=np.int64) for x in (pos.roll, pos.used, capped, pos.flag, saved)]
    points, nxt, gain = (a[0] for a in saved_box_moves(kernel_rules(rules), *one))
    legal = np.flatnonzero(points >= 0)
    values = table.values[from_product_index(rules, nxt[legal])]
    out = []
    for c, value in zip(legal.tolist(), np.asarray(values).tolist(), strict=True):
        out.append(Option(float(gain[c]) + value, box=rules.box_names[c]))
    return out
