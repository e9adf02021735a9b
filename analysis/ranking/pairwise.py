"""A full ranking of strategies: every pair compared, simultaneous intervals, tiers.

Procedure (:data:`PROCEDURE`): for every pair of strategies, the difference of their
means. Two random strategies are compared on their paired games (common random numbers:
game ``g`` of both used the same dice), by the paired t statistic of the per-game
differences; a deterministic strategy enters with its exact mean, so a pair of one
deterministic and one random strategy is a one-sample t on the random one's games, and
a pair of two deterministic strategies is their exact difference (no uncertainty, not
in the family). Over the ``m`` pairs with uncertainty:

* simultaneous intervals by Bonferroni: each pair's t interval at level ``1 − α/m``, so
  that with probability at least ``1 − α`` the ``m`` intervals cover their true
  differences together;
* decisions read off those intervals: a pair is declared different exactly when its
  interval excludes 0. Whenever every interval covers its true difference, no pair of
  equal means is declared different and no pair declared different is in the wrong
  order; so one event of probability at least ``1 − α`` holds the intervals and the
  decisions together (:func:`guarantee` states it in one sentence). The adjusted p-value
  ``min(1, m·p)`` is below α exactly when the interval excludes 0.

The t statistics rest on the central limit theorem: game scores are bounded, so a few
hundred games make them close to normal (for normal scores each t interval's level is
exact). Tiers
are the compact letter display
(:func:`~yahtzee_sim.analysis.ranking.letters.letter_display`) of the decisions.
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
PROCEDURE = (
    "paired t intervals of the differences, simultaneous by Bonferroni; a pair is declared "
    "different when its interval excludes 0"
)


@dataclass(eq=False)
class RankingResult:
    """A full ranking with simultaneous intervals (:func:`rank_scores`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per strategy (index ``strategy``), best mean first: ``mean``; ``low``,
        ``high`` (the interval of the mean, Bonferroni-simultaneous over the random
        strategies at level 1 − α, a statement of its own; equal to ``mean`` for an exact
        one); ``tier`` (letters: strategies sharing a letter cannot be told apart);
        ``exact`` (bool: the mean is exact); ``games`` (int: games behind the mean, 0 for
        an exact mean); ``behind``, ``behind_low``, ``behind_high`` (the best mean minus
        this one, and its simultaneous interval: the row of the pair (best, this) in
        ``pairs``; NaN in the best's row).
    pairs : pandas.DataFrame
        One row per pair (``first`` ranked above ``second``): ``difference`` (first −
        second), ``low``, ``high`` (simultaneous interval), ``p_adjusted`` (Bonferroni:
        ``min(1, m·p)``), ``significant`` (bool: the interval excludes 0), ``exact``
        (bool: both means exact, no uncertainty), ``games`` (int).
    alpha : float
        Family-wise error: 1 − α is the level of :attr:`guarantee`.
    procedure : str
        :data:`PROCEDURE`.
    guarantee : str
        The guarantee, in one sentence (:func:`guarantee`).
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
    columns = _pairs(order, means, data, exact, alpha)
    pairs = pd.DataFrame(columns)
    declared = columns["significant"]
    different = zip(columns["first"][declared], columns["second"][declared], strict=True)
    tiers = letter_display(order, list(different))
    table = _table(order, means, data, exact, alpha, [tiers[s] for s in order], columns)
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
    and ``exact`` deterministic strategies: the sentence every output of the ranking
    prints (terminal, report, LaTeX table, methods paragraph).

    Examples
    --------
    >>> guarantee(0.05, 1, 0)[:64]
    'With probability at least 0.95 (up to the normal approximation o'
    """
    if tested == 0:
        return "Every strategy is deterministic: the order is certain (exact means, no error)."
    cover = (
        "the interval of the difference covers its true value"
        if tested == 1
        else f"all {tested} intervals of the differences cover their true values together"
    )
    text = (
        f"With probability at least {1 - alpha:.3g} (up to the normal approximation of the "
        f"t statistics), {cover} (Bonferroni), so no two strategies of equal mean are "
        "declared different and no pair declared different is in the wrong order, since a "
        "pair is declared different exactly when its interval excludes 0"
    )
    if exact > 1:
        text += "; the order of the deterministic strategies among themselves is certain"
    return text + "."


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


def _pairs(order, means, data, exact, alpha) -> dict[str, np.ndarray]:
    """The columns of the pairs in rank order: Bonferroni's simultaneous intervals and
    the decisions read off them."""
    pairs = list(combinations(order, 2))
    diff = np.array([means[a] - means[b] for a, b in pairs])
    certain = np.array([a in exact and b in exact for a, b in pairs], dtype=bool)
    se, games = np.zeros(len(pairs)), np.zeros(len(pairs), np.int64)
    for n, (a, b) in enumerate(pairs):
        if not certain[n]:
            x = _difference_games(a, b, data, exact)
            games[n], se[n] = len(x), float(x.std(ddof=1)) / np.sqrt(len(x))
    tested = ~certain
    m = int(tested.sum())
    spread = se > 0  # else every game gave the same difference (or the pair is exact)
    p = np.where(diff != 0, 0.0, 1.0)
    half = np.zeros(len(pairs))
    if spread.any():
        df = games[spread] - 1
        p[spread] = 2 * stats.t.sf(np.abs(diff[spread]) / se[spread], df)
        half[spread] = stats.t.isf(alpha / (2 * m), df) * se[spread]
    low, high = diff - half, diff + half
    return {
        "first": np.array([a for a, _ in pairs], dtype=object),
        "second": np.array([b for _, b in pairs], dtype=object),
        "difference": diff,
        "low": low,
        "high": high,
        "p_adjusted": np.where(tested, np.minimum(m * p, 1.0), p),
        "significant": (low > 0) | (high < 0),
        "exact": certain,
        "games": games,
    }


def _difference_games(first, second, data, exact) -> np.ndarray:
    """Per-game values whose mean estimates ``μ_first − μ_second``, up to an exact shift:
    the paired differences, or the random strategy's games (sign-adjusted)."""
    if first in exact:
        return -data[second]
    if second in exact:
        return data[first]
    return data[first] - data[second]


def _table(order, means, data, exact, alpha, tiers, pairs) -> pd.DataFrame:
    """Mean and simultaneous interval of each strategy (Bonferroni over the random ones),
    its tier, and the difference to the best with its interval (from ``pairs``)."""
    r = len(data)
    mean = np.array([means[s] for s in order])
    games = np.array([0 if s in exact else len(data[s]) for s in order], dtype=np.int64)
    sd = np.array([0.0 if s in exact else float(data[s].std(ddof=1)) for s in order])
    half = np.zeros(len(order))
    if r:
        random = games > 0
        half[random] = stats.t.isf(alpha / (2 * r), games[random] - 1) * sd[random]
        half[random] /= np.sqrt(games[random])
    behind = {k: np.full(len(order), np.nan) for k in ("difference", "low", "high")}
    for key in behind:  # the pairs (best, s) come first, in rank order
        behind[key][1:] = pairs[key][: len(order) - 1]
    return pd.DataFrame(
        {
            "mean": mean,
            "low": mean - half,
            "high": mean + half,
            "tier": tiers,
            "exact": np.array([s in exact for s in order], dtype=bool),
            "games": games,
            "behind": behind["difference"],
            "behind_low": behind["low"],
            "behind_high": behind["high"],
        },
        index=pd.Index(order, name="strategy"),
    )


def _records(frame: pd.DataFrame) -> list[dict]:
    """Rows as dicts of plain Python values (JSON-ready: NaN, a cell that does not apply,
    as ``None``)."""
    return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def _plain(value):
    """A NumPy scalar as the Python value, NaN as ``None``."""
    value = value.item() if isinstance(value, np.generic) else value
    return None if isinstance(value, float) and value != value else value
