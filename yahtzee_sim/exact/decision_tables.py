"""A strategy's decisions at every roll of many states at once, as the exact evaluator reads them.

The strategy is asked in batches — all (state, roll) pairs of a chunk of states in one
:class:`~yahtzee_sim.engine.view.TurnView` per decision point — or gives its tables
directly (``decision_table(rules, states)``). A sample of each level's positions is
asked twice, with different scores, box contents and game numbers, to catch strategies
whose decisions depend on more than the position.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim._core.decisions import keep_codes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.decide import decide
from yahtzee_sim.engine.moves import box_array, illegal_move, keep_array, keep_text
from yahtzee_sim.engine.strategy import capabilities_of
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.exact.result import ExactEvaluationError
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import decode_state, known_box_scores

ROWS_PER_CHUNK = 1 << 18  # (state, roll) pairs per chunk of a level's outcomes
#: (state, roll) pairs per call of a strategy's batched ``keep``/``box``: arrays of a few
#: MB, which stay in the cache and are not handed back to the system between calls
STRATEGY_ROWS = 1 << 16
_CHECK_ROWS = 512  # rows re-asked per level by the position-only check


def check_evaluable(strategy) -> None:
    """Refuse a strategy the exact evaluator cannot follow.

    Parameters
    ----------
    strategy : Strategy
        The strategy about to be evaluated exactly.

    Raises
    ------
    ExactEvaluationError
        If the strategy is random, or reads the running score without being a
        score-dependent table strategy (one with ``lane_play``).
    """
    name = strategy_label(strategy)
    caps = capabilities_of(strategy)
    if not caps.deterministic:
        raise ExactEvaluationError(
            f"strategy {name!r} is random: its decisions are not a function of the position, "
            "so it has no single exact score law here; use simulate() instead"
        )
    if caps.uses_total and not hasattr(strategy, "lane_play"):
        raise ExactEvaluationError(
            f"strategy {name!r} uses the running score: exact evaluation covers strategies "
            "whose decisions depend on the position only (state, dice, rolls left) and "
            "score-dependent table strategies (target, win, utility); use simulate() instead"
        )


def _views(rules: RuleSet, states: np.ndarray, turn: int):
    """A factory of views over every (state, roll) pair of ``states``."""
    t = rules.tables
    n_rolls = t.n_rolls
    # decoded once per state, then one row per (state, roll)
    by_state = decode_state(rules, states)
    used, upper, flag = (np.repeat(a, n_rolls) for a in by_state)
    rolls = np.tile(np.arange(n_rolls, dtype=np.int32), len(states))
    dice = t.roll_counts[rolls]
    m = len(rolls)
    cat_scores = np.repeat(known_box_scores(rules, by_state[2]), n_rolls, axis=0)
    row_games = np.arange(m, dtype=np.int64)
    no_score = np.zeros(m, dtype=np.int64)

    def make(rolls_left: int, rows=slice(None), score=None, scores=None, game_ids=None, key=None):
        return TurnView(
            rules,
            row_games[rows] if game_ids is None else game_ids,
            dice[rows],
            rolls[rows],
            rolls_left,
            turn,
            used[rows],
            upper[rows],
            flag[rows],
            no_score[rows] if score is None else score,
            cat_scores[rows] if scores is None else scores,
            (np.uint64(1), np.uint64(2)) if key is None else key,
        )

    return make, used, cat_scores


def keep_indices(strategy, rules: RuleSet, view: TurnView, out) -> np.ndarray:
    """The keep index of each row's answer ``out`` (checked by :mod:`yahtzee_sim.engine.moves`)."""
    arr = keep_array(strategy, out, view, in_game=False)
    keep = np.empty(len(arr), dtype=np.int16)
    i = keep_codes(kernel_rules(rules), arr, np.ascontiguousarray(view.dice), keep)
    if i >= 0:
        raise illegal_move(strategy, "keep", view, i, keep_text(out, i), in_game=False)
    return keep


def box_indices(strategy, rules: RuleSet, view: TurnView, out) -> np.ndarray:
    """Each row's box (int8; -1 when out of range, refused where the box is written)."""
    arr = box_array(strategy, out, view, in_game=False)
    return np.where((arr < 0) | (arr >= rules.n_boxes), -1, arr).astype(np.int8)


def _check_position_only(strategy, rules, make, used, cat_scores, rolls_left, decided, rng):
    """Ask a sample of rows again with other scores, box contents, game numbers and
    strategy key; the decisions must not change."""
    m = len(used)
    rows = np.sort(rng.choice(m, size=min(m, _CHECK_ROWS), replace=False))
    tops = np.maximum(rules.tables.score_table.max(axis=0), 1).astype(np.int64)
    scores = cat_scores[rows].copy()
    bits = (used[rows, None] >> np.arange(rules.n_boxes)) & 1
    noise = rng.integers(0, tops + 1, size=scores.shape).astype(np.int16)
    yi = rules.yahtzee_index
    keep_cols = np.ones(rules.n_boxes, dtype=bool)
    if yi is not None and rules.has_yahtzee_flag:
        keep_cols[yi] = False  # the Yahtzee box's content is part of the state
    scores[:, keep_cols] = np.where(bits[:, keep_cols] == 1, noise[:, keep_cols], 0)
    view = make(
        rolls_left,
        rows,
        score=rng.integers(0, 400, size=len(rows)),
        scores=scores,
        game_ids=rng.integers(0, 2**40, size=len(rows)),
        key=(np.uint64(rng.integers(2**62)), np.uint64(rng.integers(2**62))),
    )
    if rolls_left:
        again = keep_indices(strategy, rules, view, decide(strategy, view))
    else:
        again = box_indices(strategy, rules, view, decide(strategy, view))
    if not np.array_equal(again, decided[rows]):
        name = strategy_label(strategy)
        raise ExactEvaluationError(
            f"strategy {name!r} made different decisions in the same position when the score, "
            "the box contents or the game number changed: exact evaluation needs decisions that "
            "depend on the position only (state, dice, rolls left); use simulate() instead"
        )


def table_method(strategy, name: str = "decision_table"):
    """The strategy's own decision tables, ``name`` (``decision_table`` or
    ``saved_decision_table``), or ``None``.

    ``None`` too when a subclass changes ``keep`` or ``box`` below the class that gives the
    method: its tables would be the decisions of the class above, so such a strategy is
    asked through its ``keep``/``box``.
    """
    method = getattr(strategy, name, None)
    if method is None:
        return None
    mro = type(strategy).__mro__
    owner = next((i for i, c in enumerate(mro) if name in vars(c)), 0)
    if any("keep" in vars(c) or "box" in vars(c) for c in mro[:owner]):
        return None
    return method


def tables_from_positions(
    rules: RuleSet, states: np.ndarray, fill
) -> tuple[np.ndarray, np.ndarray]:
    """A strategy's ``decision_table`` from its compiled fill of positions.

    For a strategy whose keeps do not depend on the rerolls left: ``fill(positions, keep,
    cat)`` writes the keep index and the box of every roll at ``positions`` (int64 ``(n,
    3)``: used, upper, flag of each state, in order) into ``keep`` and ``cat`` (int16 and
    int8, ``(n, 1, n_rolls)``).

    Parameters
    ----------
    rules : RuleSet
    states : ndarray of int
        States of one level (those of one used-mask and flag next to each other, as the
        state encoding orders them).
    fill : callable
        The strategy's fill.

    Returns
    -------
    tuple of ndarray
        ``(keep, cat)`` as :func:`decision_tables` returns them.
    """
    positions = np.stack(decode_state(rules, np.asarray(states, dtype=np.int64)), axis=1)
    positions = np.ascontiguousarray(positions, dtype=np.int64)
    n, n_rolls = len(positions), rules.tables.n_rolls
    keep = np.empty((n, 1, n_rolls), dtype=np.int16)
    cat = np.empty((n, 1, n_rolls), dtype=np.int8)
    fill(positions, keep, cat)
    layers = max(rules.rolls_per_turn - 1, 1)
    return np.repeat(keep, layers, axis=1), cat[:, 0]


def decision_tables(strategy, rules: RuleSet, states: np.ndarray, turn: int, rng=None):
    """The strategy's decisions at every roll of every state in ``states`` (one level).

    Returns ``(keep, cat)``: ``keep[i, j - 1, r]`` (int16) is the keep index chosen
    at roll ``r`` of state ``states[i]`` with ``j`` rerolls left; ``cat[i, r]``
    (int8, -1 if out of range) the box chosen for final roll ``r``. Strategies
    may provide these directly through ``decision_table(rules, states)``;
    otherwise they are asked through their batched ``keep``/``box``.
    """
    t = rules.tables
    n, n_rolls = len(states), t.n_rolls
    fast = table_method(strategy)
    if fast is not None:
        got = fast(rules, states)
        if got is not None:
            return got
    layers = max(rules.rolls_per_turn - 1, 1)
    keep = np.zeros((n, layers, n_rolls), dtype=np.int16)
    cat = np.empty((n, n_rolls), dtype=np.int8)
    per_chunk = max(1, STRATEGY_ROWS // n_rolls)
    for lo in range(0, n, per_chunk):
        hi = min(n, lo + per_chunk)
        make, used, cat_scores = _views(rules, states[lo:hi], turn)
        for j in range(1, rules.rolls_per_turn):
            view = make(j)
            got = keep_indices(strategy, rules, view, decide(strategy, view))
            if lo == 0 and rng is not None:
                _check_position_only(strategy, rules, make, used, cat_scores, j, got, rng)
            keep[lo:hi, j - 1] = got.reshape(hi - lo, n_rolls)
        view = make(0)
        got = box_indices(strategy, rules, view, decide(strategy, view))
        if lo == 0 and rng is not None:
            _check_position_only(strategy, rules, make, used, cat_scores, 0, got, rng)
        cat[lo:hi] = got.reshape(hi - lo, n_rolls)
    return keep, cat
