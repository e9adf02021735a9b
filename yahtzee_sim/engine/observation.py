"""One encoding of positions and moves for learning agents: observations, actions, masks.

The Gymnasium environments (:mod:`yahtzee_sim.learning.env`), :class:`PolicyStrategy
<yahtzee_sim.strategies.PolicyStrategy>` and the decision datasets
(:mod:`yahtzee_sim.analysis.decisions.dataset`) all use this module, so an agent trained in the
environment plays the same moves when it is simulated, evaluated exactly or graded.

**Observation** (flat ``int16`` vector, :func:`observation_layout` names the slices):

======================  ==========  ====================================================
slice                   length      meaning
======================  ==========  ====================================================
``dice``                n_faces     face counts of the current roll (index 0 = face 1)
``rolls_left``          1           rerolls left this turn (0: choose a box now)
``used``                n_boxes  1 where the box is filled
``upper_total``         1           upper-section total so far (uncapped)
``flag``                1           Yahtzee-bonus flag of the state (0: the Yahtzee box
                                    is open or holds 0; 1: it holds its points; ``1 + k``
                                    after ``k`` bonuses under a bonus limit)
``score``               1           points so far, bonuses earned included
``saved``               1           games with saved rolls only: at a box decision, the
                                    rolls the turn saves for the next (the bank; with
                                    rerolls left the bank is in ``rolls_left``: a turn
                                    has its rules' rolls plus the rolls saved before it)
======================  ==========  ====================================================

**Actions** (one integer in ``0 .. n_keeps + n_boxes - 1``):

* ``a < n_keeps`` — keep the dice ``rules.tables.keep_counts[a]`` (face counts: every
  distinct sub-multiset of the dice is one action) and reroll the rest; legal while
  ``rolls_left > 0`` and the keep is a sub-multiset of the dice. Keeping every die
  ends the rolling: the next decision is the box (in a game with saved rolls it stops
  and banks the rolls left, up to the cap).
* ``a >= n_keeps`` — write the roll in box ``a - n_keeps`` (score-sheet order,
  ``rules.box_names``); legal when ``rolls_left == 0`` and the rules allow the box
  (joker rules applied).

The **action mask** (``int8``, 1 = legal) marks exactly the legal actions.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim._core.observation import fill_masks, pick_legal
from yahtzee_sim._core.scoring import box_options
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import flag_size, max_points_to_come

FIELDS = ("dice", "rolls_left", "used", "upper_total", "flag", "score")
#: The field games with saved rolls add after :data:`FIELDS`.
SAVED_FIELD = "saved"


def observation_fields(rules: RuleSet) -> tuple[str, ...]:
    """The fields of an observation of ``rules``: :data:`FIELDS`, and ``"saved"`` in
    games with saved rolls."""
    return (*FIELDS, SAVED_FIELD) if rules.saved_roll_cap else FIELDS


def observation_layout(rules: RuleSet) -> dict[str, slice]:
    """The slice of each field (:func:`observation_fields`) in an observation vector of
    ``rules``."""
    sizes = {"dice": rules.n_faces, "used": rules.n_boxes}
    out, start = {}, 0
    for name in observation_fields(rules):
        n = sizes.get(name, 1)
        out[name] = slice(start, start + n)
        start += n
    return out


def observation_bounds(rules: RuleSet) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` of every observation entry (``int16``)."""
    layout = observation_layout(rules)
    size = list(layout.values())[-1].stop
    low, high = np.zeros(size, dtype=np.int16), np.zeros(size, dtype=np.int16)
    upper_max = sum(c.param * rules.n_dice for c in rules.boxes if c.is_upper)
    high[layout["dice"]] = rules.n_dice
    high[layout["rolls_left"]] = rules.max_rolls - 1
    high[layout["used"]] = 1
    high[layout["upper_total"]] = upper_max
    high[layout["flag"]] = flag_size(rules) - 1
    high[layout["score"]] = int(max_points_to_come(rules, [0], 0)[0])
    if SAVED_FIELD in layout:
        high[layout[SAVED_FIELD]] = rules.saved_roll_cap
    return low, high


def n_actions(rules: RuleSet) -> int:
    """Size of the action space: the distinct keeps, then the boxes."""
    return rules.tables.n_keeps + rules.n_boxes


def observe(
    rules: RuleSet, dice, rolls_left, used, upper_total, flag, score, saved=0
) -> np.ndarray:
    """Observation vectors ``(m, size)`` int16 of ``m`` positions (arrays with a leading
    game axis; ``rolls_left`` may be one integer for all; ``saved``, games with saved
    rolls: the rolls a box decision saves)."""
    dice = np.asarray(dice)
    m = dice.shape[0]
    layout = observation_layout(rules)
    out = np.empty((m, list(layout.values())[-1].stop), dtype=np.int16)
    out[:, layout["dice"]] = dice
    out[:, layout["rolls_left"].start] = rolls_left
    bits = np.arange(rules.n_boxes, dtype=np.int64)
    out[:, layout["used"]] = (np.asarray(used, dtype=np.int64)[:, None] >> bits) & 1
    out[:, layout["upper_total"].start] = upper_total
    out[:, layout["flag"].start] = flag
    out[:, layout["score"].start] = score
    if SAVED_FIELD in layout:
        out[:, layout[SAVED_FIELD].start] = saved
    return out


def used_masks(rules: RuleSet, obs: np.ndarray) -> np.ndarray:
    """The used-box bitmasks ``(m,)`` int64 of observations ``obs``."""
    bits = np.asarray(np.asarray(obs)[:, observation_layout(rules)["used"]], dtype=np.int64)
    return bits @ (np.int64(1) << np.arange(rules.n_boxes, dtype=np.int64))


def observe_view(view) -> np.ndarray:
    """:func:`observe` of every game of a :class:`~yahtzee_sim.engine.view.TurnView` or a
    :class:`~yahtzee_sim.engine.batch.GameBatch` (their fields of the same names)."""
    return observe(
        view.rules,
        view.dice,
        view.rolls_left,
        view.used,
        view.upper_total,
        view.flag,
        view.score,
        view.saved_rolls,
    )


def action_masks(rules: RuleSet, roll_idx, rolls_left, used, flag) -> np.ndarray:
    """``(m, n_actions)`` int8: 1 for the legal actions of each position."""
    roll_idx = np.ascontiguousarray(roll_idx, dtype=np.int64)
    m = roll_idx.shape[0]
    rl = np.broadcast_to(np.asarray(rolls_left, dtype=np.int64), (m,))
    out = np.zeros((m, n_actions(rules)), dtype=np.int8)
    fill_masks(
        kernel_rules(rules),
        roll_idx,
        np.ascontiguousarray(rl),
        np.ascontiguousarray(used, dtype=np.int64),
        np.ascontiguousarray(flag, dtype=np.int64),
        out,
    )
    return out


def mask_view(view) -> np.ndarray:
    """:func:`action_masks` of every game of a :class:`~yahtzee_sim.engine.view.TurnView`."""
    return action_masks(view.rules, view.roll_index, view.rolls_left, view.used, view.flag)


def action_names(rules: RuleSet) -> np.ndarray:
    """:func:`describe_action` of every action, as an array indexed by action."""
    return np.array([describe_action(rules, a) for a in range(n_actions(rules))])


def roll_names(rules: RuleSet) -> np.ndarray:
    """Every roll's sorted faces as text ("1 3 5 5 6"), indexed by roll."""
    t = rules.tables
    return np.array([" ".join(map(str, t.faces_from_counts(c))) for c in t.roll_counts])


def describe_action(rules: RuleSet, action: int) -> str:
    """A readable name of ``action``: ``"keep 5 5 6"``, ``"keep nothing"`` or the box name."""
    n_keeps = rules.tables.n_keeps
    if not 0 <= action < n_actions(rules):
        return f"action {action} (out of range 0..{n_actions(rules) - 1})"
    if action >= n_keeps:
        return rules.box_names[action - n_keeps]
    counts = rules.tables.keep_counts[action]
    faces = [str(f + 1) for f in range(rules.n_faces) for _ in range(int(counts[f]))]
    return "keep " + (" ".join(faces) if faces else "nothing")


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``mask`` (-1 where none is legal): the
    random agent, drawn from ``rng`` (one uniform per row)."""
    mask = np.ascontiguousarray(mask, dtype=np.int8)
    if mask.ndim != 2:
        raise ValueError(f"mask must be 2-d (rows, n_actions), got shape {mask.shape}")
    out = np.empty(mask.shape[0], dtype=np.int64)
    pick_legal(mask, rng.random(mask.shape[0]), out)
    return out


def box_points(rules: RuleSet, obs: np.ndarray) -> np.ndarray:
    """``(m, n_boxes)`` int16: the points each box would get now for the dice of
    observations ``obs`` (-1 where the box is filled or not allowed; joker rules applied,
    bonuses not included) — what a policy needs to value its box actions."""
    obs = np.asarray(obs)
    lay = observation_layout(rules)
    used = used_masks(rules, obs)
    roll = rules.tables.roll_index(obs[:, lay["dice"]]).astype(np.int64)
    flag = np.ascontiguousarray(obs[:, lay["flag"].start], dtype=np.int64)
    return box_options(kernel_rules(rules), roll, used, flag)
