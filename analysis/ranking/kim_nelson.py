"""Kim & Nelson (2001) fully sequential indifference-zone selection (procedure KN, c = 1).

Source: S.-H. Kim and B. L. Nelson, "A fully sequential procedure for
indifference-zone selection in simulation", ACM TOMACS 11(3), 2001; used by
"Simulating Yahtzee" (§V.a, Tables 3, 6, 7) to pick the best Yahtzee strategy.

With k systems, first-stage size n0, indifference zone δ and error α::

    η  = ½ [(2α / (k−1))^(−2/(n0−1)) − 1]        h² = 2cη(n0 − 1)
    S²_il = sample variance of X_ij − X_lj over the first n0 observations
    W_il(r) = max(0, δ/(2cr) · (h² S²_il / δ² − r))

At every stage r ≥ n0, system i is eliminated when X̄_i(r) < X̄_l(r) − W_il(r) for
some surviving l; surviving systems then take one more observation each. The
procedure stops when at most m systems survive (when one stage would eliminate
more, the best of the beaten systems are kept so that exactly m win). Observations of different
systems at the same stage may be dependent (common random numbers): only the
pairwise variances of differences enter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from yahtzee_sim.errors import SelectionError


def kn_constants(alpha: float, k: int, n0: int, c: float = 1.0) -> tuple[float, float]:
    """``(η, h²)`` of procedure KN for ``k`` systems, first stage ``n0`` and error ``alpha``."""
    _check(alpha=alpha, k=k, n0=n0)
    eta = 0.5 * ((2 * alpha / (k - 1)) ** (-2.0 / (n0 - 1)) - 1.0)
    return eta, 2 * c * eta * (n0 - 1)


def _check(alpha, k, n0, delta=1.0, m=1) -> None:
    if not 0 < alpha < 1:
        raise SelectionError(f"alpha must be in (0, 1), got {alpha}")
    if k < 2:
        raise SelectionError(f"need at least 2 systems, got {k}")
    if n0 < 2:
        raise SelectionError(f"n0 must be >= 2, got {n0}")
    if not 0 < delta < float("inf"):
        raise SelectionError(f"delta must be a finite number > 0, got {delta}")
    if not 1 <= m < k:
        raise SelectionError(f"m must be in 1..{k - 1} for {k} systems, got {m}")


@dataclass
class KNResult:
    """Outcome of a selection.

    Attributes
    ----------
    winners : list of str
        Surviving systems (at most ``m``, more only for exact ties), best mean first.
    observations : dict of str to int
        Observations each system took (its stage at elimination, or the final stage).
    eliminated : list of (str, int)
        Systems in elimination order with the stage ``r`` at which they were eliminated.
    trace : pandas.DataFrame
        ``stage, system, mean`` of every surviving system at every stage (for plots).
    means : dict of str to float
        Sample means over each system's observations.
    total_observations : int
        Observations drawn (drawn ahead in blocks, so possibly more than used).
    parameters : dict
    data : ndarray (k, n)
        Every drawn observation (NaN where a system stopped before), original sign.
    """

    winners: list[str]
    observations: dict[str, int]
    eliminated: list[tuple[str, int]]
    trace: pd.DataFrame
    means: dict[str, float]
    total_observations: int
    parameters: dict = field(default_factory=dict)
    data: np.ndarray | None = None


def kim_nelson(
    draw: Callable[[np.ndarray, int, int], np.ndarray],
    names: Sequence[str],
    delta: float,
    alpha: float = 0.05,
    n0: int = 20,
    m: int = 1,
    maximize: bool = True,
    max_stages: int = 10_000_000,
) -> KNResult:
    """Run procedure KN on systems whose observations come from ``draw``.

    Parameters
    ----------
    draw : callable(systems, start, stop) -> ndarray
        Observations ``start .. stop-1`` of the given systems (indices into
        ``names``), shape ``(len(systems), stop - start)``. Observation ``j`` of
        different systems may share random numbers (CRN).
    names : sequence of str
    delta : float
        Indifference zone: the smallest difference of means worth detecting.
    alpha : float
        1 − the guaranteed probability of correct selection.
    n0 : int
        First-stage sample size.
    m : int
        Stop when at most ``m`` systems survive.
    maximize : bool
        Select the largest mean (False: the smallest).
    max_stages : int
        Safety bound on the number of stages.
    """
    k = len(names)
    _check(alpha, k, n0, delta, m)
    eta, h2 = kn_constants(alpha, k, n0)
    store = _Observations(draw, k, 1.0 if maximize else -1.0)
    winners, obs_taken, eliminated, trace_rows = _stages(store, names, delta, h2, n0, m, max_stages)
    parameters = {"delta": delta, "alpha": alpha, "n0": n0, "m": m, "maximize": maximize}
    parameters |= {"eta": eta, "h2": h2, "c": 1}
    return _result(store, names, winners, obs_taken, eliminated, trace_rows, parameters)


def _stages(store, names, delta: float, h2: float, n0: int, m: int, max_stages: int):
    """The procedure's stages: ``(winners, observations per system, eliminated (system,
    stage) pairs, trace rows (stage, system, mean))``."""
    sign, k = store.sign, len(names)
    alive = np.arange(k)
    store.ensure(alive, n0)
    first = store.data[:, :n0]
    diff = first[:, None, :] - first[None, :, :]
    s2 = diff.var(axis=2, ddof=1)  # S²_il
    n_max = np.floor(h2 * s2 / delta**2)  # after this stage W_il = 0
    np.fill_diagonal(n_max, 0)
    sums = first.sum(axis=1)
    r = n0
    eliminated: list[tuple[str, int]] = []
    obs_taken = {}
    trace_rows: list[tuple[int, int, float]] = []
    block = n0
    while True:
        means = sums[alive] / r
        trace_rows.extend((r, int(i), float(sign * mu)) for i, mu in zip(alive, means, strict=True))
        losers = _losers(means, s2[np.ix_(alive, alive)], delta, h2, r, len(alive) - m)
        keep = np.ones(len(alive), dtype=bool)
        keep[losers] = False
        for i in alive[losers]:
            eliminated.append((names[i], r))
            obs_taken[names[i]] = r
        alive = alive[keep]
        if len(alive) <= m:
            break
        if r > n_max[np.ix_(alive, alive)].max() + 1 or r >= max_stages:
            break  # W = 0 for every pair left: only exact ties survive
        if r + 1 > store.drawn[alive].min():
            block = max(block, r // 2)
            store.ensure(alive, r + 1 + block)
        sums[alive] += store.data[alive, r]
        r += 1
    order = alive[np.argsort(-(sums[alive] / r))]
    for i in alive:
        obs_taken[names[i]] = r
    return [names[i] for i in order], obs_taken, eliminated, trace_rows


class _Observations:
    """The observations drawn so far, one row per system (times ``sign``: the procedure
    always maximizes), grown on demand."""

    def __init__(self, draw, k: int, sign: float) -> None:
        self.draw, self.sign = draw, sign
        self.data = np.empty((k, 0))
        self.drawn = np.zeros(k, dtype=np.int64)

    def ensure(self, systems: np.ndarray, stop: int) -> None:
        """Draw observations up to ``stop - 1`` of every system of ``systems``."""
        k = len(self.drawn)
        if stop > self.data.shape[1]:
            grown = np.full((k, max(stop, 2 * self.data.shape[1])), np.nan)
            grown[:, : self.data.shape[1]] = self.data
            self.data = grown
        need = systems[self.drawn[systems] < stop]
        if len(need):
            start = int(self.drawn[need].min())
            obs = np.asarray(self.draw(need, start, stop), dtype=np.float64)
            if obs.shape != (len(need), stop - start):
                raise SelectionError(
                    f"draw returned shape {obs.shape}, expected {(len(need), stop - start)}"
                )
            self.data[need, start:stop] = self.sign * obs
            self.drawn[need] = stop


def _losers(means, s2, delta: float, h2: float, r: int, excess: int) -> np.ndarray:
    """Positions (in ``means``) of the systems eliminated at stage ``r``: those beaten by
    another by more than the allowance, the worst first, never more than ``excess`` (the
    best of the beaten is spared to keep ``m`` survivors)."""
    w = np.maximum(0.0, delta / (2 * r) * (h2 * s2 / delta**2 - r))
    beaten = means[:, None] < means[None, :] - w
    np.fill_diagonal(beaten, False)
    out = beaten.any(axis=1)
    if out.all():  # cannot happen (the sample best is never beaten); guard anyway
        out[np.argmax(means)] = False
    losers = np.flatnonzero(out)
    return losers[np.argsort(means[losers], kind="stable")][:excess]


def _result(store, names, winners, obs_taken, eliminated, trace_rows, parameters) -> KNResult:
    """The :class:`KNResult` of a finished procedure."""
    sign, data, drawn = store.sign, store.data, store.drawn
    trace = pd.DataFrame(trace_rows, columns=["stage", "system", "mean"])
    trace["system"] = [names[i] for i in trace["system"]]
    means = {n: float(sign * data[i, : obs_taken[n]].mean()) for i, n in enumerate(names)}
    return KNResult(
        winners=winners,
        observations={n: int(obs_taken[n]) for n in names},
        eliminated=eliminated,
        trace=trace,
        means=means,
        total_observations=int(drawn.sum()),
        parameters=parameters,
        data=sign * data[:, : int(drawn.max())],
    )
