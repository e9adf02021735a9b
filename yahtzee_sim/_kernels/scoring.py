"""The rules in kernel form: the bundle every kernel takes (:class:`KernelRules`), legality, points.

Flat in ``_kernels/``: the kernel cache keys each kernel on this folder's files (see ``__init__``).
Rolling and scoring batches of games step by step: :mod:`yahtzee_sim._core.batch_play`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

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


# ------------------------------------------------------------- boxes
@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def joker_case(kr, roll, used, flag):
    """How a roll may be scored.

    0 normal; 1 forced joker: the matching upper box only; 2 free joker: any open
    box, lower boxes at joker values, upper boxes normally (0); 3 forced joker:
    open lower boxes only, at joker values; 4 forced joker with no lower box
    open: any open (non-matching) upper box, for 0.
    """
    yi = kr.yahtzee_index
    if kr.joker == JOKER_NONE or yi < 0 or kr.yahtzee_face[roll] < 0:
        return 0
    if (used >> yi) & 1 == 0:
        return 0
    upper_c = kr.upper_cat_of_face[kr.yahtzee_face[roll]]
    upper_open = upper_c >= 0 and (used >> upper_c) & 1 == 0
    if kr.joker == JOKER_FREE:
        return 0 if upper_open else 2
    if upper_open:
        return 1
    for c in range(kr.n_boxes):
        if not kr.is_upper[c] and (used >> c) & 1 == 0:
            return 3
    return 4


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def box_open(kr, used, c):
    """Whether box ``c`` may be filled at used-mask ``used``: open, and under forced
    order the first open box of the score sheet."""
    below = (np.int64(1) << c) - 1
    return ((used >> c) & 1 == 0) & ((not kr.forced_order) | ((used & below) == below))


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def box_legal_points(kr, case, roll, used, c):
    """Points of box ``c`` for ``roll`` (no bonuses), or -1 if ``c`` is illegal.

    Under forced order only the next box is legal; an extra Yahtzee whose upper box is
    filled (the joker condition) scores its joker points there if it is a lower box."""
    if (used >> c) & 1:
        return -1
    if kr.forced_order:  # box_open written out: a call here stops numba inlining this
        below = (np.int64(1) << c) - 1
        if (used & below) != below:
            return -1
        if case <= 1 or kr.is_upper[c]:
            return kr.score_table[roll, c]
        return kr.joker_table[roll, c]
    if case == 0:
        return kr.score_table[roll, c]
    if case == 1:
        if c != kr.upper_cat_of_face[kr.yahtzee_face[roll]]:
            return -1
        return kr.score_table[roll, c]
    if case == 2:
        return kr.joker_table[roll, c]
    if case == 3:
        return -1 if kr.is_upper[c] else kr.joker_table[roll, c]
    # case 4: only upper boxes are open
    return kr.score_table[roll, c]


@njit(cache=True, nogil=True, inline="always")
def roll_box_points(kr, roll, used, flag, c):
    """Points of box ``c`` for ``roll`` at filled boxes ``used`` and flag ``flag``, the
    joker rules applied (:func:`joker_case`), or -1 if ``c`` is illegal."""
    return box_legal_points(kr, joker_case(kr, roll, used, flag), roll, used, c)


@njit(cache=True, nogil=True)
def state_index(kr, used, upper, flag):
    """:func:`saved_state_index` with no saved roll."""
    return saved_state_index(kr, used, upper, flag, 0)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def saved_state_index(kr, used, upper, flag, saved):
    """The one state-index formula (:mod:`yahtzee_sim.game.state`): upper fastest, then
    the saved rolls, the flag and the used-mask."""
    return ((used * kr.flag_size + flag) * kr.saved_size + saved) * (kr.upper_cap + 1) + upper


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def sets_flag(kr, c, p):
    """Whether ``p`` points in box ``c`` set the Yahtzee-bonus flag (a full-points Yahtzee).

    Written as ``&`` of comparisons: numba compiles a chain of ``and`` *returned as a
    value* into code about 100 times slower in the widget's hot loop."""
    return (kr.flag_size >= 2) & (c == kr.yahtzee_index) & (p == kr.yahtzee_points) & (p > 0)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def next_state_depends_on_points(kr, c):
    """Whether the state after scoring box ``c`` depends on the points written there
    (:func:`scored_state`): an upper box moves the upper total, a full-points Yahtzee
    may set the flag; any other box leads to one next state whatever the points."""
    return (kr.is_upper[c] & (kr.upper_cap > 0)) | ((kr.flag_size >= 2) & (c == kr.yahtzee_index))


@njit(cache=True, nogil=True)
def flag_after_roll(kr, flag, yb):
    """The flag once a roll's Yahtzee bonus ``yb`` is paid: with a bonus limit each paid
    bonus moves it up (flag ``1 + k`` = ``k`` bonuses paid, :mod:`yahtzee_sim.game.state`);
    else unchanged."""
    if yb > 0 and kr.yahtzee_bonus_limit > 0:
        return min(flag + 1, kr.flag_size - 1)
    return flag


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def bonus_roll(kr, flag):
    """``(flag after a bonus Yahtzee, whether a roll can earn the bonus)`` at flag
    ``flag``: what a lane valuing the boxes of a state needs for a Yahtzee rolled there."""
    return flag_after_roll(kr, flag, 1), kr.yahtzee_bonus > 0 and flag >= 1


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def open_slot_range(slot_ptr, used, c):
    """Box ``c``'s slots ``lo .. hi - 1`` (``slot_ptr`` is ``kr.slot_ptr``), an empty range
    when used-mask ``used`` has the box filled."""
    if (used >> c) & 1:
        return slot_ptr[c], slot_ptr[c]
    return slot_ptr[c], slot_ptr[c + 1]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def upper_after(kr, upper, c, p):
    """``(upper total, upper bonus paid)`` after ``p`` points in box ``c`` from the capped
    total ``upper``: an upper box moves it to ``min(upper + p, cap)`` and pays the bonus
    when it reaches the cap now."""
    cap = kr.upper_cap
    if not kr.is_upper[c] or cap == 0:
        return upper, 0
    u2 = upper + p
    if u2 < cap:
        return u2, 0
    return cap, kr.upper_bonus if upper < cap else 0


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def upper_after_lanes(kr, lo, nu, c, p):
    """:func:`upper_after` over the upper totals ``lo .. lo + nu - 1`` at once:
    ``(a, b, shift)`` with lanes ``t < a`` moving to ``lo + t + shift`` with no bonus,
    lanes ``a <= t < b`` reaching the cap now (bonus paid) and lanes ``t >= b`` already
    at the cap. A lower box (or no upper bonus) leaves every total: ``(nu, nu, 0)``."""
    cap = kr.upper_cap
    if not kr.is_upper[c] or cap == 0:
        return nu, nu, 0
    a = min(max(cap - p - lo, 0), nu)
    return a, min(max(cap - lo, a), nu), p


@njit(cache=True, nogil=True)
def scored_state(kr, used, upper, flag, c, p):
    """The scoring step: ``(next state index, upper bonus paid)`` after ``p`` points in
    box ``c`` (the Yahtzee bonus is :func:`yahtzee_bonus_points`, paid for the roll;
    ``flag`` is the flag after it, :func:`flag_after_roll`)."""
    return saved_scored_state(kr, used, upper, flag, c, p, 0)


@njit(cache=True, nogil=True)
def saved_scored_state(kr, used, upper, flag, c, p, saved):
    """:func:`scored_state` of a game with saved rolls: the next turn starts with
    ``saved`` saved rolls."""
    u2, bonus = upper_after(kr, upper, c, p)
    nf = 1 if sets_flag(kr, c, p) else flag
    return saved_state_index(kr, used | (np.int64(1) << c), u2, nf, saved), bonus


@njit(cache=True, nogil=True)
def yahtzee_bonus_points(kr, roll, used, flag):
    """Yahtzee bonus earned by scoring ``roll`` (whatever box it goes in)."""
    if kr.yahtzee_bonus == 0 or kr.yahtzee_index < 0 or kr.yahtzee_face[roll] < 0:
        return 0
    if (used >> kr.yahtzee_index) & 1 == 0 or flag == 0:
        return 0
    if kr.yahtzee_bonus_limit > 0 and flag > kr.yahtzee_bonus_limit:
        return 0
    return kr.yahtzee_bonus


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def roll_options(kr, roll, used, flag, points):
    """One roll's scoring options in one call: ``points[c]`` = the legal points of box
    ``c`` (-1 if illegal; joker rules applied); returns the Yahtzee bonus of the roll."""
    case = joker_case(kr, roll, used, flag)
    for c in range(kr.n_boxes):
        points[c] = box_legal_points(kr, case, roll, used, c)
    return yahtzee_bonus_points(kr, roll, used, flag)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def kinds_score_normally(kr, used):
    """Whether every n-of-a-kind roll scores as any other roll at used-mask ``used``: no
    joker rule applies and no Yahtzee bonus is paid (no Yahtzee box, the Yahtzee box
    still open, or rules with neither), so :func:`roll_options` gives the normal points
    of the open boxes and no bonus."""
    yi = kr.yahtzee_index
    return (
        (yi < 0)
        | ((used >> max(yi, 0)) & 1 == 0)
        | ((kr.joker == JOKER_NONE) & (kr.yahtzee_bonus == 0))
    )


@njit(cache=True, nogil=True)
def box_options(kr, roll_idx, used, flag):
    """Points of every box for a batch (-1 where illegal), shape ``(n, C)`` int16."""
    n = roll_idx.shape[0]
    out = np.empty((n, kr.n_boxes), dtype=np.int16)
    for i in range(n):
        # int64 arguments: the helpers' one compiled version (roll indices may be int32)
        r, u, f = np.int64(roll_idx[i]), np.int64(used[i]), np.int64(flag[i])
        case = joker_case(kr, r, u, f)
        for c in range(kr.n_boxes):
            out[i, c] = box_legal_points(kr, case, r, u, c)
    return out


@njit(cache=True, nogil=True)
def yahtzee_bonuses(kr, roll_idx, used, flag):
    """:func:`yahtzee_bonus_points` of a batch, ``(n,)``."""
    out = np.empty(roll_idx.shape[0], dtype=np.int64)
    for i in range(roll_idx.shape[0]):
        out[i] = yahtzee_bonus_points(kr, roll_idx[i], used[i], flag[i])
    return out


@njit(cache=True, nogil=True)
def bonus_options(kr, roll_idx, used, upper, flag, points):
    """Bonuses earned by writing the roll in each box, ``(n, C)``: the upper bonus where
    the box makes the (capped) upper total reach the cap, plus the roll's Yahtzee bonus;
    ``points`` are :func:`box_options` (illegal boxes count as 0 points)."""
    n = roll_idx.shape[0]
    out = np.zeros((n, kr.n_boxes), dtype=np.int64)
    for i in range(n):
        yb = yahtzee_bonus_points(kr, roll_idx[i], used[i], flag[i])
        for c in range(kr.n_boxes):
            _, ub = upper_after(kr, upper[i], c, max(np.int64(points[i, c]), 0))
            out[i, c] = ub + yb
    return out
