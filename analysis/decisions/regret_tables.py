"""What regret reports and how it adds the charges up: :class:`RegretResult`, the tables.

Shared by regret on games with fixed rolls (:mod:`~yahtzee_sim.analysis.decisions.regret`)
and with saved rolls (:mod:`~yahtzee_sim.analysis.decisions.saved_regret`): the result,
the names of the decision types, the losses kept by type, turn and box with the costliest
situations (:class:`RegretTables`, recorded and restored by a resumable forward pass), and
the situations in words.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from yahtzee_sim.game.dice import DiceTables
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import decode_state


@dataclass(eq=False)
class RegretResult:
    """Where a strategy loses expected points against optimal play.

    Attributes
    ----------
    strategy : str
        The strategy's label.
    rules : RuleSet
        The game it played.
    optimal_value, strategy_value : float
        Expected final scores of optimal play and of the strategy (exact).
    total : float
        Sum of all charged losses (= ``optimal_value − strategy_value`` up to rounding).
    by_decision : pandas.Series
        Loss by decision type: ``"keep, 2 rerolls left"``, ..., ``"box"``.
    by_turn : pandas.Series
        Loss by turn (1-based).
    by_box : pandas.Series
        Loss of the box decisions, by the box the strategy chose.
    situations : pandas.DataFrame
        The costliest situations, most expensive first: turn, filled boxes, upper
        total, dice, rolls left, the strategy's move, the optimal move, probability
        of reaching, loss when reached and their product (``expected_loss``). At
        most one situation per (state, decision type) is listed.
    """

    strategy: str
    rules: RuleSet
    optimal_value: float
    strategy_value: float
    total: float
    by_decision: pd.Series
    by_turn: pd.Series
    by_box: pd.Series
    situations: pd.DataFrame
    seconds: float = 0.0
    meta: dict[str, object] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-ready summary (no wall time: the same run gives the same dict)."""
        return {
            "strategy": self.strategy,
            "rules": self.rules.name,
            "optimal_value": self.optimal_value,
            "strategy_value": self.strategy_value,
            "total": self.total,
            "by_decision": self.by_decision.to_dict(),
            "by_turn": {int(k): v for k, v in self.by_turn.items()},
            "by_box": self.by_box.to_dict(),
            "situations": self.situations.to_dict(orient="records"),
        }


def decision_layer_name(j: int) -> str:
    """The name of decision layer ``j``: the box choice (0) or a keep with ``j`` rerolls
    left."""
    if j == 0:
        return "box"
    return f"keep, {j} reroll{'s' if j > 1 else ''} left"


class RegretTables:
    """The charges so far: ``by_layer`` (by decision type), ``by_turn``, ``by_cat`` (box
    losses by the box chosen) and ``cands`` (candidate situations, see
    :func:`describe_situations`). Subclasses set them, ``rules``, ``top``, ``seconds`` and
    ``move`` (the actions in words), and give :meth:`optimal_value` and :meth:`decisions`."""

    def checkpoint_state(self) -> dict:
        """The charges so far, JSON-ready, for a resumable forward pass."""
        return {
            "by_layer": self.by_layer.tolist(),
            "by_turn": self.by_turn.tolist(),
            "by_cat": self.by_cat.tolist(),
            "cands": [list(c) for c in self.cands],
        }

    def restore_checkpoint(self, state: dict) -> None:
        """Go on from the charges :meth:`checkpoint_state` recorded."""
        self.by_layer = np.array(state["by_layer"], dtype=np.float64)
        self.by_turn = np.array(state["by_turn"], dtype=np.float64)
        self.by_cat = np.array(state["by_cat"], dtype=np.float64)
        self.cands = [tuple(c) for c in state["cands"]]

    def optimal_value(self) -> float:
        """The optimal expected score."""
        raise NotImplementedError

    def decisions(self) -> dict:
        """The loss by decision type."""
        raise NotImplementedError

    def result(self, label: str, fw, seconds: float) -> RegretResult:
        """The :class:`RegretResult` of the charges (``fw``: the pass's statistics, its
        ``mean`` the strategy's exact mean)."""
        rules = self.rules
        C = rules.n_boxes
        self.cands.sort(key=lambda c: -c[0])
        return RegretResult(
            strategy=label,
            rules=rules,
            optimal_value=self.optimal_value(),
            strategy_value=fw.mean,
            total=float(self.by_layer.sum()),
            by_decision=pd.Series(self.decisions(), name="expected_loss"),
            by_turn=pd.Series(
                self.by_turn,
                index=pd.Index(np.arange(1, C + 1), name="turn"),
                name="expected_loss",
            ),
            by_box=pd.Series(
                self.by_cat,
                index=pd.Index(rules.box_names, name="box"),
                name="expected_loss",
            ),
            situations=describe_situations(rules, self.cands[: self.top], self.move),
            seconds=seconds,
            meta={"charge_seconds": self.seconds},
        )


def costliest(contrib: np.ndarray, top: int) -> np.ndarray:
    """Indices of the (at most) ``top`` largest positive entries of ``contrib``, in no
    particular order."""
    flat = np.flatnonzero(contrib > 0)
    if len(flat) > top:
        flat = flat[np.argpartition(contrib[flat], -top)[-top:]]
    return flat


def move_text(rules: RuleSet, j: int, action: int) -> str:
    """Action ``action`` of a decision with ``j`` rerolls left in words: a box (``j``
    0) or a keep (its index)."""
    if j == 0:
        return rules.box_names[action] if 0 <= action < rules.n_boxes else "?"
    faces = DiceTables.faces_from_counts(rules.tables.keep_counts[action])
    return "keep " + (" ".join(map(str, faces)) if faces else "nothing (reroll all)")


def describe_situations(rules: RuleSet, cands: list, move=move_text) -> pd.DataFrame:
    """The situations table of :class:`RegretResult` from candidates ``(expected loss,
    state, rerolls left, roll, reach, probability within the turn, loss, optimal action,
    strategy's action)``, the actions in words by ``move(rules, rerolls_left, action)``."""
    rows = []
    for contrib, state, j, r, a, p, loss, best, chosen in cands:
        used, upper, flag = decode_state(rules, state)
        filled = [n for k, n in enumerate(rules.box_names) if (int(used) >> k) & 1]
        rows.append(
            {
                "turn": len(filled) + 1,
                "filled": ", ".join(filled) or "-",
                "upper_total": int(upper),
                "yahtzee_scored": bool(flag),
                "dice": " ".join(
                    map(str, DiceTables.faces_from_counts(rules.tables.roll_counts[r]))
                ),
                "rolls_left": j,
                "strategy_move": move(rules, j, chosen),
                "optimal_move": move(rules, j, best),
                "probability": a * p,
                "loss": loss,
                "expected_loss": contrib,
            }
        )
    cols = [
        "turn",
        "filled",
        "upper_total",
        "yahtzee_scored",
        "dice",
        "rolls_left",
        "strategy_move",
        "optimal_move",
        "probability",
        "loss",
        "expected_loss",
    ]
    return pd.DataFrame(rows, columns=cols)
