"""Rule-based strategy of "Simulating Yahtzee" (seed 002 §IV.d, Tables V and VI).

The rules for keeping dice and scoring rolls are Glenn's (2007), as listed in
seed 002's Tables V and VI, with Kelly and Liese's modification (no Four of a kind
in the first round) and a throw-away priority for rolls no rule places. The first
rule that applies is played; rules are evaluated for all games at once with masks.

Keep rules (Table V), in order: a Yahtzee (if the box is open or a joker applies);
a large straight if LS or SS is open; a small straight (the four-run) if SS is open
or both LS and Chance are; a tripleton whose upper box is open; any tripleton if 3K,
4K, FH or Chance is open; a doubleton whose upper box is open (high preferred);
[3 4 5] or [2 3 4] if SS is open or both LS and Chance are; any doubleton if 3K or
Chance is open; any tripleton if the Yahtzee box is open or holds 50; a singleton
whose upper box is open (low preferred) unless more than four upper boxes are open;
any doubleton (high preferred); a singleton 4, 5 or 6 (high preferred) if 3K, 4K or
Chance is open; nothing.

Scoring rules (Table VI): Yahtzee; Large straight; Small straight; a tripleton in its
upper box if it earns the bonus; four 5s or four 6s in the upper box; Four of a kind
(not in round 1); three 5s or three 6s in the upper box; Full house; Three of a kind
if the total is at least 22; a tripleton in its upper box; Three of a kind; Chance if
the total is at least 22; a doubleton in its upper box (lower preferred); else the
first open box of ``throw_away``.

Seed 002, Table 2: 212.18 ± 59.38 (Glenn 2007 reports 218.18). The paper does not
list its throw-away order beyond "Yahtzee last"; the default is documented in the README
with the mean it gives.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim.errors import StrategyError
from yahtzee_sim.view import TurnView

from .base import Strategy
from .registry import register

YAHTZEE_BOXES = ("ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind",
                 "four_of_a_kind", "full_house", "small_straight", "large_straight", "yahtzee",
                 "chance")  # fmt: skip

#: Boxes for rolls no scoring rule places, first open one first (Yahtzee last, as in seed 002).
DEFAULT_THROW_AWAY = ("chance", "full_house", "ones", "twos", "threes", "four_of_a_kind",
                      "small_straight", "large_straight", "fours", "fives", "sixes",
                      "three_of_a_kind", "yahtzee")  # fmt: skip

FACES = np.arange(1, 7)


def _runs(counts: np.ndarray, length: int) -> np.ndarray:
    """``(m, 6)`` bool: faces of the highest run of ``length`` present (all False if none)."""
    present = counts > 0
    out = np.zeros_like(present)
    found = np.zeros(len(counts), dtype=bool)
    for start in range(6 - length, -1, -1):  # highest run first
        has = present[:, start : start + length].all(axis=1) & ~found
        out[has, start : start + length] = True
        found |= has
    return out


def _pick(mask: np.ndarray, high: bool) -> np.ndarray:
    """Face index chosen among True entries (highest or lowest); -1 where none."""
    idx = np.where(mask, np.arange(6)[None, :], -1 if high else 99)
    pick = idx.max(axis=1) if high else idx.min(axis=1)
    return np.where(mask.any(axis=1), pick, -1)


@register("glenn-2007-rules")
class Glenn2007Rules(Strategy):
    """Rule-based strategy of seed 002 (Glenn 2007 rules, Tables V-VI; Kelly-Liese rule).

    Parameters
    ----------
    throw_away : tuple of str
        Order of the boxes that take rolls no scoring rule places.
    no_four_of_a_kind_first_round : bool
        Kelly and Liese's modification.
    """

    parallel_backend = "threads"  # stateless; numpy releases the GIL on its array work

    def __init__(self, throw_away: tuple[str, ...] = DEFAULT_THROW_AWAY,
                 no_four_of_a_kind_first_round: bool = True) -> None:  # fmt: skip
        self.throw_away = tuple(throw_away)
        self.no_four_of_a_kind_first_round = no_four_of_a_kind_first_round

    def prepare(self, rules) -> None:
        if rules.category_names != YAHTZEE_BOXES:
            raise StrategyError(f"glenn-2007-rules needs the 13 Yahtzee boxes, not {rules.name!r}")
        if sorted(self.throw_away) != sorted(YAHTZEE_BOXES):
            raise StrategyError("glenn-2007-rules: throw_away must list each of the 13 boxes once")

    def _context(self, view: TurnView):
        self.prepare(view.rules)
        c = np.asarray(view.dice, dtype=np.int64)
        is_open = ((view.used[:, None] >> np.arange(13)[None, :]) & 1) == 0
        return c, is_open

    def keep(self, view: TurnView) -> np.ndarray:
        c, op = self._context(view)
        m = len(c)
        keep = np.zeros((m, 6), dtype=np.int64)
        done = np.zeros(m, dtype=bool)

        def rule(cond, counts):
            sel = cond & ~done
            keep[sel] = counts[sel]
            done[:] |= sel

        joker = view.rules.joker != "none"
        five = c.max(axis=1) == 5
        rule(five & (op[:, 11] | joker), c)
        ls = _runs(c, 5).any(axis=1)
        rule(ls & (op[:, 10] | op[:, 9]), c)
        run4 = _runs(c, 4)
        rule(run4.any(axis=1) & (op[:, 9] | (op[:, 10] & op[:, 12])), run4.astype(np.int64))
        f3 = _pick(c >= 3, high=True)
        has3 = f3 >= 0
        trip = np.where(c >= 3, c, 0)
        rule(has3 & op[np.arange(m), np.maximum(f3, 0)], trip)
        rule(has3 & (op[:, 6] | op[:, 7] | op[:, 8] | op[:, 12]), trip)
        pair_open = _pick((c == 2) & op[:, :6], high=True)
        rule(pair_open >= 0, 2 * (np.arange(6)[None, :] == pair_open[:, None]))
        s345 = (c[:, 2:5] > 0).all(axis=1)
        s234 = (c[:, 1:4] > 0).all(axis=1)
        mini = np.zeros((m, 6), dtype=np.int64)
        mini[s234, 1:4] = 1
        mini[s345] = 0
        mini[s345, 2:5] = 1
        rule((s345 | s234) & (op[:, 9] | (op[:, 10] & op[:, 12])), mini)
        pair = _pick(c == 2, high=True)
        pair_keep = 2 * (np.arange(6)[None, :] == pair[:, None])
        rule((pair >= 0) & (op[:, 6] | op[:, 12]), pair_keep)
        flag = np.asarray(view.flag) == 1
        rule(has3 & (op[:, 11] | flag), trip)
        single = _pick((c >= 1) & op[:, :6], high=False)
        rule((single >= 0) & (op[:, :6].sum(axis=1) <= 4),
             (np.arange(6)[None, :] == single[:, None]).astype(np.int64))  # fmt: skip
        rule(pair >= 0, pair_keep)
        big = _pick((c >= 1) & (FACES[None, :] >= 4), high=True)
        rule((big >= 0) & (op[:, 6] | op[:, 7] | op[:, 12]),
             (np.arange(6)[None, :] == big[:, None]).astype(np.int64))  # fmt: skip
        return keep.astype(np.int8)

    def category(self, view: TurnView) -> np.ndarray:
        c, _ = self._context(view)
        m = len(c)
        pts = np.asarray(view.category_points, dtype=np.int64)
        legal = pts >= 0
        choice = np.full(m, -1, dtype=np.int64)

        def rule(cond, box):
            box = np.broadcast_to(np.asarray(box), (m,))
            ok = cond & (box >= 0) & legal[np.arange(m), np.maximum(box, 0)] & (choice < 0)
            choice[ok] = box[ok]

        total = (c * FACES[None, :]).sum(axis=1)
        five = c.max(axis=1) == 5
        rule(five & (pts[:, 11] > 0), 11)
        rule(pts[:, 10] > 0, 10)
        rule(pts[:, 9] > 0, 9)
        f3 = _pick(c >= 3, high=True)
        upper = np.asarray(view.upper_total)
        gain3 = np.where(f3 >= 0, c[np.arange(m), np.maximum(f3, 0)] * (f3 + 1), 0)
        rule((f3 >= 0) & (upper < 63) & (upper + gain3 >= 63), f3)
        for f in (5, 4):  # sixes, then fives
            rule(c[:, f] >= 4, f)
        first_round = view.turn == 0 and self.no_four_of_a_kind_first_round
        rule((pts[:, 7] > 0) & (not first_round), 7)
        for f in (5, 4):
            rule(c[:, f] >= 3, f)
        rule(pts[:, 8] > 0, 8)
        rule(pts[:, 6] >= 22, 6)
        rule(f3 >= 0, f3)
        rule(pts[:, 6] > 0, 6)
        rule(total >= 22, 12)
        rule(np.ones(m, dtype=bool), _pick((c == 2) & legal[:, :6], high=False))
        names = view.rules.category_names
        for name in self.throw_away:
            if name == "four_of_a_kind" and first_round:
                continue
            rule(np.ones(m, dtype=bool), names.index(name))
        rule(np.ones(m, dtype=bool), 7)  # only Four of a kind left in round 1: no choice
        return choice
