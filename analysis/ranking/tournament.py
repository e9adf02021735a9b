"""Blind multiplayer tournaments: win rates with intervals and the winning-score law.

Players never see each other's score sheet (Tillius 2026 §4.4), so a game of ``N``
players is ``N`` independent one-player games: seat ``i`` plays its own dice stream
(seed derived from the tournament seed and the seat), the highest final score wins
and ties split the win. Seats playing the same strategy share nothing but the rules.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from yahtzee_sim.analysis.ranking.stats import mean_ci
from yahtzee_sim.engine.memory_budget import check_memory, results_bytes
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.errors import TournamentError
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.multiplayer.matches import play_matches, seat_seed, win_shares_of
from yahtzee_sim.validation import Integer, check, validate_params


@dataclass(eq=False)
class TournamentResult:
    """Outcome of a tournament.

    Attributes
    ----------
    seats : list of str
        Strategy of each seat.
    scores : ndarray (games, players)
        Final score of every seat in every game.
    wins : ndarray (games, players)
        Share of each game's win (1, or 1/k for a k-way tie at the top).
    rules_name : str
    seconds : float
    parameters : dict
    """

    seats: list[str]
    scores: np.ndarray
    wins: np.ndarray
    rules_name: str
    seconds: float = 0.0
    parameters: dict = field(default_factory=dict)

    @property
    def games(self) -> int:
        """Number of games played."""
        return self.scores.shape[0]

    def win_rates(self, level: float = 0.95) -> pd.DataFrame:
        """Per seat: strategy, win rate (ties split), its t interval, mean score."""
        n = self.games
        mean = self.wins.mean(axis=0)
        se = self.wins.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.full_like(mean, np.nan)
        q = stats.t.ppf(0.5 + level / 2, max(n - 1, 1))
        return pd.DataFrame(
            {
                "strategy": self.seats,
                "win_rate": mean,
                "win_lo": mean - q * se,
                "win_hi": mean + q * se,
                "mean_score": self.scores.mean(axis=0),
            },
            index=pd.RangeIndex(1, len(self.seats) + 1, name="seat"),
        )

    def winning_scores(self) -> np.ndarray:
        """The winning (highest) score of every game."""
        return self.scores.max(axis=1)

    def winning_summary(self) -> dict:
        """Mean, SD, median and 10/90th percentiles of the winning score."""
        w = self.winning_scores().astype(np.float64)
        return {
            "mean": float(w.mean()),
            "sd": float(w.std(ddof=1)) if len(w) > 1 else 0.0,
            "p10": float(np.percentile(w, 10)),
            "median": float(np.median(w)),
            "p90": float(np.percentile(w, 90)),
        }

    def to_dict(self) -> dict:
        """JSON-ready summary (no wall time: the same run gives the same dict)."""
        rates = self.win_rates()
        return {
            "rules": self.rules_name,
            "games": self.games,
            "seats": self.seats,
            "win_rates": rates["win_rate"].tolist(),
            "win_ci95": rates[["win_lo", "win_hi"]].values.tolist(),
            "mean_scores": rates["mean_score"].tolist(),
            "winning_score": self.winning_summary(),
            "parameters": self.parameters,
        }


def labels(strategies) -> list[str]:
    """How results name each strategy (ids, plugin specs or instances):
    :func:`~yahtzee_sim.engine.summary.strategy_label`, never the spec as typed."""
    from yahtzee_sim.strategies import get_strategy

    return [strategy_label(get_strategy(s)) for s in strategies]


def seat_list(strategies, players: int | None) -> list[str]:
    """Seats from strategy ids: one per seat, or fewer (the last fills the rest)."""
    if isinstance(strategies, str):
        from yahtzee_sim.engine.plugins import split_strategy_list

        strategies = split_strategy_list(strategies)
    seats = list(strategies)
    if not seats:
        raise TournamentError("strategies: give at least one strategy")
    if players is None:
        players = len(seats)
    players = check("players", players, Integer(2), TournamentError)
    if len(seats) > players:
        raise TournamentError(
            f"{len(seats)} strategies for {players} players: give at most one strategy per seat"
        )
    return seats + [seats[-1]] * (players - len(seats))


@validate_params({"n_games": Integer(1)}, error=TournamentError)
def tournament(
    strategies,
    players: int | None = None,
    n_games: int = 100_000,
    seed: int = 0,
    rules="yahtzee",
    n_jobs: int = 1,
    progress: bool = False,
    visible: bool = False,
) -> TournamentResult:
    """Play ``n_games`` ``players``-player games, blind (default) or with visible score sheets.

    Parameters
    ----------
    strategies : str or list
        Strategy of each seat (ids or instances); with fewer than ``players``, the
        last one fills the remaining seats (``["target:289", "optimal"]`` with
        ``players=5``: one target player against four max-EV players).
    players : int, optional
        Seats (>= 2); default: one per strategy.
    n_games, seed, rules, n_jobs, progress
        As in :func:`yahtzee_sim.engine.simulate.simulate`; seat ``i`` uses the seed
        :func:`seat_seed` ``(seed, i)``.
    visible : bool
        Play every game as a visible match: the seats' turns interleaved, each seat
        seeing the others' score sheets (:mod:`yahtzee_sim.multiplayer.matches`); every
        seat keeps its blind dice stream, so strategies that ignore their opponents score
        exactly as in the blind game.
    """
    t0 = time.perf_counter()
    rules = get_rules(rules)
    seats = seat_list(strategies, players)
    names = labels(seats)
    if visible:
        from yahtzee_sim.strategies import get_strategy

        instances = [get_strategy(s) for s in seats]
        scores = play_matches(instances, rules, n_games, seed, n_jobs=n_jobs, progress=progress)
    else:
        scores = _blind_scores(seats, rules, n_games, seed, n_jobs, progress)
    wins = win_shares_of(scores)
    return TournamentResult(
        names,
        scores,
        wins,
        rules.name,
        time.perf_counter() - t0,
        {
            "players": len(seats),
            "games": n_games,
            "seed": seed,
            **({"visible": True} if visible else {}),
        },
    )


def _blind_scores(seats, rules, n_games: int, seed: int, n_jobs: int, progress: bool):
    """The final scores of blind games, ``(n_games, seats)``: each seat's games simulated
    on its own seed (:func:`seat_seed`)."""
    from yahtzee_sim.engine.simulate import simulate

    check_memory(  # the totals, the win shares, and one seat's games at a time
        3 * 8 * len(seats) * n_games + results_bytes(rules, n_games),
        f"a tournament of {n_games:,} games with every game's totals kept",
        "play fewer games",
    )
    scores = np.empty((n_games, len(seats)), dtype=np.int64)
    for i, s in enumerate(seats):
        res = simulate(
            s,
            n_games,
            seed=seat_seed(seed, i),
            rules=rules,
            n_jobs=n_jobs,
            progress=progress,
        )
        scores[:, i] = res.total
    return scores


def _round_robin_entrants(strategies, players: int) -> tuple[list, list[str]]:
    """``(strategies, their labels)`` of a round robin: a comma-separated string split, at
    least ``players`` distinct labels."""
    if isinstance(strategies, str):
        from yahtzee_sim.engine.plugins import split_strategy_list

        strategies = split_strategy_list(strategies)
    names = labels(strategies)
    if len(set(names)) != len(names) or len(names) < players:
        raise TournamentError(
            f"a round robin of {players}-player games needs at least {players} distinct "
            f"strategies, got {names}"
        )
    return strategies, names


def exact_winning_law(pmfs) -> np.ndarray:
    """Law of the highest of independent final scores with laws ``pmfs`` (one per seat)."""
    n = max(len(p) for p in pmfs)
    cdf = np.ones(n)
    for p in pmfs:
        p = np.pad(np.asarray(p, dtype=np.float64), (0, n - len(p)))
        cdf *= np.cumsum(p / p.sum())
    return np.diff(np.concatenate(([0.0], cdf)))


@dataclass(eq=False)
class RoundRobinResult:
    """Outcome of :func:`round_robin`.

    Attributes
    ----------
    strategies : list of str
    seatings : list of tuple
        The strategy index of every seat of every seating (every ordered choice of
        distinct strategies: both seat orders of each pairing).
    wins : ndarray (seatings, games, players)
        Win shares of every seat of every game of every seating.
    scores : ndarray (seatings, games, players)
    """

    strategies: list[str]
    seatings: list[tuple]
    wins: np.ndarray
    scores: np.ndarray
    rules_name: str
    seconds: float = 0.0
    parameters: dict = field(default_factory=dict)

    def _shares(self, i: int, j: int | None) -> np.ndarray:
        out = [
            self.wins[m, :, seat.index(i)]
            for m, seat in enumerate(self.seatings)
            if i in seat and (j is None or j in seat)
        ]
        return np.concatenate(out) if out else np.zeros(0)

    def win_matrix(self, level: float = 0.95) -> pd.DataFrame:
        """Rows: strategy; columns: opponent; entries: the row's mean win share in the
        games where both sit (both seat orders), with its t interval half-width in
        ``win_matrix().attrs["halfwidth"]``."""
        k = len(self.strategies)
        mean = np.full((k, k), np.nan)
        half = np.full((k, k), np.nan)
        for i in range(k):
            for j in range(k):
                if i != j:
                    mean[i, j], half[i, j] = _mean_half(self._shares(i, j), level)
        df = pd.DataFrame(mean, index=self.strategies, columns=self.strategies)
        df.attrs["halfwidth"] = pd.DataFrame(half, index=self.strategies, columns=self.strategies)
        return df

    def ranking(self, level: float = 0.95) -> pd.DataFrame:
        """Strategies by mean win share against the field, with intervals and the
        fair share ``1 / players`` for comparison."""
        rows = []
        for i, name in enumerate(self.strategies):
            shares = self._shares(i, None)
            m, h = _mean_half(shares, level)
            sc = np.concatenate(
                [self.scores[n, :, s.index(i)] for n, s in enumerate(self.seatings) if i in s]
            )
            rows.append((name, m, m - h, m + h, float(sc.mean())))
        df = pd.DataFrame(rows, columns=["strategy", "win_share", "win_lo", "win_hi", "mean_score"])
        df = df.sort_values("win_share", ascending=False, kind="stable").reset_index(drop=True)
        df.index = pd.RangeIndex(1, len(df) + 1, name="rank")
        return df

    def to_dict(self) -> dict:
        """JSON-ready summary (no wall time)."""
        wm = self.win_matrix()
        return {
            "rules": self.rules_name,
            "strategies": self.strategies,
            "parameters": self.parameters,
            "win_matrix": [[None if np.isnan(v) else v for v in row] for row in wm.values],
            "win_matrix_halfwidth": [
                [None if np.isnan(v) else v for v in row] for row in wm.attrs["halfwidth"].values
            ],
            "ranking": self.ranking().to_dict(orient="records"),
        }

    def plot(self, ax=None):
        """Heat map of the win matrix (the row's win share against the column)."""
        from yahtzee_sim.analysis.plots import plot_win_matrix

        kind = "visible" if self.parameters.get("visible") else "blind"
        n = self.parameters.get("players", 2)
        title = f"win share of row against column, {kind} {n}-player games"
        return plot_win_matrix(self.win_matrix(), ax=ax, title=title, fmt=".3f")


def _mean_half(x: np.ndarray, level: float) -> tuple[float, float]:
    """Mean and t-interval half-width (the project's interval, :func:`.stats.mean_ci`)."""
    if len(x) < 2:
        return (float(x.mean()) if len(x) else np.nan), np.nan
    mean, _, lo, _ = mean_ci(x, level)
    return mean, mean - lo


@validate_params({"players": Integer(2)}, error=TournamentError)
def round_robin(
    strategies,
    players: int = 2,
    n_games: int = 10_000,
    seed: int = 0,
    rules="yahtzee",
    visible: bool = True,
    n_jobs: int = 1,
    progress: bool = False,
) -> RoundRobinResult:
    """Every ordered choice of ``players`` distinct strategies plays ``n_games`` games
    (Axelrod-style round robin; both seat orders of each pairing). All seatings share
    the seed, so seat ``i`` has the same dice in every seating (common random numbers).

    Parameters
    ----------
    strategies : str or list
        At least ``players`` distinct strategy ids.
    players : int
        Seats per game (>= 2).
    visible : bool
        Visible score sheets (default) or blind games.
    """
    from itertools import permutations

    t0 = time.perf_counter()
    rules = get_rules(rules)
    strategies, names = _round_robin_entrants(strategies, players)
    seatings = list(permutations(range(len(names)), players))
    wins, scores = [], []
    for seats in seatings:
        res = tournament(
            [strategies[i] for i in seats],
            n_games=n_games,
            seed=seed,
            rules=rules,
            n_jobs=n_jobs,
            progress=progress,
            visible=visible,
        )
        wins.append(res.wins)
        scores.append(res.scores)
    return RoundRobinResult(
        names,
        seatings,
        np.stack(wins),
        np.stack(scores),
        rules.name,
        time.perf_counter() - t0,
        {"players": players, "games": n_games, "seed": seed, "visible": bool(visible)},
    )
