"""Every built-in strategy against the figures its sources published.

One parametrized test reads each strategy's ``references`` (the Axelrod model: the
strategy module says what its paper reports and how close we come). Exact values are
compared with exact evaluation; figures a source simulated are compared with a
simulation, allowing the sampling error of both sides on top of the documented
tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim import get_rules, simulate, simulate_aggregate
from yahtzee_sim.engine.strategy import Reference
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.solving.solver import value_table
from yahtzee_sim.strategies import Strategy, strategy_class, strategy_ids

OUR_GAMES = 50_000  # simulated games per figure a source simulated (more if it did)

CASES = [
    pytest.param(sid, ref, id=f"{sid}-{ref.rules}-{i}")
    for sid in strategy_ids()
    for i, ref in enumerate(strategy_class(sid).references)
]


def _ours(sid: str, ref: Reference) -> tuple[dict, int | None]:
    """Our summary on the source's rules and how many games it took (None: exact)."""
    cls = strategy_class(sid)
    if ref.n_games is None and sid == "optimal" and ref.sd is None:
        return {"mean": value_table(get_rules(ref.rules)).expected_value()}, None
    if ref.n_games is None:
        assert cls.deterministic, f"{sid}: an exact figure needs a deterministic strategy"
        return evaluate(sid, ref.rules, distribution=False).to_dict(), None
    games = max(OUR_GAMES, ref.n_games if ref.stats else 0)
    res = simulate_aggregate(sid, games, seed=2026, rules=ref.rules, n_jobs=1)
    return res.summary(), games


def _sampling_error(sd: float, ours: int | None, theirs: int | None) -> float:
    """4 standard errors of the difference of two means (0 for exact values)."""
    var = sum(sd * sd / n for n in (ours, theirs) if n)
    return 4.0 * float(np.sqrt(var))


def test_every_builtin_declares_its_card():
    for sid in strategy_ids():
        cls = strategy_class(sid)
        assert "references" in vars(cls), f"{sid} must declare its own references (or ())"
        assert cls.version is not None and isinstance(cls.in_all, bool)
        for ref in cls.references:
            assert cls.supports(get_rules(ref.rules)), f"{sid} cannot play {ref.rules}"


@pytest.mark.parametrize(("sid", "ref"), CASES)
def test_published_figures(sid, ref):
    ours, games = _ours(sid, ref)
    sd = ref.sd if ref.sd is not None else ours.get("sd", 0.0)
    slack = _sampling_error(sd, games, ref.n_games)
    assert abs(ours["mean"] - ref.mean) <= ref.tolerance + slack, (ours["mean"], ref)
    if ref.sd is not None:
        sd_tol = ref.tolerance if ref.sd_tolerance is None else ref.sd_tolerance
        assert abs(ours["sd"] - ref.sd) <= sd_tol + slack / 2, (ours["sd"], ref)
    for key, value in ref.stats.items():
        got = ours[key] if key in ours else ours["percentiles"][key]
        assert abs(got - value) <= ref.stats_tolerance[key], (key, got, ref)


def test_supports_and_refusals_are_declared():
    """Strategies written for the 13-box card say so, and refuse Yatzy in one line."""
    yatzy = get_rules("yatzy")
    card_only = [s for s in strategy_ids() if not strategy_class(s).supports(yatzy)]
    assert "glenn-heuristic" in card_only and "defensive" in card_only
    assert "greedy" not in card_only and "optimal" not in card_only
    for sid in card_only:
        with pytest.raises(ValueError, match="needs the 13 Yahtzee boxes") as info:
            simulate(sid, 5, rules=yatzy)
        assert "\n" not in str(info.value)
    assert Strategy.supports(yatzy)
