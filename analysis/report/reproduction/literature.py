"""The built-in strategies' own published figures (their ``references``) and ours.

Every quantity a source published for a built-in (:func:`published_quantities`), our value
of it (:func:`our_quantity`) and the documented gaps (:func:`documented_gaps`), which the
literature test checks and the reproduction shows; :func:`references` and :func:`status_of`
give the reproduction's tables their rows' strategies and status.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np

from yahtzee_sim.analysis.report import exact_cache
from yahtzee_sim.analysis.report.reproduction.papers import DEFAULT_GAMES
from yahtzee_sim.engine.strategy import Gap, Reference
from yahtzee_sim.game.rules import get_rules

#: Seed of our simulated figures (the sources' sample extremes, random strategies).
LITERATURE_SEED = 2026


def references(source_prefix: str):
    """``(sid, reference)`` of every latest strategy citing ``source_prefix``."""
    from yahtzee_sim.strategies import strategy_class, strategy_ids

    for sid in strategy_ids():
        for ref in strategy_class(sid).references:
            if ref.source.startswith(source_prefix):
                yield sid, ref


def status_of(ref: Reference, quantity: str) -> tuple[str, str]:
    """``(status, note)`` of a row showing ``quantity`` of ``ref``: a documented gap and
    its reason, or agreement."""
    gap = ref.gap(quantity)
    if gap is not None:
        return "gap", gap.reason
    return "agrees", ref.note if quantity == "mean" else ""


@dataclass(frozen=True)
class Published:
    """One quantity a source published for a strategy (a row of the literature test).

    Attributes
    ----------
    strategy : str
        The strategy id (versioned for an older version: ``"glenn-2007-rules-v1"``).
    ref : Reference
        The strategy's reference holding the quantity.
    quantity : str
        ``"mean"``, ``"sd"`` or a key of ``ref.stats``.
    """

    strategy: str
    ref: Reference
    quantity: str

    @property
    def paper(self) -> float:
        """The published value."""
        return self.ref.quantities()[self.quantity]

    @property
    def gap(self) -> Gap | None:
        """The documented gap, or ``None`` when ours agrees."""
        return self.ref.gap(self.quantity)

    @property
    def sd(self) -> float:
        """Our SD, for the sampling error of a mean (the paper's when it gives one)."""
        if self.ref.sd is not None:
            return self.ref.sd
        return our_quantity(replace(self, quantity="sd"))[0]


def _builtin_references():
    """``(id, reference)`` of every built-in version: the latest by its bare id, older
    versions by their versioned id."""
    from yahtzee_sim.strategies import strategy_class, strategy_ids

    latest = {strategy_class(sid) for sid in strategy_ids()}
    ids = strategy_ids() + [
        vid for vid in strategy_ids(versioned=True) if strategy_class(vid) not in latest
    ]
    return [(sid, ref) for sid in ids for ref in strategy_class(sid).references]


def published_quantities(references=None) -> list[Published]:
    """Every quantity of every reference of the built-ins (or of ``references``, pairs of
    ``(strategy id, Reference)``), in order."""
    refs = _builtin_references() if references is None else references
    return [Published(sid, ref, quantity) for sid, ref in refs for quantity in ref.quantities()]


def documented_gaps() -> list[dict]:
    """The built-ins' documented gaps: ``strategy, source, rules, quantity, paper, ours, gap,
    reason`` (ours as recorded; ``yahtzee-sim reproduce`` recomputes it)."""
    return [
        {
            "strategy": q.strategy,
            "source": q.ref.source,
            "rules": q.ref.rules,
            "quantity": q.quantity,
            "paper": q.paper,
            "ours": q.gap.ours,
            "gap": q.gap.ours - q.paper,
            "reason": q.gap.reason,
        }
        for q in published_quantities()
        if q.gap is not None
    ]


@functools.cache
def _literature_exact(sid: str, rules: str, law: bool) -> dict:
    """The exact summary (``law`` False: the moments alone, without the pmf's percentiles,
    minimum and maximum)."""
    if law:
        return exact_cache.exact_law(sid, get_rules(rules)).to_dict()
    return exact_cache.exact_moments(sid, get_rules(rules)).to_dict()


@functools.lru_cache(maxsize=8)
def _literature_sample(sid: str, rules: str, games: int) -> tuple[np.ndarray, dict]:
    from yahtzee_sim.engine.simulate import simulate

    res = simulate(sid, games, seed=LITERATURE_SEED, rules=rules, n_jobs=1, progress=False)
    return res.total, res.summary()


def our_quantity(q: Published) -> tuple[float, int | None]:
    """Our value of a published quantity and the games it took (``None``: exact).

    Exact for a deterministic strategy (the optimal expected score from the value table);
    the sample minimum and maximum from as many simulated games as the source played;
    the figures of a random strategy from at least :data:`DEFAULT_GAMES` simulated games.
    Simulations use seed :data:`LITERATURE_SEED`.
    """
    from yahtzee_sim.engine.registry import strategy_class
    from yahtzee_sim.solving.solver import value_table

    ref, key = q.ref, q.quantity
    if q.strategy == "optimal" and ref.sd is None and key == "mean":
        return value_table(get_rules(ref.rules)).expected_value(), None
    if key in ("min", "max") and ref.n_games:
        total, _ = _literature_sample(q.strategy, ref.rules, ref.n_games)
        return float(total.min() if key == "min" else total.max()), ref.n_games
    if strategy_class(q.strategy).capabilities.deterministic:
        summary, games = _literature_exact(q.strategy, ref.rules, law=False), None
        if summary.get(key) is None:  # a percentile, the minimum or maximum: the law's
            summary = _literature_exact(q.strategy, ref.rules, law=True)
    else:
        games = max(DEFAULT_GAMES, ref.n_games or 0)
        summary = _literature_sample(q.strategy, ref.rules, games)[1]
    value = summary[key] if key in summary else summary["percentiles"][key]
    return float(value), games
