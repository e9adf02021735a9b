"""A brute-force reference for small games: plain recursion over ordered dice and every
keep, sharing nothing with the widget but :meth:`Box.score`.

It knows forced order (only the first open box), saved rolls (unused rolls carried to
the next turn, at most the cap, at least one roll a turn) and the upper bonus; no
Yahtzee bonus or joker rule (the tests use it on games without them).
"""

from __future__ import annotations

import itertools
from functools import cache

from yahtzee_sim.game.rules import RuleSet


def brute_value(rules: RuleSet, used: int = 0, upper: int = 0, saved: int = 0) -> float:
    """Optimal expected points still to come from the turn-start state ``(used, upper,
    saved)``."""
    assert not rules.has_yahtzee_flag, "brute_value: no Yahtzee bonus or joker rule"
    F, N, C = rules.n_faces, rules.n_dice, rules.n_boxes
    cap = rules.upper_bonus_threshold if rules.upper_bonus else 0
    full = (1 << C) - 1

    def ordered_rolls(m: int) -> list[tuple[int, ...]]:
        return list(itertools.product(range(1, F + 1), repeat=m))

    def legal(used: int) -> list[int]:
        open_ = [c for c in range(C) if not (used >> c) & 1]
        return open_[:1] if rules.forced_order else open_

    @cache
    def state_value(used: int, upper: int, saved: int) -> float:
        if used == full:
            return 0.0
        rolls = ordered_rolls(N)
        left = rules.rolls_per_turn - 1 + saved
        return sum(best(tuple(sorted(d)), left, used, upper) for d in rolls) / len(rolls)

    @cache
    def best(dice: tuple[int, ...], left: int, used: int, upper: int) -> float:
        value = score_now(dice, min(left, rules.saved_roll_cap), used, upper)
        if left:
            for k in range(N):  # keep k < N dice and reroll the others
                for kept in set(itertools.combinations(dice, k)):
                    rolls = ordered_rolls(N - k)
                    v = sum(best(tuple(sorted(kept + r)), left - 1, used, upper) for r in rolls)
                    value = max(value, v / len(rolls))
        return value

    def score_now(dice: tuple[int, ...], saved: int, used: int, upper: int) -> float:
        counts = [dice.count(f + 1) for f in range(F)]
        out = -1.0
        for c in legal(used):
            box = rules.boxes[c]
            p = box.score(counts, rules.two_pairs_allows_one_pair)
            up, bonus = upper, 0
            if box.is_upper and cap:
                up = min(upper + p, cap)
                bonus = rules.upper_bonus if upper < cap <= upper + p else 0
            out = max(out, p + bonus + state_value(used | (1 << c), up, saved))
        return out

    return state_value(used, upper, saved)
