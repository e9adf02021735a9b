"""A full ranking of strategies: every pair compared, simultaneous intervals, tiers.

Procedure (:data:`PROCEDURE`): for every pair of strategies, the difference of their
means. Two random strategies are compared on their paired games (common random numbers:
game ``g`` of both used the same dice), by the paired t statistic of the per-game
differences; a deterministic strategy enters with its exact mean, so a pair of one
deterministic and one random strategy is a one-sample t on the random one's games, and
a pair of two deterministic strategies is their exact difference (no uncertainty, not
in the family). Over the ``m`` pairs with uncertainty:

* adjusted p-values and decisions by Holm's (1979) step-down procedure: the probability
  of declaring any pair of equal means different is at most α, whatever the dependence
  between the pairs;
* simultaneous intervals by Bonferroni: with probability at least 1 − α the ``m``
  intervals cover their true differences together. An interval that excludes 0 always
  belongs to a pair Holm declares different (Holm rejects whatever Bonferroni rejects);
  a pair between the two thresholds is declared different with an interval touching 0.

The t statistics rest on the central limit theorem: game scores are bounded, so a few
hundred games make them close to normal. Tiers are the compact letter display
(:func:`~yahtzee_sim.analysis.ranking.letters.letter_display`) of Holm's decisions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from yahtzee_sim.analysis.ranking.kim_nelson import SelectionError
from yahtzee_sim.analysis.ranking.letters import letter_display

#: The name of the procedure, as results and reports state it.
PROCEDURE = "Holm-adjusted paired t tests with Bonferroni simultaneous intervals"


@dataclass(eq=False)
class RankingResult:
    """A full ranking with simultaneous intervals (:func:`rank_scores`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per strategy (index ``strategy``), best mean first: ``mean``; ``low``,
        ``high`` (the interval of the mean, simultaneous over the random strategies;
        equal to ``mean`` for an exact one); ``tier`` (letters: strategies sharing a
        letter cannot be told apart); ``exact`` (bool: the mean is exact); ``games``
        (int: games behind the mean, 0 for an exact mean).
    pairs : pandas.DataFrame
        One row per pair (``first`` ranked above ``second``): ``difference`` (first −
        second), ``low``, ``high`` (simultaneous interval), ``p_adjusted`` (Holm),
        ``significant`` (bool), ``exact`` (bool: both means exact, no uncertainty),
        ``games`` (int).
    alpha : float
        Family-wise error.
    procedure : str
        :data:`PROCEDURE`.
    guarantee : str
        The guarantee, in one sentence.
    games : int
        Games per random strategy (0 when every strategy is exact).
    """

    table: pd.DataFrame
    pairs: pd.DataFrame
    alpha: float
    procedure: str
    guarantee: str
    games: int

    @property
    def tested_pairs(self) -> int:
        """Pairs with uncertainty (the family the error α is spent on)."""
        return int((~self.pairs["exact"]).sum())

    def to_dict(self) -> dict:
        """JSON-ready: ``table`` and ``pairs`` as lists of records, and the scalars."""
        return {
            "alpha": self.alpha,
            "procedure": self.procedure,
            "guarantee": self.guarantee,
            "games": self.games,
            "table": _records(self.table.reset_index()),
            "pairs": _records(self.pairs),
        }


def rank_scores(
    scores: Mapping[str, np.ndarray],
    exact_means: Mapping[str, float] | None = None,
    alpha: float = 0.05,
) -> RankingResult:
    """Rank strategies from their per-game scores on common random numbers.

    Parameters
    ----------
    scores : mapping of str to array
        Per-game scores of each random strategy, all of the same length: entry ``g`` of
        every array is game ``g`` on the same dice.
    exact_means : mapping of str to float, optional
        Exact mean of each deterministic strategy (its scores, if also given, are not
        used).
    alpha : float
        Family-wise error, in (0, 1).

    Returns
    -------
    RankingResult

    Raises
    ------
    SelectionError
        Fewer than two strategies, arrays of different lengths or fewer than 2 games,
        scores that are not finite, or ``alpha`` outside (0, 1).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> luck = rng.normal(250, 60, 1000)
    >>> res = rank_scores({"a": luck + 5, "b": luck + rng.normal(0, 1, 1000)}, {"c": 240.0})
    >>> list(res.table.index), list(res.table["tier"])
    (['a', 'b', 'c'], ['a', 'b', 'c'])
    """
    exact = {str(k): float(v) for k, v in (exact_means or {}).items()}
    data = _check(scores, exact, alpha)
    games = len(next(iter(data.values()))) if data else 0
    means = {**{s: float(x.mean()) for s, x in data.items()}, **exact}
    order = sorted(means, key=lambda s: -means[s])
    pairs = _pairs(order, means, data, exact, alpha)
    table = _table(order, means, data, exact, alpha)
    significant = pairs["significant"].to_numpy()
    different = zip(pairs["first"][significant], pairs["second"][significant], strict=True)
    tiers = letter_display(order, list(different))
    table.insert(3, "tier", [tiers[s] for s in order])
    return RankingResult(
        table=table,
        pairs=pairs,
        alpha=float(alpha),
        procedure=PROCEDURE,
        guarantee=guarantee(alpha, int((~pairs["exact"]).sum()), len(exact)),
        games=games,
    )


def guarantee(alpha: float, tested: int, exact: int) -> str:
    """The one-sentence guarantee of a ranking with ``tested`` pairs under uncertainty
    and ``exact`` deterministic strategies."""
    if tested == 0:
        return "Every strategy is deterministic: the order is certain (exact means, no error)."
    level = f"{1 - alpha:.3g}"
    text = (
        f"With probability at least {level}, no two strategies of equal mean are declared "
        f"different (Holm's family-wise error α = {alpha:.3g} over {_pairs_count(tested)}) "
        f"and the {_pairs_count(tested, 'interval')} of the differences cover their true "
        "values together (Bonferroni)"
    )
    if exact > 1:
        text += "; the order of the deterministic strategies is certain (exact means)"
    return text + "."


def _pairs_count(n: int, noun: str = "pair") -> str:
    """``"1 pair"``, ``"3 pairs"``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values (capped at 1), in the order given."""
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def _check(scores, exact: dict, alpha: float) -> dict[str, np.ndarray]:
    """The random strategies' scores as float arrays, after the checks of :func:`rank_scores`."""
    if not 0 < alpha < 1:
        raise SelectionError(f"alpha must be in (0, 1), got {alpha}")
    data = {str(s): np.asarray(x, dtype=np.float64) for s, x in scores.items() if s not in exact}
    if len(data) + len(exact) < 2:
        raise SelectionError(f"a ranking needs at least 2 strategies, got {len(data) + len(exact)}")
    lengths = {len(x) for x in data.values()}
    if len(lengths) > 1:
        raise SelectionError(
            f"paired scores need as many games each, got lengths {sorted(lengths)}"
        )
    if data and (min(lengths) < 2 or any(x.ndim != 1 for x in data.values())):
        raise SelectionError("scores must be one array of at least 2 games per strategy")
    if (
        not all(np.isfinite(x).all() for x in data.values())
        or not np.isfinite(list(exact.values())).all()
    ):
        raise SelectionError("scores and exact means must be finite")
    return data


def _pairs(order, means, data, exact, alpha) -> pd.DataFrame:
    """One row per pair in rank order, with Holm's decisions and Bonferroni's intervals."""
    pairs = list(combinations(order, 2))
    diff = np.array([means[a] - means[b] for a, b in pairs])
    certain = np.array([a in exact and b in exact for a, b in pairs], dtype=bool)
    se, p, games = np.zeros(len(pairs)), np.ones(len(pairs)), np.zeros(len(pairs), np.int64)
    for n, (a, b) in enumerate(pairs):
        if certain[n]:
            p[n] = 0.0 if diff[n] != 0 else 1.0
            continue
        x = _difference_games(a, b, data, exact)
        games[n] = len(x)
        se[n] = float(x.std(ddof=1)) / np.sqrt(len(x))
        if se[n] > 0:
            p[n] = 2 * stats.t.sf(abs(diff[n]) / se[n], len(x) - 1)
        else:  # every game gave the same difference
            p[n] = 0.0 if diff[n] != 0 else 1.0
    tested = ~certain
    m = int(tested.sum())
    adjusted = p.copy()
    if m:
        adjusted[tested] = holm(p[tested])
    half = np.zeros(len(pairs))
    if m:
        half[tested] = _critical(alpha / (2 * m), games[tested]) * se[tested]
    return pd.DataFrame(
        {
            "first": [a for a, _ in pairs],
            "second": [b for _, b in pairs],
            "difference": diff,
            "low": diff - half,
            "high": diff + half,
            "p_adjusted": adjusted,
            "significant": np.where(tested, adjusted < alpha, diff != 0).astype(bool),
            "exact": certain,
            "games": games,
        }
    )


def _difference_games(first, second, data, exact) -> np.ndarray:
    """Per-game values whose mean estimates ``μ_first − μ_second``, up to an exact shift:
    the paired differences, or the random strategy's games (sign-adjusted)."""
    if first in exact:
        return -data[second]
    if second in exact:
        return data[first]
    return data[first] - data[second]


def _critical(tail: float, games) -> np.ndarray:
    """The Student t quantile ``1 − tail`` with ``games − 1`` degrees of freedom (elementwise)."""
    df = np.maximum(np.asarray(games, dtype=np.float64) - 1, 1)
    return stats.t.isf(tail, df)


def _table(order, means, data, exact, alpha) -> pd.DataFrame:
    """Mean and simultaneous interval of each strategy (Bonferroni over the random ones)."""
    r = len(data)
    mean = np.array([means[s] for s in order])
    half = np.zeros(len(order))
    games = np.zeros(len(order), dtype=np.int64)
    for n, s in enumerate(order):
        if s not in exact:
            x = data[s]
            games[n] = len(x)
            half[n] = float(_critical(alpha / (2 * r), len(x))) * x.std(ddof=1) / np.sqrt(len(x))
    table = pd.DataFrame(
        {
            "mean": mean,
            "low": mean - half,
            "high": mean + half,
            "exact": np.array([s in exact for s in order], dtype=bool),
            "games": games,
        },
        index=pd.Index(order, name="strategy"),
    )
    return table


def _records(frame: pd.DataFrame) -> list[dict]:
    """Rows as dicts of plain Python values (JSON-ready)."""
    return [
        {k: (v.item() if isinstance(v, np.generic) else v) for k, v in row.items()}
        for row in frame.to_dict(orient="records")
    ]
