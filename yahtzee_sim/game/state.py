"""The one state encoding shared by the engine, the solver and the exact evaluator.

A *turn-start state* is the tuple

``used``
    bitmask of filled boxes (bit ``i`` = box ``i`` of the rule set);
``upper``
    upper-section total capped at the bonus threshold (``0..rules.upper_cap``;
    always 0 in games without an upper bonus);
``saved``
    rolls saved from earlier turns (games with saved rolls, ``0..saved_roll_cap``;
    the axis has size 1 elsewhere);
``flag``
    Yahtzee-bonus flag: 1 when the Yahtzee box holds its full points (50), so
    extra Yahtzees earn the bonus. The Yahtzee box is *open* when its bit of
    ``used`` is clear, holds 0 when the bit is set and the flag is 0, and holds
    50 when both are set: ``used`` and ``flag`` together tell the forced-joker
    rules all they need. Games without Yahtzee bonus and joker rules keep the
    flag at 0 and the flag axis has size 1. When the rules pay at most ``L``
    bonuses (``yahtzee_bonus_limit``), flag ``1 + k`` means the box holds 50 and
    ``k`` bonuses were paid (``k <= L``): a bonus is paid while ``flag <= L``, and
    each one moves the flag up (:func:`bonus_payable`;
    the scoring step's ``_core.rules.flag_after_roll``).

It packs into one integer, in this order (upper fastest)::

    index = ((used * flag_size + flag) * saved_size + saved) * (upper_cap + 1) + upper

so every array of per-state values has length :func:`n_states`
(2**13 * 2 * 64 = 1,048,576 for Yahtzee; 2**15 * 64 = 2,097,152 for Yatzy;
2**13 * 3 * 64 for one bonus at most).

**Games with saved rolls** keep only the states that can occur (:class:`StateLayout`):
with ``k`` boxes filled a turn starts with at most ``(rolls_per_turn - 1) * k`` saved
rolls (and at most the cap), and the upper total is at most what the filled upper boxes
can make. The index is the same formula with two lookup tables in place of the
products::

    index = block_offset[used * flag_size + flag] + saved * upper_count[used] + upper

States are grouped by *level* (number of filled boxes, the empty sheet first), then
used-mask, flag, saved rolls and upper total, so a level is one contiguous stretch
(``level_start``) — what the out-of-core solver (:mod:`yahtzee_sim.solving.levels`)
computes, stores and reads one at a time. Maxi Yatzy with every roll saved has
1,373,699,926 such states (10.2 GiB of values) where the product of the axes is
3,476,029,440. Games without saved rolls keep the product layout above
(``block_offset[b] = b * saved_size * (upper_cap + 1)``, ``upper_count = upper_cap + 1``).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.errors import StateError
from yahtzee_sim.game.rules import RuleSet


class StateLayout(NamedTuple):
    """Where each turn-start state lies in per-state arrays (the index formula's tables).

    ``block_offset[used * flag_size + flag]`` is the index of the state ``(used, flag,
    saved 0, upper 0)``; the states of one ``(used, flag)`` pair follow it, ``saved``
    major, ``upper_count[used]`` upper totals per saved count. ``level_start[k]`` is the
    first index of the states with ``k`` boxes filled (``level_start[n_boxes + 1]`` the
    number of states) and ``saved_count[k]`` the saved-roll counts they can hold;
    ``block_order`` lists the ``(used, flag)`` blocks in index order.
    """

    block_offset: np.ndarray  # (2**n_boxes * flag_size,) int64
    upper_count: np.ndarray  # (2**n_boxes,) int64
    level_start: np.ndarray  # (n_boxes + 2,) int64
    saved_count: np.ndarray  # (n_boxes + 1,) int64
    block_order: np.ndarray  # blocks in index order (argsort of block_offset)


def compact_states(rules: RuleSet) -> bool:
    """Whether ``rules`` index only the states that can occur (games with saved rolls)."""
    return rules.saved_roll_cap > 0


@functools.cache
def filled_counts(n_boxes: int) -> np.ndarray:
    """Number of filled boxes of every used-mask ``0 .. 2**n_boxes - 1`` (int64, read-only;
    computed once per number of boxes)."""
    masks = np.arange(1 << n_boxes, dtype=np.int64)
    count = np.zeros(len(masks), dtype=np.int64)
    for c in range(n_boxes):
        count += (masks >> c) & 1
    count.flags.writeable = False
    return count


def upper_reach(rules: RuleSet, masks) -> np.ndarray:
    """The largest capped upper total the filled upper boxes of ``masks`` can show."""
    masks = np.asarray(masks, dtype=np.int64)
    total = np.zeros(masks.shape, dtype=np.int64)
    for c, face in enumerate(rules.upper_face):
        if face:
            total += ((masks >> c) & 1) * int(face) * rules.n_dice
    return np.minimum(total, rules.upper_cap)


def solved_states(rules: RuleSet) -> np.ndarray:
    """Indices of the turn-start states a solver values (ours and ``yatzy-solver``): the
    sheet not full, the upper total at most what the filled upper boxes can show
    (capped), the Yahtzee-bonus flag set only once the Yahtzee box is filled. Every state
    play reaches is one of them; some are not reached (an upper total of 3 from the twos
    box alone).

    Parameters
    ----------
    rules : RuleSet
        A game without saved rolls (its states are ``(used, upper, flag)``).

    Returns
    -------
    numpy.ndarray
        The state indices, ascending (int64).
    """
    used, upper, flag = decode_state(rules, np.arange(n_states(rules)))
    ok = (upper <= upper_reach(rules, used)) & (used != (1 << rules.n_boxes) - 1)
    if rules.has_yahtzee_flag:
        ok &= (flag == 0) | (((used >> rules.yahtzee_index) & 1) == 1)
    return np.flatnonzero(ok)


def saved_bound(rules: RuleSet, filled) -> np.ndarray:
    """Most rolls a turn can start with, saved from ``filled`` earlier turns."""
    return np.minimum((rules.rolls_per_turn - 1) * np.asarray(filled), rules.saved_roll_cap)


def state_layout(rules: RuleSet) -> StateLayout:
    """The :class:`StateLayout` of ``rules`` (built once per rule set, cached on it)."""
    cached = rules.__dict__.get("_state_layout")
    if cached is not None:
        return cached
    n, F = rules.n_boxes, rules.flag_size
    if not compact_states(rules):
        size = rules.saved_size * (rules.upper_cap + 1)
        blocks = np.arange((1 << n) * F, dtype=np.int64) * size
        upper_count = np.full(1 << n, rules.upper_cap + 1, dtype=np.int64)
        level_start = np.array([0, len(blocks) * size], dtype=np.int64)
        saved_count = np.array([rules.saved_size])
        layout = StateLayout(blocks, upper_count, level_start, saved_count, np.arange(len(blocks)))
    else:
        filled = filled_counts(n)
        upper_count = upper_reach(rules, np.arange(1 << n)) + 1
        saved_count = saved_bound(rules, np.arange(n + 1)) + 1
        order = np.lexsort((np.arange(1 << n), filled))  # by level, then used-mask
        block_size = np.repeat(upper_count[order] * saved_count[filled[order]], F)
        starts = np.zeros(len(block_size), dtype=np.int64)
        np.cumsum(block_size[:-1], out=starts[1:])
        block_offset = np.empty(len(block_size), dtype=np.int64)
        block_id = (order[:, None] * F + np.arange(F)).ravel()
        block_offset[block_id] = starts
        per_level = np.bincount(filled, weights=upper_count, minlength=n + 1).astype(np.int64)
        level_start = np.zeros(n + 2, dtype=np.int64)
        np.cumsum(per_level * saved_count * F, out=level_start[1:])
        layout = StateLayout(block_offset, upper_count, level_start, saved_count, block_id)
    rules.__dict__["_state_layout"] = layout
    return layout


def flag_size(rules: RuleSet) -> int:
    """Size of the flag axis: 1 without the Yahtzee-bonus flag, 2 with it, ``2 + L``
    when at most ``L`` bonuses are paid."""
    return rules.flag_size


def bonus_payable(rules: RuleSet, flag):
    """Whether a Yahtzee rolled with flag ``flag`` earns the bonus (the Yahtzee box
    filled with its full points and fewer than the limit paid); array or bool."""
    flag = np.asarray(flag)
    limit = rules.yahtzee_bonus_limit
    out = (flag >= 1) & ((flag <= limit) if limit else True) & (rules.yahtzee_bonus > 0)
    return out if out.ndim else bool(out)


def n_states(rules: RuleSet) -> int:
    """Number of encoded turn-start states (in games without saved rolls, reachable or
    not: the product of the axes)."""
    if compact_states(rules):
        return int(state_layout(rules).level_start[-1])
    return (1 << rules.n_boxes) * flag_size(rules) * rules.saved_size * (rules.upper_cap + 1)


def encode_state(rules: RuleSet, used, upper, flag, saved=0):
    """Pack ``(used, upper, flag)`` and the saved rolls ``saved`` (scalars or arrays; games
    with saved rolls only) into state indices.

    ``upper`` may be the uncapped upper total: it is capped here; so is ``saved`` (at
    the saved-roll cap).
    """
    used = np.asarray(used, dtype=np.int64)
    upper = np.minimum(np.asarray(upper, dtype=np.int64), rules.upper_cap)
    flag = np.asarray(flag, dtype=np.int64) if rules.has_yahtzee_flag else 0
    saved = np.minimum(np.asarray(saved, dtype=np.int64), rules.saved_roll_cap)
    if compact_states(rules):
        return _compact_index(rules, used, upper, flag, saved)
    index = ((used * flag_size(rules) + flag) * rules.saved_size + saved) * (
        rules.upper_cap + 1
    ) + upper
    return index if index.ndim else int(index)


def _compact_index(rules: RuleSet, used, upper, flag, saved):
    """:func:`encode_state` of a game with saved rolls; raises :class:`StateError` for a
    state the rules cannot produce (more saved rolls than turns played can leave, an
    upper total the filled boxes cannot make)."""
    layout = state_layout(rules)
    used, upper, flag, saved = np.broadcast_arrays(used, upper, flag, saved)
    if np.any((used < 0) | (used >= len(layout.upper_count))):
        raise StateError(f"used-mask out of range for {rules.name!r}")
    count = layout.upper_count[used]
    most_saved = layout.saved_count[filled_counts(rules.n_boxes)[used]] - 1
    bad = (upper < 0) | (upper >= count) | (saved < 0) | (saved > most_saved)
    bad |= (flag < 0) | (flag >= rules.flag_size)
    if np.any(bad):
        i = np.flatnonzero(bad.ravel())[0]
        u, t, s = (int(a.ravel()[i]) for a in (used, upper, saved))
        raise StateError(
            f"no such state under {rules.name!r}: used-mask {u:#x} holds upper totals "
            f"0..{int(count.ravel()[i]) - 1} and 0..{int(most_saved.ravel()[i])} saved "
            f"rolls, got upper total {t} and {s} saved"
        )
    index = layout.block_offset[used * rules.flag_size + flag] + saved * count + upper
    return index if index.ndim else int(index)


def _compact_decode(rules: RuleSet, index: np.ndarray):
    """``(used, upper, flag, saved)`` of compact state indices (:func:`_compact_index`)."""
    layout = state_layout(rules)
    if np.any((index < 0) | (index >= layout.level_start[-1])):
        raise StateError(f"state index out of range for {rules.name!r}")
    order = layout.block_order
    block = order[np.searchsorted(layout.block_offset[order], index, side="right") - 1]
    used, flag = block // rules.flag_size, block % rules.flag_size
    rest = index - layout.block_offset[block]
    count = layout.upper_count[used]
    return used, rest % count, flag, rest // count


def from_product_index(rules: RuleSet, index):
    """State indices of the rules' layout from indices of the product layout (the formula
    of the compiled scoring step, ``saved_state_index`` of :mod:`yahtzee_sim._core.rules`):
    the same index in games without saved rolls."""
    if not compact_states(rules):
        return index
    index = np.asarray(index, dtype=np.int64)
    upper = index % (rules.upper_cap + 1)
    rest = index // (rules.upper_cap + 1)
    saved = rest % rules.saved_size
    rest = rest // rules.saved_size
    return encode_state(rules, rest // rules.flag_size, upper, rest % rules.flag_size, saved)


def decode_state(rules: RuleSet, index):
    """Inverse of :func:`encode_state` with no saved roll: returns ``(used, upper,
    flag)`` (:func:`saved_rolls_of` gives the saved rolls)."""
    index = np.asarray(index, dtype=np.int64)
    if compact_states(rules):
        used, upper, flag, _ = _compact_decode(rules, index)
        if index.ndim == 0:
            return int(used), int(upper), int(flag)
        return used, upper, flag
    upper = index % (rules.upper_cap + 1)
    rest = index // (rules.upper_cap + 1) // rules.saved_size
    flag = rest % flag_size(rules)
    used = rest // flag_size(rules)
    if index.ndim == 0:
        return int(used), int(upper), int(flag)
    return used, upper, flag


def saved_rolls_of(rules: RuleSet, index):
    """The saved rolls of state indices (0 in games without saved rolls)."""
    if compact_states(rules):
        out = _compact_decode(rules, np.asarray(index, dtype=np.int64))[3]
        return out if out.ndim else int(out)
    out = np.asarray(index, dtype=np.int64) // (rules.upper_cap + 1) % rules.saved_size
    return out if out.ndim else int(out)


def state_runs(used, flag) -> np.ndarray:
    """Boundaries of the runs of equal ``(used, flag)`` in states sorted by index: run
    ``g`` is ``[runs[g], runs[g + 1])``, its upper totals ascending. The states of one run
    share one widget run over their upper totals (its lanes)."""
    used, flag = np.asarray(used), np.asarray(flag)
    if len(used) == 0:
        return np.zeros(1, dtype=np.int64)
    change = np.flatnonzero((used[1:] != used[:-1]) | (flag[1:] != flag[:-1])) + 1
    return np.concatenate(([0], change, [len(used)])).astype(np.int64)


def upper_total_lanes_of(used, upper, flag):
    """The widget runs of states sorted by index, one per run of :func:`state_runs`,
    over the span of their upper totals.

    Returns ``(first, lo, nu, row0, lane)``: run ``g`` starts at state ``first[g]`` and
    covers the upper totals ``lo[g] .. lo[g] + nu[g] - 1`` as lanes ``row0[g] ..
    row0[g] + nu[g] - 1`` of one flat numbering; state ``i`` is lane ``lane[i]``.
    """
    runs = state_runs(used, flag)
    first = runs[:-1]
    upper = np.asarray(upper, dtype=np.int64)
    lo = upper[first]
    nu = upper[runs[1:] - 1] - lo + 1
    row0 = np.zeros(len(first), dtype=np.int64)
    np.cumsum(nu[:-1], out=row0[1:])
    run_of = np.repeat(np.arange(len(first)), np.diff(runs))
    lane = row0[run_of] + upper - lo[run_of]
    return first, lo, nu, row0, lane


def max_points_to_come(rules: RuleSet, used, flag: int) -> np.ndarray:
    """An upper bound on the points still to come from used-masks ``used`` with Yahtzee
    flag ``flag``: the most points of every open box (joker scores included under joker
    rules), the upper bonus if an upper box is open, and a Yahtzee bonus for every open
    box after a Yahtzee. ``max_points_to_come(rules, [0], 0)`` bounds every final score."""
    best = kernel_rules(rules).box_max
    used = np.atleast_1d(np.asarray(used, dtype=np.int64))
    open_ = 1 - ((used[:, None] >> np.arange(rules.n_boxes)) & 1)
    total = open_ @ best
    if rules.upper_bonus:
        total += rules.upper_bonus * (open_[:, np.asarray(rules.upper_face) > 0].sum(axis=1) > 0)
    yi = rules.yahtzee_index
    if rules.yahtzee_bonus and yi is not None:
        n_open = open_.sum(axis=1)
        y_open = open_[:, yi] == 1
        bonuses = np.where(y_open, n_open - 1, n_open if bonus_payable(rules, flag) else 0)
        limit = rules.yahtzee_bonus_limit
        if limit:  # flag 1 + k: k bonuses paid already
            bonuses = np.minimum(bonuses, np.where(y_open, limit, limit + 1 - flag))
        total += rules.yahtzee_bonus * bonuses
    return total


def start_state() -> int:
    """Index of the empty score sheet (always 0)."""
    return 0


def max_points_so_far(rules: RuleSet, used, upper, flag: int) -> np.ndarray:
    """An upper bound on the points already scored in turn-start states ``(used, upper,
    flag)``: the most points of every filled box (joker scores included), the upper bonus
    if the upper total is at the threshold, and a Yahtzee bonus for every filled box
    after the Yahtzee box (``flag - 1`` of them under a bonus limit).

    With :func:`max_points_to_come` it bounds the lanes of score-dependent tables: a
    state's bound grows by at least the points of any move out of it."""
    best = kernel_rules(rules).box_max
    used = np.atleast_1d(np.asarray(used, dtype=np.int64))
    filled = (used[:, None] >> np.arange(rules.n_boxes)) & 1
    total = filled @ best
    if rules.upper_bonus:
        total = total + rules.upper_bonus * (np.asarray(upper) >= rules.upper_cap)
    if rules.yahtzee_bonus and rules.yahtzee_index is not None and flag >= 1:
        limit = rules.yahtzee_bonus_limit
        bonuses = np.full(len(used), flag - 1) if limit else filled.sum(axis=1) - 1
        total = total + rules.yahtzee_bonus * bonuses
    return total


def known_box_scores(rules: RuleSet, flag) -> np.ndarray:
    """``(m, n_boxes)`` int16 box contents that states with Yahtzee flags ``flag``
    determine: the Yahtzee box's full points where the flag is set, 0 elsewhere (what a
    view of a position knows when only its state is given)."""
    flag = np.asarray(flag)
    out = np.zeros((len(flag), rules.n_boxes), dtype=np.int16)
    yi = rules.yahtzee_index
    if yi is not None and rules.has_yahtzee_flag:
        out[:, yi] = np.where(flag >= 1, rules.boxes[yi].points, 0)
    return out
