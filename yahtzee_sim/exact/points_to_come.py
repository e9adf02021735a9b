"""The points still to come under max-EV play: moments of every state, exact laws.

Its names say *future* for "the points still to come" (``future_moments``,
``future_law``, :class:`FutureMoments`, ``FutureError``).

Win-aware play and the live win probability need, for a player at any turn-start
state, what the rest of the game will bring if they play max-EV (optimal) from
there:

* :func:`future_moments` — the mean and SD of the points to come from **every**
  encoded state (one backward pass over levels with optimal play's turn outcomes,
  :func:`yahtzee_sim.exact.forward.level_outcomes`; the mean is the optimal value table,
  which the tests check); cached on disk like the value table;
* :func:`future_law` — the exact law of the points to come from one state, or from
  a position inside a turn (dice and rerolls left), by the exact evaluator's forward
  and backward passes started from that state;
* :func:`future_laws` — the exact laws of **every** state with at most a few open
  boxes, in one table (one backward pass over the last levels; ``win-target`` reads an
  opponent's endgame from it).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from yahtzee_sim._core.points_to_come import (
    law_fill,
    law_lengths,
    moments_level,
    outcomes_from_roll,
)
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim._kernels.win_values import NODE_WEIGHT
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.errors import FutureError
from yahtzee_sim.exact.backward import backward_law
from yahtzee_sim.exact.forward import level_outcomes, unique_states
from yahtzee_sim.exact.laws import exact_rules
from yahtzee_sim.game.capabilities import FIXED_ROLLS, Feature
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import decode_state, encode_state, flag_size, n_states
from yahtzee_sim.solving import cache
from yahtzee_sim.solving.levels import levels, upper_lanes
from yahtzee_sim.solving.solver import ValueTable, value_table
from yahtzee_sim.validation import Integer, validate_params

#: The moments of every state take games without saved rolls.
FUTURE_MOMENTS = Feature("exact moments", FIXED_ROLLS)
#: The exact laws of every state take games without saved rolls.
FUTURE_LAWS = Feature("exact future laws", FIXED_ROLLS)


def _max_ev_play(rules: str | RuleSet) -> tuple[ValueTable, RuleSet]:
    """``(play, rules)``: max-EV play as the exact evaluator asks for decisions (the
    optimal value table's :meth:`~yahtzee_sim.solving.solver.ValueTable.decision_table`),
    and ``rules`` checked for exact evaluation."""
    rules = exact_rules(rules)
    return value_table(rules), rules


class FutureMoments(NamedTuple):
    """Mean and SD of the points still to come from every encoded state (max-EV play);
    0 at full score sheets and at states no game can reach."""

    mean: np.ndarray
    sd: np.ndarray


def level_states(rules: RuleSet, masks: np.ndarray) -> np.ndarray:
    """Every reachable-looking state of these used masks: upper totals the filled upper
    boxes can make, Yahtzee flags only where the Yahtzee box is filled."""
    start, count = upper_lanes(rules, masks)
    hi = start + count - 1
    fs = flag_size(rules)
    yi = rules.yahtzee_index
    parts = []
    for f in range(fs):
        ok = np.ones(len(masks), dtype=bool) if f == 0 else ((masks >> yi) & 1).astype(bool)
        m, h = masks[ok], hi[ok]
        rep = np.repeat(np.arange(len(m)), h + 1)
        upper = np.arange(len(rep)) - np.repeat(np.cumsum(h + 1) - (h + 1), h + 1)
        parts.append(encode_state(rules, m[rep], upper, np.full(len(rep), f)))
    return np.sort(np.concatenate(parts))


def _solve_moments(rules: RuleSet, progress: bool = False) -> FutureMoments:
    play, rules = _max_ev_play(rules)
    size = n_states(rules)
    mean = np.zeros(size)
    second = np.zeros(size)
    C = rules.n_boxes
    for masks in levels(C, rules.forced_order):
        turn = int(bin(int(masks[0])).count("1"))
        states = level_states(rules, masks)
        lv = level_outcomes(play, rules, states, turn)
        moments_level(states, lv.ptr, lv.nxt, lv.pts, lv.prob, mean, second, get_threads())
    return FutureMoments(mean, np.sqrt(np.maximum(second - mean * mean, 0.0)))


#: Moments by rules fingerprint, on disk as ``future-mean-*`` and ``future-sd-*``.
TABLES = cache.table_cache("future", parts=("mean", "sd"), max_entries=8)


def future_moments(rules: str | RuleSet = "yahtzee", use_cache: bool = True) -> FutureMoments:
    """:class:`FutureMoments` of ``rules``: from memory, the disk cache, or computed
    (Yahtzee: about 10 s on two cores)."""
    rules = get_rules(rules)
    FUTURE_MOMENTS.check(rules)
    size = n_states(rules)

    def restore(read):
        got = read(size, size)
        return None if got is None else FutureMoments(*got)

    return TABLES.get(
        TABLES.key(rules),
        solve=lambda: _solve_moments(rules),
        arrays=list,
        restore=restore,
        use_cache=use_cache,
    )


def _law_from_outcomes(play, rules: RuleSet, first_states, first_pts, first_prob):
    """Law of the points to come given the law of the current turn's outcomes
    (next state, points) and max-EV play afterwards."""
    size = n_states(rules)
    used0 = decode_state(rules, np.asarray(first_states))[0]
    pmf = np.zeros(1)
    turn = int(bin(int(used0[0])).count("1")) if len(first_states) else rules.n_boxes
    laws = {}
    if turn < rules.n_boxes:
        states = unique_states(np.asarray(first_states, dtype=np.int64), size)
        lvs = []
        for t in range(turn, rules.n_boxes):
            lv = level_outcomes(play, rules, states, t)
            lvs.append(lv)
            states = unique_states(lv.nxt, size)
        rows = backward_law(rules, lvs, False, all_rows=True)
        laws = {int(s): rows[i] for i, s in enumerate(lvs[0].states)}
    for s, q, p in zip(first_states, first_pts, first_prob, strict=True):
        law = laws.get(int(s), np.ones(1))
        top = q + len(law)
        if top > len(pmf):
            pmf = np.pad(pmf, (0, top - len(pmf)))
        pmf[q:top] += p * law
    return np.trim_zeros(pmf, "b")


@validate_params({"rolls_left": Integer(0)}, error=FutureError)
def future_law(
    rules: str | RuleSet,
    state: int,
    dice=None,
    rolls_left: int | None = None,
) -> np.ndarray:
    """Exact law of the points still to come under max-EV play: ``pmf[x]`` = P(x more
    points, bonuses included).

    From the turn-start state ``state`` (encoded, :func:`yahtzee_sim.game.state.encode_state`),
    or, with ``dice`` (face counts, as a view's) and ``rolls_left``, from that point of
    the turn being played from ``state``. A full score sheet gives ``[1.0]``.

    Raises
    ------
    FutureError
        With ``dice``, if ``rolls_left`` is not a whole number from 0 to the rules'
        rerolls per turn.
    """
    play, rules = _max_ev_play(rules)
    rerolls = rules.rolls_per_turn - 1
    if dice is not None and (rolls_left is None or rolls_left > rerolls):
        raise FutureError(
            f"rolls_left: give a whole number from 0 to {rerolls}, got {rolls_left!r}"
        )
    kr = kernel_rules(rules)
    used, upper, flag = decode_state(rules, state)
    if used == (1 << rules.n_boxes) - 1:
        return np.ones(1)
    if dice is None:
        lv = level_outcomes(play, rules, np.array([state]), bin(used).count("1"))
        return _law_from_outcomes(play, rules, lv.nxt, lv.pts, lv.prob)
    t = rules.tables
    keep, cat = play.decision_table(rules, np.array([state], dtype=np.int64))
    p = np.zeros(t.n_rolls)
    roll = int(t.roll_index(np.asarray(dice, dtype=np.int8)[None])[0])
    p[roll] = 1.0
    position = (np.int64(used), np.int64(upper), np.int64(flag), np.int64(rolls_left))
    nxt, pts, prob = outcomes_from_roll(kr, keep[0], cat[0], p, *position)
    return _law_from_outcomes(play, rules, nxt, pts, prob)


class FutureLaws(NamedTuple):
    """Exact laws of the points still to come under max-EV play from every state with at
    most ``max_open`` open boxes: ``pool[offset[s] : offset[s] + length[s]]`` is the pmf
    of state index ``s`` (``pmf[x]`` = P(x more points)); ``length[s]`` is 0 for states
    with more open boxes or unreachable. ``support[s]`` counts the entries of at least
    :data:`yahtzee_sim._kernels.win_values.NODE_WEIGHT` (the nodes of an opponent's law in
    win-target)."""

    pool: np.ndarray
    offset: np.ndarray
    length: np.ndarray
    max_open: int
    support: np.ndarray  # entries of each pmf of at least NODE_WEIGHT


@functools.lru_cache(maxsize=4)
def _future_laws(rules: RuleSet, max_open: int) -> FutureLaws:
    play, rules = _max_ev_play(rules)
    size = n_states(rules)
    C = rules.n_boxes
    offset = np.zeros(size, dtype=np.int64)
    length = np.zeros(size, dtype=np.int64)
    full = level_states(rules, np.array([(1 << C) - 1], dtype=np.int64))
    length[full] = 1  # every full card shares pool[0] = 1.0
    chunks, used_size = [np.ones(1)], 1
    for masks in levels(C, rules.forced_order)[: min(max_open, C)]:
        turn = int(bin(int(masks[0])).count("1"))
        lv = level_outcomes(play, rules, level_states(rules, masks), turn)
        law_lengths(lv.states, lv.ptr, lv.nxt, lv.pts, length)
        rows = length[lv.states]
        offset[lv.states] = used_size + np.cumsum(rows) - rows
        part = np.zeros(int(rows.sum()))
        chunks.append(part)
        used_size += len(part)
        pool = np.concatenate(chunks)
        law_fill(lv.states, lv.ptr, lv.nxt, lv.pts, lv.prob, pool, offset, length, get_threads())
        chunks = [pool]
    pool = np.concatenate(chunks)
    big = np.concatenate([[0], np.cumsum(pool >= NODE_WEIGHT)])
    support = np.where(length > 0, big[offset + length] - big[offset], 0)
    return FutureLaws(pool, offset, length, max_open, support)


@validate_params({"max_open": Integer(0)}, error=FutureError)
def future_laws(rules: str | RuleSet = "yahtzee", max_open: int = 3) -> FutureLaws:
    """:class:`FutureLaws` of every state of ``rules`` with at most ``max_open`` open
    boxes (kept in memory; official Yahtzee with 3 open boxes: a few seconds, 75 MB)."""
    rules = get_rules(rules)
    FUTURE_LAWS.check(rules)
    return _future_laws(rules, max_open)
