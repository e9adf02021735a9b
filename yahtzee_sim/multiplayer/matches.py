"""Visible multiplayer games: N-player matches played in lockstep, turn by turn.

In a real match players take turns and see each other's score sheets. Here a block
of matches advances as arrays (leading axis = matches): in every round, seat 0 plays
its turn in all matches, then seat 1, and so on. Each seat is a
:class:`~yahtzee_sim.engine.batch.GameBatch` with the dice stream it has in a blind
tournament (:func:`yahtzee_sim.analysis.ranking.tournament.seat_seed`), so the same seed
gives every seat the same dice whether the score sheets are visible or not: a strategy that
ignores its opponents plays exactly the games it plays blind, and blind and visible
results pair up under common random numbers. What a seat sees of the others is a
:class:`~yahtzee_sim.engine.view.MatchInfo` in its :class:`~yahtzee_sim.engine.view.TurnView`.

The engine side never imports a concrete strategy.
"""

from __future__ import annotations

import sys

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from tqdm.auto import tqdm

from yahtzee_sim._core.rng import keys_from_seed
from yahtzee_sim.engine.batch import GameBatch
from yahtzee_sim.engine.decide import prepare
from yahtzee_sim.engine.lockstep import play_turn
from yahtzee_sim.engine.memory_budget import check_memory
from yahtzee_sim.engine.view import MatchInfo
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.validation import Integer, validate_params


def seat_seed(seed: int, seat: int) -> int:
    """The dice seed of ``seat`` (independent streams per seat, from ``SeedSequence``)."""
    return int(
        np.random.SeedSequence(seed, spawn_key=(seat,)).generate_state(1, np.uint64)[0]
        >> np.uint64(1)
    )


def seat_keys(seed: int, players: int) -> list[tuple]:
    """``(dice_key, strategy_key)`` of every seat: those of ``simulate(seed=seat_seed(seed,
    seat))``, so a seat's games are the blind games of that seed."""
    out = []
    for i in range(players):
        k = keys_from_seed(seat_seed(seed, i))
        out.append((k[:2], k[2:]))
    return out


def win_shares_of(totals: np.ndarray) -> np.ndarray:
    """Each seat's share of each game's win from final totals ``(games, seats)``: 1 for
    the highest score, ``1/k`` each for a ``k``-way tie at the top, else 0."""
    at_top = totals == totals.max(axis=1, keepdims=True)
    return at_top / at_top.sum(axis=1, keepdims=True)


def match_info(blocks: list[GameBatch], seat: int, turn: int) -> MatchInfo:
    """What seat ``seat`` sees of the other seats before its turn ``turn``."""
    others = [j for j in range(len(blocks)) if j != seat]

    def stack(name):
        return np.stack([getattr(blocks[j], name) for j in others], axis=1)

    return MatchInfo(
        seat=seat,
        n_players=len(blocks),
        seats=np.asarray(others, dtype=np.int64),
        turns=np.asarray([turn + 1 if j < seat else turn for j in others], dtype=np.int64),
        score=stack("score"),
        used=stack("used"),
        upper_total=stack("upper_total"),
        flag=stack("flag"),
    )


def play_match_block(
    strategies: list,
    rules: RuleSet,
    first_match: int,
    n_matches: int,
    keys: list[tuple],
    start: tuple | None = None,
    visible: bool = True,
) -> np.ndarray:
    """Play matches ``first_match ..`` in lockstep; ``strategies[i]`` sits at seat ``i``
    with ``keys[i] = (dice_key, strategy_key)``. Returns the final totals ``(n, seats)``.

    ``start = (sheets, seat)`` starts every match from those score sheets
    (:class:`~yahtzee_sim.multiplayer.win_probability.ScoreSheet`, one per seat) with
    ``seat`` to move (-1: the game is over). ``visible=False`` hides the score sheets
    (blind play: each seat's games are then exactly its solitaire games).
    """
    blocks = [GameBatch(rules, n_matches, first_match, *keys[i]) for i in range(len(strategies))]
    first_turn, first_seat = 0, 0
    if start is not None:
        sheets, first_seat = start
        for block, sheet in zip(blocks, sheets, strict=True):
            block.set_position(sheet)
        first_turn = rules.n_boxes if first_seat < 0 else sheets[first_seat].turns
    for turn in range(first_turn, rules.n_boxes):
        for i, strategy in enumerate(strategies):
            if turn == first_turn and i < first_seat:
                continue  # played this round's turn before the start
            match = match_info(blocks, i, turn) if visible else None
            play_turn(blocks[i], strategy, turn, match)
    return np.stack([b.results()["total"] for b in blocks], axis=1).astype(np.int64)


def _prepared_seat(strategy, rules):
    """``strategy`` prepared for ``rules`` (each seat's own instance: seats never share
    one, even when their parameters are equal)."""
    prepare(strategy, rules)
    return strategy


def _run(strategies, rules, first, n, keys, prepare, start=None, visible=True):
    if prepare:
        strategies = [_prepared_seat(s, rules) for s in strategies]
    return play_match_block(strategies, rules, first, n, keys, start, visible)


@validate_params({"n_games": Integer(1)})
def play_matches(
    strategies: list,
    rules: RuleSet,
    n_games: int,
    seed: int = 0,
    n_jobs: int = 1,
    chunk_size: int = 65_536,
    progress: bool | None = None,
    start: tuple | None = None,
    first_game: int = 0,
    visible: bool = True,
) -> np.ndarray:
    """Final totals ``(games, seats)`` of matches ``first_game .. first_game + games - 1``,
    seat ``i`` playing ``strategies[i]`` (instances). Bit-identical for any ``n_jobs`` and
    ``chunk_size``. ``start``, ``visible``: as :func:`play_match_block` takes them."""
    check_memory(
        3 * 8 * len(strategies) * n_games,
        f"{n_games:,} matches with every match's totals kept",
        "play fewer games",
    )
    keys = seat_keys(seed, len(strategies))
    if n_jobs != 1:
        chunk_size = min(chunk_size, -(-n_games // max(1, effective_n_jobs(n_jobs))))
    end = first_game + n_games
    todo = [(s, min(chunk_size, end - s)) for s in range(first_game, end, chunk_size)]
    if progress is None:
        progress = sys.stderr.isatty()
    bar = tqdm(total=n_games, unit="match", disable=not progress, desc="matches")
    out = []
    threads = all(getattr(s, "parallel_backend", "processes") == "threads" for s in strategies)
    if n_jobs == 1 or len(todo) == 1 or threads:
        prepared = [_prepared_seat(s, rules) for s in strategies]
        if n_jobs == 1 or len(todo) == 1:
            parts = (_run(prepared, rules, s, n, keys, False, start, visible) for s, n in todo)
        else:
            parts = Parallel(n_jobs=n_jobs, return_as="generator", prefer="threads")(
                delayed(_run)(prepared, rules, s, n, keys, False, start, visible) for s, n in todo
            )
    else:
        parts = Parallel(n_jobs=n_jobs, return_as="generator")(
            delayed(_run)(strategies, rules, s, n, keys, True, start, visible) for s, n in todo
        )
    for part, (_, n) in zip(parts, todo, strict=True):
        out.append(part)
        bar.update(n)
    bar.close()
    return np.concatenate(out)
