"""Every option of recorded decisions in a game with saved rolls, valued under optimal play.

In a game with saved rolls (Maxi Yatzy) a turn may stop early: keeping every die with
``j`` rerolls left scores the roll now and saves ``min(j, cap)`` rolls for the next turn.
So a box's value depends on the rolls the turn saves, and stopping is an option of every
keep decision worth the roll's best box with those rolls saved. :func:`grade_saved_decisions`
values every option of recorded decisions as the advisor does
(:func:`yahtzee_sim.solving.advisor.advise` with ``saved_rolls``): a keep with ``j``
rerolls left by the widget of its turn-start state (one run per state), a box by its
points, the bonuses it earns and the value of the next turn-start state with the rolls
saved (:func:`box_values`, compiled, over all decisions at once).
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim._core.decisions import position_values
from yahtzee_sim._core.scoring import saved_box_moves
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import from_product_index
from yahtzee_sim.solving.solver import ValueTable


def box_values(rules: RuleSet, table: ValueTable, roll, used, upper, flag, saved) -> np.ndarray:
    """Value of every box (``-inf`` where illegal) for decisions at rolls ``roll`` of the
    turn-start states ``(used, upper, flag)`` that save ``saved`` rolls: the box's points,
    the bonuses it earns and the next state's value (arrays of one length; ``upper``
    capped at the bonus threshold)."""
    n, C = len(roll), rules.n_boxes
    points, nxt, gain = saved_box_moves(
        kernel_rules(rules), roll, used, np.minimum(upper, rules.upper_cap), flag, saved
    )
    legal = points >= 0
    out = np.full((n, C), -np.inf)
    out[legal] = gain[legal] + np.asarray(table.values[from_product_index(rules, nxt[legal])])
    return out


def _keep_option_values(rules, table, rec, rows, keep_rows, stop_value) -> np.ndarray:
    """Values of the keep options ``keep_rows`` (keep indices, CSR by decision) of the
    keep decisions ``rows``: the widget of each turn-start state (one run per state),
    ``stop_value`` (per decision) for keeping every die."""
    t, kr, lanes = rules.tables, kernel_rules(rules), table.lanes()
    ptr = t.roll_keep_ptr
    n_opts = ptr[rec["roll"][rows] + 1] - ptr[rec["roll"][rows]]
    owner = np.repeat(np.arange(len(rows)), n_opts)  # the decision of each option
    out = np.empty(len(keep_rows))
    upper = np.minimum(rec["upper_total"], rules.upper_cap)
    state = np.stack([rec["used"][rows], upper[rows], rec["flag"][rows]], axis=1)
    groups, which = np.unique(state, axis=0, return_inverse=True)
    group_of = which.ravel()[owner]  # the turn-start state of each option
    by_group = np.argsort(group_of, kind="stable")
    cut = np.searchsorted(group_of[by_group], np.arange(len(groups) + 1))
    rolls_left = rec["rolls_left"][rows]
    for g, (u, up, f) in enumerate(groups.tolist()):  # one widget run per turn-start state
        keep_vals, _, _ = position_values(kr, lanes, u, up, f)
        mine = by_group[cut[g] : cut[g + 1]]
        out[mine] = keep_vals[rolls_left[owner[mine]], keep_rows[mine]]
    full = t.keep_size[keep_rows] == rules.n_dice
    out[full] = stop_value[owner[full]]
    return out


def grade_saved_decisions(rules: RuleSet, rec: dict, table: ValueTable) -> dict:
    """Every legal option of decisions ``rec`` (arrays ``rolls_left, roll, used,
    upper_total, flag, action, saved`` — ``saved``: at a box decision the rolls the turn
    saves), valued under optimal play, aligned with ``rec``'s rows: as
    :func:`yahtzee_sim.analysis.decisions.dataset.grade_decisions` (``value``,
    ``optimal_action``, ``optimal_value``, ``n_options``, ``option_ptr``,
    ``option_actions``, ``option_values``; the best option is the first of the highest
    value)."""
    t = rules.tables
    n = len(rec["roll"])
    j, roll = rec["rolls_left"], rec["roll"]
    keeps = np.flatnonzero(j > 0)
    boxes = np.flatnonzero(j == 0)
    # a box decision saves what the record says; stopping with j rerolls left saves min(j, cap)
    saved = np.where(j > 0, np.minimum(j, rules.saved_roll_cap), rec["saved"])
    every = box_values(rules, table, roll, rec["used"], rec["upper_total"], rec["flag"], saved)
    n_opts = np.empty(n, dtype=np.int64)
    n_opts[keeps] = t.roll_keep_ptr[roll[keeps] + 1] - t.roll_keep_ptr[roll[keeps]]
    n_opts[boxes] = np.isfinite(every[boxes]).sum(axis=1)
    ptr = np.r_[0, np.cumsum(n_opts)].astype(np.int64)
    actions = np.empty(ptr[-1], dtype=np.int64)
    values = np.empty(ptr[-1])
    at_keeps = _option_slots(ptr, keeps)
    first = np.repeat(t.roll_keep_ptr[roll[keeps]] - ptr[keeps], n_opts[keeps])
    actions[at_keeps] = t.roll_keep_keep[at_keeps + first]
    stop = every[keeps].max(axis=1)
    values[at_keeps] = _keep_option_values(rules, table, rec, keeps, actions[at_keeps], stop)
    legal_rows, legal_boxes = np.nonzero(np.isfinite(every[boxes]))
    at_boxes = _option_slots(ptr, boxes)
    actions[at_boxes] = t.n_keeps + legal_boxes
    values[at_boxes] = every[boxes][legal_rows, legal_boxes]
    return _best_options(rec["action"], n_opts, ptr, actions, values)


def _option_slots(ptr: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Positions ``ptr[i] .. ptr[i + 1] - 1`` of the options of decisions ``rows``, in order."""
    size = ptr[rows + 1] - ptr[rows]
    start = np.repeat(ptr[rows] - np.r_[0, np.cumsum(size)[:-1]], size)
    return start + np.arange(size.sum())


def _best_options(chosen, n_opts, ptr, actions, values) -> dict:
    """The grade columns from the options in CSR form: the value of the chosen action and
    the best option (the first of the highest value)."""
    owner = np.repeat(np.arange(len(n_opts)), n_opts)
    best_value = np.maximum.reduceat(values, ptr[:-1])
    is_best = values == best_value[owner]
    first_best = np.full(len(n_opts), len(values))
    np.minimum.at(first_best, owner[is_best], np.flatnonzero(is_best))
    taken = np.flatnonzero(actions == chosen[owner])
    value = np.full(len(n_opts), np.nan)
    value[owner[taken]] = values[taken]
    return {
        "value": value,
        "optimal_action": actions[first_best],
        "optimal_value": best_value,
        "n_options": n_opts,
        "option_ptr": ptr,
        "option_actions": actions,
        "option_values": values,
    }
