"""Select the best strategy with procedure KN, drawing games from the engine under CRN."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from yahtzee_sim.analysis.ranking.kim_nelson import KNResult, SelectionError, kim_nelson
from yahtzee_sim.engine.simulate import simulate
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.validation import Integer, check

if TYPE_CHECKING:
    from yahtzee_sim.engine.strategy import Strategy

#: Per-game metrics selection can rank on ("Simulating Yahtzee" Tables 3, 6, 7), and
#: ``"win"``: the share of the game won against a field (:class:`WinMetric`).
METRICS = {
    "total": lambda res: res.total.astype(np.float64),
    "yahtzees": lambda res: res.yahtzees.astype(np.float64),
    "bonus": lambda res: (res.upper_bonus > 0).astype(np.float64),
    "win": None,
}

#: Default games per KN observation: batch means tame the skewed, multimodal scores.
DEFAULT_BATCH = 10


@dataclass(frozen=True)
class WinMetric:
    """The ``"win"`` metric of :func:`select_best` and the matches it plays: the share of
    each game a strategy wins against a field of opponents.

    ``metric="win"`` is ``WinMetric()``: one ``optimal`` opponent, score sheets visible.

    Attributes
    ----------
    field : str or Strategy
        The opponents' strategy (every opponent seat plays it).
    players : int
        Players per match (>= 2): the strategy and ``players - 1`` opponents.
    visible : bool
        Whether the players see each other's score sheets (``False``: blind games).
    """

    field: str | Strategy = "optimal"
    players: int = 2
    visible: bool = True

    name: ClassVar[str] = "win"


def select_best(
    strategies: Sequence,
    delta: float = 1.0,
    alpha: float = 0.05,
    metric: str | WinMetric = "total",
    m: int = 1,
    n0: int = 20,
    batch: int = DEFAULT_BATCH,
    seed: int = 0,
    rules: str | RuleSet = "yahtzee",
    maximize: bool = True,
    n_jobs: int = 1,
    played: Mapping[str, np.ndarray] | None = None,
) -> KNResult:
    """Kim–Nelson selection among strategies, observations drawn sequentially from the engine.

    Observation ``j`` of every strategy is the mean ``metric`` over games
    ``j*batch .. (j+1)*batch − 1`` of seed ``seed``: every strategy plays the same
    dice stream for the same observation (common random numbers). Surviving
    strategies are drawn in growing blocks; the procedure itself consumes one
    observation per stage. ``result.parameters["games"]`` is the number of games played.

    Parameters
    ----------
    strategies : sequence of str or Strategy
        At least two, with distinct names.
    metric : {"total", "yahtzees", "bonus", "win"} or WinMetric
        A name of :data:`METRICS`, or a :class:`WinMetric` for the win rate in a match:
        each strategy plays ``players``-player matches against ``players - 1`` seats of
        ``field`` (score sheets ``visible`` or not), once in every seat on the same dice; a game
        counts its share of the win (ties split), averaged over the seats. ``"win"`` is
        ``WinMetric()`` (one ``optimal`` opponent, score sheets visible).
    batch : int
        Games per observation (default :data:`DEFAULT_BATCH`).
    played : mapping, optional
        Games already played, for the ``"total"`` metric: label → the final score of
        games ``0, 1, ...`` of seed ``seed`` (a simulation's ``total``). An observation
        whose games are all there is their batch mean, the same numbers as playing
        them; only the games past them are played.

    Returns
    -------
    KNResult
        ``parameters`` holds ``metric`` (its name), ``batch``, ``seed``, ``rules`` and
        ``games`` (the games its observations span, played or read from ``played``);
        with the win metric also ``field`` (the opponents' label),
        ``players`` and ``visible``.

    Notes
    -----
    The other parameters are those of :func:`~yahtzee_sim.analysis.ranking.kim_nelson.kim_nelson`.

    Examples
    --------
    Rank on the win share in three-player blind matches against two ``optimal`` players:

    >>> blind3 = WinMetric(players=3, visible=False)
    >>> res = select_best(["greedy", "win-aware"], metric=blind3)  # doctest: +SKIP
    """
    from yahtzee_sim.strategies import get_strategy

    if metric == WinMetric.name:
        metric = WinMetric()
    win = metric if isinstance(metric, WinMetric) else None
    if win is None and metric not in METRICS:
        raise SelectionError(f"unknown metric {metric!r}; expected one of: {', '.join(METRICS)}")
    batch = check("batch", batch, Integer(1), SelectionError)
    rules = get_rules(rules)
    objs = [get_strategy(s) for s in strategies]
    names = [strategy_label(o) for o in objs]
    if len(set(names)) != len(names):
        raise SelectionError(f"strategies must have distinct labels, got {names}")
    if played and metric != "total":
        raise SelectionError(f"played: games serve the 'total' metric, not {metric!r}")
    known = [None if played is None else played.get(name) for name in names]
    opponents = _opponents(win)
    draw = _draw(objs, known, opponents, win, metric, rules, seed, batch, n_jobs)
    result = kim_nelson(draw, names, delta, alpha=alpha, n0=n0, m=m, maximize=maximize)
    if win is not None:
        result.parameters.update(
            field=strategy_label(opponents[0]), players=len(opponents) + 1, visible=win.visible
        )
    result.parameters.update(
        metric=WinMetric.name if win is not None else metric,
        batch=batch,
        seed=seed,
        rules=rules.name,
        games=result.total_observations * batch,
    )
    return result


def _opponents(win: WinMetric | None) -> list:
    """The opponents of a strategy in the matches of the win metric ``win`` (none without)."""
    from yahtzee_sim.strategies import get_strategy

    if win is None:
        return []
    players = check("players", win.players, Integer(2), SelectionError)
    return [get_strategy(win.field) for _ in range(players - 1)]


def _draw(objs, known, opponents, win, metric, rules, seed, batch, n_jobs):
    """The ``draw(systems, start, stop)`` of :func:`kim_nelson`: observation ``j`` of a
    strategy is its mean ``metric`` (or win share against ``opponents``) over games
    ``j*batch .. (j+1)*batch − 1`` of seed ``seed``, read from its ``known`` totals
    (``None``: none) when they hold those games, else played."""
    value = None if win is not None else METRICS[metric]

    def draw(systems: np.ndarray, start: int, stop: int) -> np.ndarray:
        out = np.empty((len(systems), stop - start))
        for row, i in enumerate(systems):
            totals = known[i]
            if totals is not None and stop * batch <= len(totals):
                games = np.asarray(totals[start * batch : stop * batch]).astype(np.float64)
                out[row] = games.reshape(stop - start, batch).mean(axis=1)
                continue
            if win is not None:
                shares = _win_shares(
                    [objs[i], *opponents], rules, (stop - start) * batch, seed, start * batch,
                    win.visible, n_jobs,
                )  # fmt: skip
                out[row] = shares.reshape(stop - start, batch).mean(axis=1)
                continue
            res = simulate(
                objs[i],
                (stop - start) * batch,
                seed=seed,
                rules=rules,
                n_jobs=n_jobs,
                first_game=start * batch,
                progress=False,
            )
            out[row] = value(res).reshape(stop - start, batch).mean(axis=1)
        return out

    return draw


def _win_shares(seats, rules, games, seed, first_game, visible, n_jobs) -> np.ndarray:
    """The share of each game's win (ties split) of ``seats[0]``, averaged over its
    playing every seat (the others keep their order)."""
    from yahtzee_sim.multiplayer.matches import play_matches, win_shares_of

    me, field = seats[0], seats[1:]
    out = np.zeros(games)
    for p in range(len(seats)):
        totals = play_matches(
            [*field[:p], me, *field[p:]], rules, games, seed, n_jobs=n_jobs, progress=False,
            first_game=first_game, visible=visible,
        )  # fmt: skip
        out += win_shares_of(totals)[:, p]
    return out / len(seats)
