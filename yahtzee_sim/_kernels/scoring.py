"""The rules in kernel form: the bundle every compiled kernel takes (:class:`KernelRules`).

Legality and points are the compiled core's (:mod:`yahtzee_sim._core.rules`; batch entry
points in :mod:`yahtzee_sim._core.scoring`); rolling and scoring batches of games step by
step: :mod:`yahtzee_sim._core.batch_play`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

JOKER_NONE, JOKER_FREE, JOKER_FORCED = 0, 1, 2
_JOKER_CODES = {"none": JOKER_NONE, "free": JOKER_FREE, "forced": JOKER_FORCED}


class KernelRules(NamedTuple):
    """One rule set and its dice tables, flattened into the form every kernel takes.

    Kernels receive this one bundle instead of the tables one by one; what a field
    means is documented on :class:`~yahtzee_sim.game.dice.DiceTables` and
    :class:`~yahtzee_sim.game.rules.RuleSet`. The *box slots* serve the widget: the
    distinct scores of box ``c`` (joker scores included) are ``slot_points[slot_ptr[c] :
    slot_ptr[c + 1]]``, ``score_slot[r, c]`` is the slot of ``score_table[r, c]`` and
    ``points_slot[c, p]`` that of ``p`` points, so a turn's scoring step values each
    (box, points) pair once, not once per roll.
    """

    score_table: np.ndarray  # (n_rolls, C) int16
    joker_table: np.ndarray  # (n_rolls, C) int16
    yahtzee_face: np.ndarray  # (n_rolls,) int8, -1 if not n-of-a-kind
    upper_cat_of_face: np.ndarray  # (F,) int64, -1 if no upper box for that face
    is_upper: np.ndarray  # (C,) bool
    box_max: np.ndarray  # (C,) int64: most points box c can get (joker scores included)
    code_to_roll: np.ndarray  # (code,) int32
    code_to_keep: np.ndarray  # (code,) int32
    code_weights: np.ndarray  # (F,) int64
    first_roll_prob: np.ndarray  # (n_rolls,) float64, P(roll) when no die is kept
    roll_counts: np.ndarray  # (n_rolls, F) int8
    keep_add: np.ndarray  # (n_keeps, F) int32
    keep_remove: np.ndarray  # (n_keeps, F) int32
    keep_sub: np.ndarray  # (n_keeps, >= 5) int64: :func:`keep_subs`
    keep_sub_count: np.ndarray  # (n_keeps,) int64
    keep_size: np.ndarray  # (n_keeps,) int8
    roll_keep_index: np.ndarray  # (n_rolls,) int32
    keep_roll_ptr: np.ndarray  # CSR keep -> (roll, probability)
    keep_roll_roll: np.ndarray
    keep_roll_prob: np.ndarray
    roll_keep_ptr: np.ndarray  # CSR roll -> sub-keeps
    roll_keep_keep: np.ndarray
    slot_ptr: np.ndarray  # (C + 1,) int64
    slot_points: np.ndarray  # (n_slots,) int64
    score_slot: np.ndarray  # (n_rolls, C) int64
    box_score_slot: np.ndarray  # (C, n_rolls) int64: score_slot by box (rolls contiguous)
    points_slot: np.ndarray  # (C, max points + 1) int64, -1: no such score
    n_dice: int
    n_faces: int
    n_boxes: int
    rolls: int  # rolls per turn
    joker: int
    yahtzee_index: int  # -1 if none
    yahtzee_points: int
    yahtzee_bonus: int
    yahtzee_bonus_limit: int  # 0: no limit
    upper_cap: int
    upper_threshold: int
    upper_bonus: int
    flag_size: int
    forced_order: bool  # boxes filled in score-sheet order
    saved_size: int  # size of the saved-roll axis (1: rolls are not saved)
    saved_roll_cap: int  # most saved rolls (0: none)
    levels: int  # most rolls a turn can have (rolls per turn + the saved-roll cap)
    # True in games with saved rolls, None elsewhere: a difference of *type*, so the
    # kernels of other games are compiled without the saved-roll steps
    # (:func:`.keep_steps.keep_steps`)
    saving: bool | None = None


#: Fields of :class:`KernelRules` taken as they are from the rule set's dice tables.
_FROM_DICE_TABLES = (
    "score_table",
    "joker_table",
    "yahtzee_face",
    "code_to_roll",
    "code_to_keep",
    "roll_counts",
    "keep_add",
    "keep_remove",
    "keep_size",
    "roll_keep_index",
    "keep_roll_ptr",
    "keep_roll_roll",
    "keep_roll_prob",
    "roll_keep_ptr",
    "roll_keep_keep",
)

#: Fields of :class:`KernelRules` taken as they are from the rule set.
_FROM_RULES = (
    "n_dice",
    "n_faces",
    "n_boxes",
    "yahtzee_bonus",
    "yahtzee_bonus_limit",
    "upper_cap",
    "upper_bonus",
    "flag_size",
    "forced_order",
    "saved_size",
    "saved_roll_cap",
)


def _first_roll_prob(t) -> np.ndarray:
    out = np.zeros(t.n_rolls)
    lo, hi = t.keep_roll_ptr[0], t.keep_roll_ptr[1]
    out[t.keep_roll_roll[lo:hi]] = t.keep_roll_prob[lo:hi]
    return out


def _box_slots(score_table: np.ndarray, joker_table: np.ndarray) -> dict[str, np.ndarray]:
    """The box slots by field name: ``slot_ptr``, ``slot_points`` (the distinct scores of
    each box, normal and joker scores), ``score_slot`` (the slot of every normal score)
    and ``points_slot`` (``points_slot[c, p]``: the slot of ``p`` points in box ``c``, -1
    if no roll scores so)."""
    n_rolls, C = score_table.shape
    ptr = np.zeros(C + 1, dtype=np.int64)
    points = []
    score_slot = np.empty((n_rolls, C), dtype=np.int64)
    top = int(max(score_table.max(), joker_table.max()))
    points_slot = np.full((C, top + 1), -1, dtype=np.int64)
    for c in range(C):
        values = np.union1d(score_table[:, c], joker_table[:, c][joker_table[:, c] >= 0])
        points_slot[c, values] = ptr[c] + np.arange(len(values))
        score_slot[:, c] = points_slot[c, score_table[:, c]]
        points.extend(values.tolist())
        ptr[c + 1] = ptr[c] + len(values)
    return {
        "slot_ptr": ptr,
        "slot_points": np.array(points, dtype=np.int64),
        "score_slot": score_slot,
        "box_score_slot": np.ascontiguousarray(score_slot.T),
        "points_slot": points_slot,
    }


def keep_subs(keep_remove: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sub, count)``: keep ``k``'s ``count[k]`` distinct keeps of one die fewer,
    ``sub[k, :count[k]]``, in ascending order of the removed face (``keep_remove`` with
    the absent faces dropped), the row padded with its last entry (``k`` itself if it
    has none) to at least five columns — so the widget's best-keep step reads a fixed
    number of rows per keep (:func:`.keep_steps.best_subkeeps`); a repeated row never
    changes a maximum or its tie order."""
    n_keeps = keep_remove.shape[0]
    count = (keep_remove >= 0).sum(axis=1).astype(np.int64)
    sub = np.empty((n_keeps, max(5, int(count.max(initial=0)))), dtype=np.int64)
    for k in range(n_keeps):
        present = keep_remove[k][keep_remove[k] >= 0].astype(np.int64)
        sub[k] = present[-1] if len(present) else k
        sub[k, : len(present)] = present
    return sub, count


def kernel_rules(rules) -> KernelRules:
    """Build (once per rule set, cached on it) the :class:`KernelRules` of ``rules``."""
    cached = rules.__dict__.get("_kernel_rules")
    if cached is not None:
        return cached
    t = rules.tables
    ucf = np.full(rules.n_faces, -1, dtype=np.int64)
    for i, c in enumerate(rules.boxes):
        if c.is_upper:
            ucf[c.param - 1] = i
    yi = rules.yahtzee_index
    box_max = t.score_table.max(axis=0).astype(np.int64)
    if rules.joker != "none":  # joker scores (e.g. a Yahtzee as a Large straight)
        box_max = np.maximum(box_max, t.joker_table.max(axis=0))
    keep_sub, keep_sub_count = keep_subs(t.keep_remove)
    kr = KernelRules(
        upper_cat_of_face=ucf,
        is_upper=np.array([c.is_upper for c in rules.boxes]),
        box_max=box_max,
        **{name: getattr(t, name) for name in _FROM_DICE_TABLES},
        code_weights=(rules.n_dice + 1) ** np.arange(rules.n_faces, dtype=np.int64),
        first_roll_prob=_first_roll_prob(t),
        keep_sub=keep_sub,
        keep_sub_count=keep_sub_count,
        **_box_slots(t.score_table, t.joker_table),
        rolls=rules.rolls_per_turn,
        levels=rules.max_rolls,
        saving=True if rules.saved_roll_cap > 0 else None,
        joker=_JOKER_CODES[rules.joker],
        yahtzee_index=-1 if yi is None else yi,
        yahtzee_points=0 if yi is None else rules.boxes[yi].points,
        upper_threshold=rules.upper_bonus_threshold,
        **{name: getattr(rules, name) for name in _FROM_RULES},
    )
    rules.__dict__["_kernel_rules"] = kr
    return kr
