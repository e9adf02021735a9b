"""The default report's exact results ship with the package: every deterministic default
strategy's record is there, is read where the cache has none, is refused when damaged,
and equals a fresh evaluation bit for bit."""

from __future__ import annotations

import json

import numpy as np
import pytest

from yahtzee_sim.analysis.report import exact_cache, shipped_results
from yahtzee_sim.analysis.report.plan import is_deterministic
from yahtzee_sim.analysis.report.tables import REFERENCE
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.strategies import default_strategy_ids

from helpers import exact_law, regret_law

RULES = shipped_results.SHIPPED_REPORT_RULES[0]
TOP = shipped_results.SHIPPED_TOP
SHIPPED = sorted(  # the deterministic built-ins of the default report
    s
    for s in {*default_strategy_ids(), REFERENCE}
    if is_deterministic(s) and exact_cache.identity_key(s, get_rules(RULES), TOP) is not None
)


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path / "cache"))


def test_every_deterministic_default_strategy_ships_and_nothing_else(empty_cache):
    assert shipped_results.SHIPPED_REPORT_RULES == ("yahtzee",)  # (the cases below: RULES)
    rules = get_rules(RULES)
    keys = {exact_cache.identity_key(s, rules, TOP) for s in SHIPPED}
    assert set(shipped_results.records()) == keys
    for sid in SHIPPED:
        assert exact_cache.available(sid, rules, TOP), sid
        exact, regret = exact_cache.lookup(sid, rules, TOP)
        assert exact.strategy == sid and exact.meta["shipped"] and exact.meta["cached"]
        assert abs(exact.pmf.sum() - 1) < 1e-12
        assert (regret is None) == (sid == REFERENCE)
    # another top, other rules: not shipped (evaluated, then cached)
    assert not exact_cache.available("greedy", rules, TOP + 1)
    assert not exact_cache.available("greedy", get_rules("yatzy"), TOP)


def test_the_cache_comes_before_the_shipped_record(empty_cache):
    rules = get_rules(RULES)
    exact, regret = exact_cache.lookup("greedy", rules, TOP)
    exact_cache.save(exact_cache.result_key("greedy", rules, TOP), exact, regret)
    again, _ = exact_cache.lookup("greedy", rules, TOP)
    assert "shipped" not in again.meta and again.meta["cached"]
    assert np.array_equal(again.pmf, exact.pmf)


def test_a_damaged_record_is_refused(empty_cache, monkeypatch):
    rules = get_rules(RULES)
    key = exact_cache.identity_key("greedy", rules, TOP)
    intact = shipped_results.records()[key]
    record = dict(intact)
    record["pmf"] = [*record["pmf"][:-1], record["pmf"][-1] + 1e-3]
    monkeypatch.setattr(shipped_results, "records", lambda: {key: record})
    assert shipped_results.record(key) is None
    assert exact_cache.lookup("greedy", rules, TOP) is None
    assert not exact_cache.available("greedy", rules, TOP)
    broken = {k: v for k, v in intact.items() if k != "exact"}
    monkeypatch.setattr(shipped_results, "records", lambda: {key: broken})
    assert exact_cache.available("greedy", rules, TOP)  # its pmf is intact, but:
    assert exact_cache.lookup("greedy", rules, TOP) is None  # no law: evaluated instead


def test_a_missing_or_foreign_file_ships_nothing(tmp_path):
    path = shipped_results.write_results_file({"k": {"pmf": []}}, tmp_path / "results.json.xz")
    assert shipped_results.read_results_file(path) == {"k": {"pmf": []}}
    assert shipped_results.read_results_file(tmp_path / "missing.json.xz") == {}
    path.write_bytes(b"not xz")
    assert shipped_results.read_results_file(path) == {}
    shipped_results.write_results_file([], path)  # not a mapping of records
    assert shipped_results.read_results_file(path) == {}


def test_writing_the_same_records_gives_the_same_bytes(tmp_path):
    found = shipped_results.records()
    a = shipped_results.write_results_file(found, tmp_path / "a.json.xz").read_bytes()
    b = shipped_results.write_results_file(dict(reversed(found.items())), tmp_path / "b.json.xz")
    assert a == b.read_bytes()
    c = shipped_results.write_results_file(found, tmp_path / "a.json.xz")  # the same records
    assert c.read_bytes() == a


def _text(part: dict | None) -> str:
    """As JSON, in its own order (a regret's losses by decision follow the turn)."""
    return json.dumps(part)


@pytest.mark.slow
@pytest.mark.parametrize("sid", SHIPPED)
def test_a_shipped_record_is_a_fresh_evaluation_bit_for_bit(sid):
    """After a change that moves a result, ``python tools/shipped_results.py`` writes
    them again."""
    rules = get_rules(RULES)
    record = shipped_results.record(exact_cache.identity_key(sid, rules, TOP))
    assert record is not None, f"{sid}: no record ships"
    if sid == REFERENCE:  # the report's reference: its law alone
        fresh = exact_cache.to_record(exact_law(sid, RULES), None)
        pmf = exact_law(sid, RULES).pmf
    else:
        exact, regret = regret_law(sid, RULES, TOP)
        fresh, pmf = exact_cache.to_record(exact, regret), exact.pmf
    for part in ("exact", "regret"):
        assert _text(record[part]) == _text(fresh[part]), (
            f"{sid} {part}: run python tools/shipped_results.py"
        )
    assert np.array_equal(np.asarray(record["pmf"]), pmf)
    assert record["pmf_sha256"] == shipped_results.pmf_digest(pmf)
