"""Brute-force two-player values for tiny rule sets: plain recursion over dice outcomes.

Deliberately independent of the solver: dice as sorted tuples with multinomial
probabilities, keeps as sub-multisets, scores from :meth:`Box.score`, the upper
bonus and the win rule written out. Exponential; for games of a few boxes only (no
Yahtzee bonus or joker rules).
"""

from __future__ import annotations

import itertools
from functools import cache
from math import factorial

from yahtzee_sim.game.rules import RuleSet


def _rolls(n: int, faces: int) -> list[tuple[tuple[int, ...], float]]:
    """Every sorted outcome of ``n`` dice with its probability."""
    out = []
    for combo in itertools.combinations_with_replacement(range(1, faces + 1), n):
        ways = factorial(n)
        for f in set(combo):
            ways //= factorial(combo.count(f))
        out.append((combo, ways / faces**n))
    return out


def _keeps(dice: tuple[int, ...]) -> set[tuple[int, ...]]:
    return {tuple(sorted(k)) for r in range(len(dice) + 1) for k in itertools.combinations(dice, r)}


class Brute:
    """P(win) of the visible two-player game by recursion. A card is a tuple of box
    scores (``None`` = open)."""

    def __init__(self, rules: RuleSet, policies=(None, None)):
        assert rules.yahtzee_bonus == 0 and rules.joker == "none"
        self.rules = rules
        self.policies = policies  # per seat: None (best) or a function(card, dice, rolls_left)

    def total(self, card) -> int:
        r = self.rules
        pts = sum(p for p in card if p is not None)
        upper = sum(p for c, p in zip(r.boxes, card, strict=True) if c.is_upper and p)
        return pts + (r.upper_bonus if r.upper_bonus and upper >= r.upper_bonus_threshold else 0)

    def score(self, c: int, dice) -> int:
        counts = [dice.count(f + 1) for f in range(self.rules.n_faces)]
        return self.rules.boxes[c].score(counts, self.rules.two_pairs_allows_one_pair)

    @cache  # noqa: B019 (test helper, one instance per game)
    def value(self, seat: int, cards: tuple) -> float:
        """P(seat 0 wins) with ``seat`` to move at a turn start."""
        if all(p is not None for card in cards for p in card):
            a, b = self.total(cards[0]), self.total(cards[1])
            return 1.0 if a > b else (0.5 if a == b else 0.0)
        return sum(
            p * self.roll_value(seat, cards, dice, self.rules.rolls_per_turn - 1)
            for dice, p in _rolls(self.rules.n_dice, self.rules.n_faces)
        )

    def _after_box(self, seat, cards, c, dice) -> float:
        card = list(cards[seat])
        card[c] = self.score(c, dice)
        new = list(cards)
        new[seat] = tuple(card)
        return self.value(1 - seat, tuple(new))

    @cache  # noqa: B019
    def roll_value(self, seat: int, cards: tuple, dice: tuple, rolls_left: int) -> float:
        """P(seat 0 wins) with ``seat`` to decide at ``dice`` with ``rolls_left`` rerolls."""
        sign = 1.0 if seat == 0 else -1.0  # seat 1 minimizes seat 0's P(win)
        policy = self.policies[seat]
        if rolls_left == 0:
            boxes = [c for c, p in enumerate(cards[seat]) if p is None]
            if policy is not None:
                return self._after_box(seat, cards, policy(cards[seat], dice, 0), dice)
            return sign * max(sign * self._after_box(seat, cards, c, dice) for c in boxes)

        def keep_value(keep):
            if len(keep) == len(dice):  # keeping every die ends the turn
                return self.roll_value(seat, cards, dice, 0)
            return sum(
                p * self.roll_value(seat, cards, tuple(sorted(keep + more)), rolls_left - 1)
                for more, p in _rolls(len(dice) - len(keep), self.rules.n_faces)
            )

        if policy is not None:
            return keep_value(policy(cards[seat], dice, rolls_left))
        return sign * max(sign * keep_value(k) for k in _keeps(dice))

    def p_win(self, seat: int = 0) -> float:
        """P(seat wins) from empty cards, seat 0 to move."""
        empty = (None,) * self.rules.n_boxes
        v = self.value(0, (empty, empty))
        return v if seat == 0 else 1.0 - v
