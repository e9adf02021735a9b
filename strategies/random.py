"""Random baselines of "Simulating Yahtzee" ("Simulating Yahtzee", §IV.b).

Both choose the box at random among the legal boxes that score more than zero
(any legal box when none does), except that a Yahtzee roll goes in the open
Yahtzee box. They differ in how dice are kept:

* ``random`` (purely random): each die is kept independently with probability 1/2;
* ``tiered-random``: the number of dice to keep is uniform on 0..n, then that
  many dice are chosen uniformly at random.

Keeping every die ends the turn. Their randomness comes from the strategy's
own stream (:meth:`TurnView.uniform`), never from the dice.
"Simulating Yahtzee", Table 2: 87.23 ± 25.27 and 87.27 ± 25.35.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from yahtzee_sim._kernels.rng import game_key, to_unit, word
from yahtzee_sim._kernels.scoring import box_legal_points, joker_case, kernel_rules
from yahtzee_sim.engine.strategy import AGREEMENT_POINTS, Capabilities, Reference, Strategy
from yahtzee_sim.engine.view import TurnView


class _RandomBase(Strategy):
    capabilities = Capabilities(deterministic=False)
    parallel_backend = "threads"  # stateless kernels that release the GIL
    _tiered = False

    def __init__(self) -> None:
        pass

    def keep(self, view: TurnView) -> np.ndarray:
        k0, k1 = view.strategy_key
        return random_keep(view.dice, view.games, k0, k1, view.counter_base(0), self._tiered)

    def box(self, view: TurnView) -> np.ndarray:
        k0, k1 = view.strategy_key
        return random_box(
            kernel_rules(view.rules),
            view.roll_index,
            view.used,
            view.flag,
            view.games,
            k0,
            k1,
            view.counter_base(1),
        )


class PurelyRandom(_RandomBase):
    """Keep each die with probability 1/2; random scoring box ("Simulating Yahtzee" §IV.b)."""

    references = (
        Reference(
            '"Simulating Yahtzee", Table 2',
            "yahtzee-single-bonus",
            mean=87.23,
            sd=25.27,
            n_games=100_000,
            tolerance=AGREEMENT_POINTS,
            note="simulated: 100,000 games, seed 2026",
        ),
    )


class TieredRandom(_RandomBase):
    """Keep a uniform number of dice (0..n), chosen at random; random box
    ("Simulating Yahtzee" §IV.b)."""

    _tiered = True
    references = (
        Reference(
            '"Simulating Yahtzee", Table 2',
            "yahtzee-single-bonus",
            mean=87.27,
            sd=25.35,
            n_games=100_000,
            tolerance=AGREEMENT_POINTS,
            note="simulated: 100,000 games, seed 2026",
        ),
    )


# ------------------------------------------------------------------ kernels
_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


@njit(cache=True, nogil=True)
def random_keep(counts, game_ids, key0, key1, base, tiered):
    """Keep each die with probability 1/2, or (``tiered``) a uniform number of dice
    chosen uniformly at random.

    Dice are taken in sorted face order. Purely random: die ``j`` is kept when
    bit ``j`` of the decision's word is set (branch-free popcounts per face).
    """
    m, F = counts.shape
    out = np.zeros((m, F), dtype=np.int8)
    faces = np.empty(64, dtype=np.int64)
    for i in range(m):
        gk = game_key(key0, game_ids[i])
        if not tiered:
            w = np.int64(word(gk, key1, base) >> np.uint64(1))
            for f in range(F):
                c = np.int64(counts[i, f])
                out[i, f] = _POPCOUNT[w & ((1 << c) - 1)]
                w >>= c
            continue
        n = 0
        for f in range(F):
            for _ in range(counts[i, f]):
                faces[n] = f
                n += 1
        n_keep = int(to_unit(word(gk, key1, base)) * (n + 1))
        # partial Fisher-Yates: the first n_keep positions become a uniform subset
        for j in range(n_keep):
            r = j + int(to_unit(word(gk, key1, base + 1 + j)) * (n - j))
            faces[j], faces[r] = faces[r], faces[j]
            out[i, faces[j]] += 1
    return out


@njit(cache=True, nogil=True)
def random_box(kr, roll_idx, used, flag, game_ids, key0, key1, base):
    """A Yahtzee roll goes in the open Yahtzee box; otherwise a uniform choice among
    the legal boxes that score more than zero (among all legal boxes if none does)."""
    m = roll_idx.shape[0]
    out = np.empty(m, dtype=np.int64)
    pts = np.empty(kr.n_boxes, dtype=np.int64)
    for i in range(m):
        roll = roll_idx[i]
        case = joker_case(kr, roll, used[i], flag[i])
        n_pos = 0
        n_legal = 0
        for c in range(kr.n_boxes):
            p = box_legal_points(kr, case, roll, used[i], c)
            pts[c] = p
            if p > 0:
                n_pos += 1
            if p >= 0:
                n_legal += 1
        yi = kr.yahtzee_index
        if yi >= 0 and kr.yahtzee_face[roll] >= 0 and pts[yi] > 0:
            out[i] = yi
            continue
        pool = n_pos if n_pos > 0 else n_legal
        target = int(to_unit(word(game_key(key0, game_ids[i]), key1, base)) * pool)
        for c in range(kr.n_boxes):
            ok = pts[c] > 0 if n_pos > 0 else pts[c] >= 0
            if ok:
                if target == 0:
                    out[i] = c
                    break
                target -= 1
    return out
