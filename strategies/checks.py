"""``check_strategy``: the conformance checks every strategy should pass."""

from __future__ import annotations

import pickle

import numpy as np

from yahtzee_sim.engine.decide import decide, take_rows
from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.engine.simulate import simulate
from yahtzee_sim.engine.strategy import Strategy
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import StrategyRuntimeError, YahtzeeSimError
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import flag_size


class StrategyCheckError(YahtzeeSimError):
    """A strategy failed a conformance check (the message says which and where)."""


def _random_views(rules, n: int, seed: int, rolls_left: int) -> TurnView:
    """``n`` random but legal positions: random filled boxes, consistent upper totals."""
    rng = np.random.default_rng(seed)
    t = rules.tables
    C = rules.n_boxes
    used = np.zeros(n, dtype=np.int64)
    upper = np.zeros(n, dtype=np.int64)
    flag = np.zeros(n, dtype=np.int64)
    turns = rng.integers(0, C, n)
    for i in range(n):
        filled = rng.choice(C, size=turns[i], replace=False)
        for c in filled:
            used[i] |= 1 << int(c)
            cat = rules.boxes[c]
            if cat.is_upper:
                upper[i] += cat.param * int(rng.integers(0, rules.n_dice + 1))
        yi = rules.yahtzee_index
        if rules.has_yahtzee_flag and yi is not None and (used[i] >> yi) & 1:
            flag[i] = int(rng.integers(0, flag_size(rules)))
    rolls = rng.integers(0, t.n_rolls, n).astype(np.int32)
    return TurnView(
        rules,
        np.arange(n, dtype=np.int64),
        t.roll_counts[rolls],
        rolls,
        rolls_left,
        int(turns.max()),
        used,
        upper,
        flag,
        np.zeros(n, dtype=np.int64),
        np.zeros((n, C), dtype=np.int16),
    )


def _decisions(strategy, view: TurnView) -> np.ndarray:
    return np.asarray(decide(strategy, view))


def _row(view: TurnView, i: int) -> TurnView:
    return take_rows(view, slice(i, i + 1))


def check_strategy(
    strategy: str | Strategy,
    rules="yahtzee",
    n_games: int = 300,
    n_positions: int = 200,
    seed: int = 0,
) -> list[str]:
    """Raise :class:`StrategyCheckError` unless ``strategy`` passes every check:

    1. it plays ``n_games`` complete games with only legal moves (the engine validates);
    2. the same seed gives bit-identical games, whatever the block size, and from a
       ``clone()``;
    3. its ``repr`` names its class;
    4. if it claims to be deterministic, decisions on ``n_positions`` random positions
       repeat exactly, and batched decisions equal those made one game at a time;
    5. it survives pickling (same decisions after a round trip).

    Returns
    -------
    list of str
        One line per check passed, saying what was verified.

    Raises
    ------
    StrategyCheckError
        Naming the check that failed (and the strategy's label).
    StrategyRuntimeError
        If the strategy's own code raised.
    """
    rules = get_rules(rules)
    strategy = get_strategy(strategy)
    name = strategy_label(strategy)
    passed: list[str] = []

    def fail(what: str):
        raise StrategyCheckError(f"check_strategy({name}): {what}")

    try:
        a = simulate(strategy, n_games, seed=seed, rules=rules, chunk_size=97, progress=False)
        b = simulate(
            strategy.clone(), n_games, seed=seed, rules=rules, chunk_size=n_games, progress=False
        )
    except StrategyRuntimeError:
        raise
    except YahtzeeSimError as exc:
        fail(f"could not play legal games: {exc}")
    passed.append(f"legal moves: {n_games} complete games on rules {rules.name}")
    if not np.array_equal(a.total, b.total) or not np.array_equal(a.filled_turn, b.filled_turn):
        fail("the same seed gave different games (randomness outside TurnView.uniform?)")
    passed.append(
        f"reproducible: seed {seed} gave bit-identical games in blocks of 97 and of "
        f"{n_games}, the second played by a clone()"
    )
    if not repr(strategy).startswith(type(strategy).__name__):
        fail(f"repr should start with the class name, got {repr(strategy)!r}")
    passed.append(f"repr names the class: {repr(strategy)[:60]}")
    layers = range(rules.rolls_per_turn - 1, -1, -1)
    singles = min(n_positions, 50)
    for rolls_left in layers:
        view = _random_views(rules, n_positions, seed + rolls_left, rolls_left)
        first = _decisions(strategy, view)
        if strategy.deterministic and not np.array_equal(first, _decisions(strategy, view)):
            fail(f"a deterministic strategy changed its decisions (rolls_left={rolls_left})")
        if strategy.deterministic:
            single = np.concatenate([_decisions(strategy, _row(view, i)) for i in range(singles)])
            if not np.array_equal(single, first[: len(single)]):
                fail(f"batched decisions differ from one-game decisions (rolls_left={rolls_left})")
        try:
            copy = pickle.loads(pickle.dumps(strategy))
        except Exception as exc:
            fail(f"cannot be pickled: {type(exc).__name__}: {exc}")
        if strategy.deterministic and not np.array_equal(first, _decisions(copy, view)):
            fail(f"decisions changed after pickling (rolls_left={rolls_left})")
    left = ", ".join(map(str, layers))
    if strategy.deterministic:
        passed.append(
            f"deterministic: the same decisions twice on {n_positions} random positions "
            f"for each rolls_left in {left}"
        )
        passed.append(f"batch-independent: {singles} positions decided one at a time agree")
        passed.append("picklable: the same decisions after a pickle round trip")
    else:
        passed.append(
            "picklable: survives a pickle round trip (not deterministic: decisions not compared)"
        )
    return passed
