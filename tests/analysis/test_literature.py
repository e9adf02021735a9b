"""Every built-in strategy against the figures its sources published.

Each strategy's ``references`` (the Axelrod model: the strategy module says what its paper
reports) list the published quantities; each one either agrees with the paper or is a
documented gap (:class:`~yahtzee_sim.engine.strategy.Gap`):

* ``test_figures_that_agree``: ours is within the paper's stated precision, or within
  :func:`~yahtzee_sim.engine.strategy.agreement_bound` (1 point; 1 percentage point for a
  rate), of the paper's figure, beyond the sampling error of both sides;
* ``test_documented_gaps``: ours equals the value the gap records (so a change shows up)
  and lies outside that bound (a gap that closes must move to the agreements).

Ours comes from :func:`yahtzee_sim.analysis.report.reproduction.literature.our_quantity`, as in
``yahtzee-sim reproduce``: exact for a deterministic strategy, the sample minimum and
maximum from as many simulated games as the source played (seed 2026).
"""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim import get_rules, simulate
from yahtzee_sim.analysis.report.reproduction.literature import (
    documented_gaps,
    our_quantity,
    published_quantities,
)
from yahtzee_sim.engine.strategy import Gap, Reference, agreement_bound
from yahtzee_sim.strategies import Strategy, strategy_class, strategy_ids

#: Our figures are exact or seeded: a documented gap's value holds to this precision.
GAP_PRECISION = 5e-4

AGREE = [
    pytest.param(q, id=f"{q.strategy}-{q.ref.rules}-{q.quantity}")
    for q in published_quantities()
    if q.gap is None
]
GAPS = [
    pytest.param(q, id=f"{q.strategy}-{q.ref.rules}-{q.quantity}")
    for q in published_quantities()
    if q.gap is not None
]


def _sampling_error(q, ours_games: int | None) -> float:
    """4 standard errors of the difference of the two figures (0 for exact ones): of a mean,
    of an SD (half), of a rate; none for sample extremes and percentiles."""
    inverse = sum(1 / n for n in (ours_games, q.ref.n_games) if n)
    if q.quantity in ("mean", "sd") and inverse:
        err = 4.0 * q.sd * float(np.sqrt(inverse))
        return err if q.quantity == "mean" else err / 2
    if q.quantity.endswith("_rate"):
        return 4.0 * float(np.sqrt(q.paper * (1 - q.paper) * inverse))
    return 0.0


def test_every_builtin_declares_its_card():
    for sid in strategy_ids(versioned=True):
        cls = strategy_class(sid)
        assert "references" in vars(cls), f"{sid} must declare its own references (or ())"
        assert cls.version is not None and isinstance(cls.in_all, bool)
        for ref in cls.references:
            assert cls.supports(get_rules(ref.rules)), f"{sid} cannot play {ref.rules}"


def test_no_tolerance_is_wider_than_agreement():
    """A tolerance is the paper's precision or the agreement bound, never an observed gap."""
    assert published_quantities(), "no published figure found"
    for q in published_quantities():
        assert q.ref.bound(q.quantity) <= agreement_bound(q.quantity), q
        if q.gap is not None:
            assert q.gap.reason.strip(), f"{q}: a gap says why"
    for sid in strategy_ids(versioned=True):
        for ref in strategy_class(sid).references:
            known = set(ref.quantities())
            assert {g.quantity for g in ref.gaps} <= known, (sid, ref.gaps)


def assert_agrees(q, ours: float, games: int | None) -> None:
    """Ours is within the reference's bound of the paper, beyond sampling error."""
    bound = q.ref.bound(q.quantity) + _sampling_error(q, games)
    assert abs(ours - q.paper) <= bound, (q, ours, bound)


def assert_documented_gap(q, ours: float, games: int | None) -> None:
    """Ours is the recorded value of the gap, and still outside agreement."""
    assert ours == pytest.approx(q.gap.ours, abs=GAP_PRECISION), (q, ours)
    bound = agreement_bound(q.quantity) + _sampling_error(q, games)
    assert abs(ours - q.paper) > bound, f"{q}: agrees now; move it to the agreements"


@pytest.mark.slow
@pytest.mark.parametrize("q", AGREE)
def test_figures_that_agree(q):
    assert_agrees(q, *our_quantity(q))


@pytest.mark.slow
@pytest.mark.parametrize("q", GAPS)
def test_documented_gaps(q):
    assert_documented_gap(q, *our_quantity(q))


def test_gaps_are_a_named_list_with_the_papers_value_ours_and_the_reason():
    gaps = documented_gaps()
    assert gaps and len(gaps) == len(GAPS)
    for row in gaps:
        assert row["paper"] is not None and row["ours"] is not None and row["reason"]
        assert row["gap"] == pytest.approx(row["ours"] - row["paper"])
    assert any(r["strategy"] == "glenn-rational-yahtzees" and r["quantity"] == "mean" for r in gaps)


@pytest.mark.parametrize(
    ("ours", "fails"),
    [(210.0, False), (210.01, True), (200.4, True)],
    ids=["recorded", "moved", "closed"],
)
def test_the_gap_check_fails_when_ours_moves_or_reaches_the_paper(ours, fails):
    ref = Reference("a paper", "yahtzee", mean=200.0, gaps=(Gap("mean", 210.0, "why"),))
    (q,) = published_quantities([("x", ref)])
    if fails:
        with pytest.raises(AssertionError):
            assert_documented_gap(q, ours, None)
    else:
        assert_documented_gap(q, ours, None)


@pytest.mark.parametrize(("ours", "fails"), [(200.9, False), (201.1, True)])
def test_the_agreement_check_fails_a_point_away(ours, fails):
    (q,) = published_quantities([("x", Reference("a paper", "yahtzee", mean=200.0, tolerance=1))])
    if fails:
        with pytest.raises(AssertionError):
            assert_agrees(q, ours, None)
    else:
        assert_agrees(q, ours, None)


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
