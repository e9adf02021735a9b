"""One test class per strategy family, on a shared base (the Axelrod ``TestPlayer`` model).

Each class declares, in one place, its family's ids (every version), the capabilities the
strategies must declare (deterministic, uses the score so far, reads a solved table, the
decision key of exact pair evaluation; and part of ``all``), the rules they need and the
sources of their published figures. The figures themselves live with the
strategies (``references``: agreements and documented gaps) and are checked by
``tests/analysis/test_literature.py``; the conformance checks run in
``tests/checks/test_conformance.py``.
Behaviour particular to a family is tested in its class.
"""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim import StrategyError, get_rules, simulate
from yahtzee_sim.strategies import get_strategy, strategy_class, strategy_ids

from helpers import view_for

YAHTZEE_BOXES = "the 13 Yahtzee boxes with five six-sided dice"
FIXED_ROLLS = "games without saved rolls"
SY = '"Simulating Yahtzee"'


class FamilyTest:
    """The shared base: what every family declares, checked the same way."""

    #: Registry ids of the family, every version (``"greedy-v1"``...).
    ids: tuple[str, ...] = ()
    #: The capabilities each strategy of the family declares.
    deterministic: bool = True
    uses_total: bool = False
    solved_table: bool = False
    decision_key: str = "full"
    in_all: bool = True
    #: What the family needs of the rules (``""``: any rule set).
    requires: str = ""
    #: Sources of the family's published figures (prefixes; empty: no published figures).
    sources: tuple[str, ...] = ()

    def test_ids_are_registered(self):
        assert self.ids, "a family declares its ids"
        assert set(self.ids) <= set(strategy_ids(versioned=True))

    def test_classifier(self):
        for sid in self.ids:
            caps = strategy_class(sid).capabilities
            declared = (caps.deterministic, caps.uses_total, caps.solved_table, caps.decision_key)
            expected = (self.deterministic, self.uses_total, self.solved_table, self.decision_key)
            assert declared == expected, sid
            assert strategy_class(sid).in_all == self.in_all, sid

    def test_flat_attributes_mirror_the_capabilities(self):
        for sid in self.ids:
            cls = strategy_class(sid)
            caps = cls.capabilities
            assert (cls.deterministic, cls.uses_total) == (caps.deterministic, caps.uses_total)
            assert cls.requires == caps.needs, sid

    def test_rules_it_needs(self):
        for sid in self.ids:
            cls = strategy_class(sid)
            assert cls.requires.startswith(self.requires), sid
            if self.requires == YAHTZEE_BOXES:
                assert cls.supports(get_rules("yahtzee")) and not cls.supports(get_rules("yatzy"))
            if self.requires == FIXED_ROLLS:
                assert cls.supports(get_rules("yatzy")) and not cls.supports(
                    get_rules("maxi-yatzy")
                )
                assert cls.supports(get_rules("maxi-yatzy-3"))

    def test_published_figures_cite_the_family_sources(self):
        for sid in self.ids:
            refs = strategy_class(sid).references
            if not self.sources:
                assert refs == (), sid
                continue
            assert refs, f"{sid}: a family with sources publishes figures"
            for ref in refs:
                assert ref.source.startswith(self.sources), (sid, ref.source)


def _families() -> list[type[FamilyTest]]:
    return [cls for cls in FamilyTest.__subclasses__() if cls.__name__.startswith("Test")]


def test_every_registered_strategy_has_one_family():
    declared = [sid for fam in _families() for sid in fam.ids]
    assert len(declared) == len(set(declared)), "a strategy in two families"
    assert sorted(declared) == sorted(strategy_ids(versioned=True))


# ------------------------------------------------------------------ the families
class TestRandom(FamilyTest):
    ids = ("random-v1", "tiered-random-v1")
    deterministic = False
    sources = (SY,)

    def test_the_random_stream_changes_the_games(self):
        a = simulate("random", 200, seed=1).total
        assert not np.array_equal(a, simulate("random", 200, seed=2).total)


class TestGreedy(FamilyTest):
    ids = ("greedy-v1",)
    sources = (SY,)


class TestRuleBased(FamilyTest):
    ids = (
        "glenn-2007-rules-v1",
        "glenn-2007-rules-v2",
        "prioritize-upper-v1",
        "prioritize-upper-v2",
        "prioritize-yahtzee-v1",
        "prioritize-yahtzee-v2",
    )
    requires = YAHTZEE_BOXES
    sources = (SY,)

    def test_the_latest_plays_as_the_papers_program(self):
        for sid in ("glenn-2007-rules", "prioritize-upper", "prioritize-yahtzee"):
            assert strategy_class(sid).version == 2


class TestDefensive(FamilyTest):
    ids = ("defensive-v1",)
    requires = YAHTZEE_BOXES
    sources = ("Hellström & Jaccopucci 2015",)


def _box(sid, dice, **kw):
    s = get_strategy(sid)
    v = view_for("yahtzee-free-joker", dice, **kw)
    return v.rules.box_names[s.box(v)[0]]


def _kept(sid, dice, **kw):
    s = get_strategy(sid)
    v = view_for("yahtzee-free-joker", dice, rolls_left=2, **kw)
    return v.tables.faces_from_counts(s.keep(v)[0])


class TestGlenn2006Estimates(FamilyTest):
    """Glenn 2006 §7: each turn optimal against an estimate E' of the next state's value."""

    ids = ("glenn-greedy-v1", "glenn-heuristic-v1", "glenn-better-heuristic-v1")
    requires = YAHTZEE_BOXES
    sources = ("Glenn 2006",)

    def test_classifier(self):  # the heuristics read optimal play's tables; greedy (E' = 0) not
        tables = {sid: strategy_class(sid).capabilities.solved_table for sid in self.ids}
        assert tables == {
            "glenn-greedy-v1": False,
            "glenn-heuristic-v1": True,
            "glenn-better-heuristic-v1": True,
        }
        for sid in self.ids:
            caps = strategy_class(sid).capabilities
            assert (caps.deterministic, caps.uses_total, caps.decision_key) == (True, False, "full")

    @pytest.mark.slow
    def test_glenn_greedy_prefers_harder_box_on_ties(self):
        assert _box("glenn-greedy", (3, 3, 3, 3, 5)) == "four_of_a_kind"  # 3K = 4K = Chance = 17
        assert _box("glenn-greedy", (2, 2, 3, 3, 3), used=("full_house",)) == "three_of_a_kind"

    @pytest.mark.slow
    def test_heuristics_take_the_large_straight(self):
        for sid in ("glenn-heuristic", "glenn-better-heuristic"):
            assert _box(sid, (1, 2, 3, 4, 5)) == "large_straight"

    @pytest.mark.slow
    def test_order_of_table_3_is_reproduced(self):
        means = {
            sid: simulate(sid, 20_000, seed=2, n_jobs=1).summary()["mean"]
            for sid in ("glenn-greedy", "glenn-heuristic", "glenn-better-heuristic", "optimal")
        }
        assert means["glenn-greedy"] < means["glenn-heuristic"] < means["glenn-better-heuristic"]
        assert means["glenn-better-heuristic"] < means["optimal"]

    def test_needs_yahtzee_boxes(self):
        with pytest.raises(StrategyError, match="13 Yahtzee boxes"):
            simulate("glenn-heuristic", 10, rules="yatzy")

    def test_box_moments_are_kept_in_the_table_cache(self, tmp_path, monkeypatch):
        """The heuristics' box moments come from a simulation of optimal play once per rule
        set; later they are read from the table cache, bit for bit."""
        from yahtzee_sim.solving.cache import TableCache
        from yahtzee_sim.strategies.glenn2006 import _MOMENTS, optimal_box_moments

        monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path))
        rules = get_rules("2-yatzy")
        key = TableCache.key(rules, "v1")
        _MOMENTS.memory.pop(key, None)
        first = optimal_box_moments(rules)
        assert len(list(tmp_path.glob("box-moments-*"))) == 2  # the means and the variances
        _MOMENTS.memory.pop(key, None)
        again = optimal_box_moments(rules)
        for a, b in zip(first, again, strict=True):
            np.testing.assert_array_equal(a, b)
        assert first[0].shape == (rules.n_boxes,) and (first[1] >= 0).all()

    @pytest.mark.parametrize("name", ["yahtzee", "yahtzee-free-joker"])
    def test_shipped_box_moments_are_a_fresh_simulation_bit_for_bit(self, name):
        """After a change that moves them, ``python tools/shipped_moments.py`` writes them
        again."""
        from yahtzee_sim.strategies.glenn2006 import (
            SHIPPED_MOMENT_RULES,
            shipped_box_moments,
            simulated_box_moments,
        )

        assert name in SHIPPED_MOMENT_RULES
        rules = get_rules(name)
        shipped, fresh = shipped_box_moments(rules), simulated_box_moments(rules)
        assert shipped is not None
        for a, b in zip(shipped, fresh, strict=True):
            assert a.dtype == np.float64 and np.array_equal(a, b)

    def test_shipped_box_moments_are_read_instead_of_simulated(self, tmp_path, monkeypatch):
        from yahtzee_sim.solving.cache import TableCache
        from yahtzee_sim.strategies import glenn2006

        monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path))
        monkeypatch.setattr(glenn2006, "simulated_box_moments", lambda rules: 1 / 0)
        rules = get_rules("yahtzee")
        glenn2006._MOMENTS.memory.pop(TableCache.key(rules, "v1"), None)
        mean, var = glenn2006.optimal_box_moments(rules)
        assert mean.shape == var.shape == (13,) and 0 < mean[0] < 6 and (var > 0).all()
        assert glenn2006.shipped_box_moments(get_rules("yahtzee-no-joker")) is None


class TestGlenn2006Chasers(FamilyTest):
    """Glenn 2006's Yahtzee chasers: keep the most frequent face, score greedily."""

    ids = (
        "glenn-yahtzees-only-v1",
        "glenn-yahtzees-only-v2",
        "glenn-yahtzees-and-straights-v1",
        "glenn-yahtzees-and-straights-v2",
        "glenn-rational-yahtzees-v1",
        "glenn-rational-yahtzees-v2",
    )
    requires = YAHTZEE_BOXES
    sources = ("Glenn 2006",)

    def test_yahtzee_chasers_keeps(self):
        assert _kept("glenn-yahtzees-only", (2, 2, 5, 5, 1), used=("fives",)) == (2, 2)
        assert _kept("glenn-yahtzees-only", (1, 2, 3, 4, 6)) == (6,)  # all singletons: highest
        assert _kept("glenn-yahtzees-and-straights", (1, 2, 3, 4, 6)) == (1, 2, 3, 4)
        assert _kept("glenn-yahtzees-and-straights", (2, 3, 4, 5, 6)) == (2, 3, 4, 5, 6)
        # Rational: a pair with an open box beats a triple whose box is filled
        assert _kept("glenn-rational-yahtzees", (4, 4, 4, 2, 2), used=("fours",)) == (2, 2)
        assert _kept("glenn-yahtzees-and-straights", (4, 4, 4, 2, 2), used=("fours",)) == (
            4,
            4,
            4,
        )


class TestOptimal(FamilyTest):
    ids = ("optimal-v1",)
    solved_table = True
    decision_key = "state"  # its own state: max-EV play
    sources = ("Glenn 2006", "Verhoeff 1999", "independent public solvers", "Tillius 2026")


class TestObjectiveTables(FamilyTest):
    """Target-score, utility and risk play from their solved tables (ids with a parameter)."""

    ids = ("target-v1", "win-v1", "risk-v1")
    in_all = False
    solved_table = True
    requires = FIXED_ROLLS

    def test_classifier(self):  # target and win read the score so far; risk does not
        caps = {sid: strategy_class(sid).capabilities for sid in self.ids}
        uses = {sid: c.uses_total for sid, c in caps.items()}
        assert uses == {"target-v1": True, "win-v1": True, "risk-v1": False}
        keys = {sid: c.decision_key for sid, c in caps.items()}
        assert keys == {"target-v1": "full", "win-v1": "own", "risk-v1": "full"}
        assert all(c.deterministic and c.solved_table for c in caps.values())
        assert not any(strategy_class(sid).in_all for sid in self.ids)

    def test_a_game_with_saved_rolls_is_refused_before_any_table_is_solved(self):
        for sid in ("target:200", "win:3", "risk:0.01"):
            with pytest.raises(StrategyError, match=f"needs {FIXED_ROLLS}, not rules 'maxi-yatzy'"):
                simulate(sid, 10, rules="maxi-yatzy", seed=0)


class TestMatchPlay(FamilyTest):
    """Opponent-aware play in visible matches."""

    ids = ("win-aware-v1", "win-target-v1", "chase-v1")
    uses_total = True
    in_all = False
    solved_table = True  # max-EV futures
    decision_key = "match"  # both states and the score difference
    requires = FIXED_ROLLS


class TestCards(FamilyTest):
    """Rule cards a person can play."""

    ids = ("card-v1", "card-10-v1", "card-20-v1", "card-30-v1", "card-50-v1", "card-100-v1")
    in_all = False
    requires = "a card made for these boxes"
