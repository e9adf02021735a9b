"""How a strategy uses saved rolls (Maxi Yatzy): the rolls it banks, turn by turn.

In a game with saved rolls, a turn that stops early saves the rolls it leaves unused for
later turns. :func:`saved_rolls_by_turn` plays games with the engine and records, after
every turn, how many rolls each game holds; :class:`SavedRolls` summarizes them per turn
(mean, share of games holding none, the most held) and per box (the rolls saved by the
turns that filled it), the figures that explain a strategy's banking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from yahtzee_sim.engine.batch import GameBatch
from yahtzee_sim.engine.lockstep import play_turn
from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.errors import RulesError
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.validation import Integer, validate_params


@dataclass(frozen=True)
class SavedRolls:
    """Rolls held after each turn.

    Attributes
    ----------
    rules : RuleSet
    held : ndarray (n_games, n_boxes) int64
        ``held[g, t]``: rolls game ``g`` holds after turn ``t`` (0-based; the last turn
        leaves whatever it did not use, which is lost).
    box_filled : ndarray (n_games, n_boxes) int64
        The box each turn filled.
    """

    rules: RuleSet
    held: np.ndarray
    box_filled: np.ndarray

    def by_turn(self) -> list[dict]:
        """Per turn: ``turn`` (1-based), ``mean`` rolls held after it, ``none`` (share of
        games holding none) and ``most`` (the most any game holds)."""
        h = self.held
        return [
            {
                "turn": t + 1,
                "mean": float(h[:, t].mean()),
                "none": float((h[:, t] == 0).mean()),
                "most": int(h[:, t].max()),
            }
            for t in range(h.shape[1])
        ]

    def by_box(self) -> dict[str, float]:
        """Mean rolls held after the turn that filled each box (the rolls of its pool it
        left unused, capped)."""
        out = {}
        for c, name in enumerate(self.rules.box_names):
            mask = self.box_filled == c
            out[name] = float(np.where(mask, self.held, 0).sum() / max(int(mask.sum()), 1))
        return out


@validate_params({"n_games": Integer(1)})
def saved_rolls_by_turn(
    strategy="optimal", rules: str | RuleSet = "maxi-yatzy", n_games: int = 10_000, seed: int = 0
) -> SavedRolls:
    """Play ``n_games`` games of ``strategy`` (an id or instance) and record the rolls
    each holds after every turn (the same dice as :func:`yahtzee_sim.simulate` with this
    seed).

    Raises
    ------
    RulesError
        For rules without saved rolls.
    """
    rules = get_rules(rules)
    if not rules.saved_roll_cap:
        raise RulesError(f"rules {rules.name!r} do not save rolls")
    strategy = get_strategy(strategy)
    strategy.prepare(rules)
    batch = GameBatch(rules, n_games)
    batch.seed(seed)
    held = np.zeros((n_games, rules.n_boxes), dtype=np.int64)
    box_filled = np.zeros((n_games, rules.n_boxes), dtype=np.int64)
    for turn in range(rules.n_boxes):
        before = batch.used.copy()
        play_turn(batch, strategy, turn)
        held[:, turn] = batch.saved
        box_filled[:, turn] = np.log2(batch.used ^ before).astype(np.int64)
    return SavedRolls(rules, held, box_filled)
