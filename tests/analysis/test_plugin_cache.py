"""One's own strategies (plugins) have their exact results cached by the content of their
source and their parameters: a second report with the file unchanged reads them from the
cache, an edited file is evaluated again."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from yahtzee_sim.analysis.report import exact_cache, exact_stage
from yahtzee_sim.analysis.report.build import build_report
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.strategies import FunctionStrategy, get_strategy

PLUGIN = textwrap.dedent(
    """
    import numpy as np
    from yahtzee_sim.strategies import Strategy


    class KeepMostCommon(Strategy):
        def __init__(self, theta=0.0, weights=(1.0,)):
            self.theta = theta
            self.weights = weights

        def keep(self, view):
            dice = np.asarray(view.dice)
            rows = np.arange(len(dice))
            face = dice.argmax(axis=1)
            out = np.zeros_like(dice)
            out[rows, face] = dice[rows, face]
            return out

        def box(self, view):
            return np.where(view.legal_boxes, view.box_points, -1).argmax(axis=1)


    def keep(pos):
        return list(pos.dice)


    def box(pos):
        return max(pos.points, key=pos.points.get)


    from yahtzee_sim.strategies import FunctionStrategy

    TUNED = FunctionStrategy(keep, box, label="tuned")
    """
)
RULES = get_rules("2-yatzy")


def _forget(path: Path, monkeypatch) -> None:
    """Drop the plugin module of ``path``: the next lookup imports the file again, as a
    new process would."""
    for name, module in list(sys.modules.items()):
        if getattr(module, "__file__", None) == str(path.resolve()):
            monkeypatch.delitem(sys.modules, name)


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    path = tmp_path / "mine.py"
    path.write_text(PLUGIN)
    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path / "cache"))
    yield path
    _forget(path, monkeypatch)


def test_a_plugin_is_keyed_by_its_source_and_parameters(plugin, monkeypatch, tmp_path):
    spec = f"{plugin}:KeepMostCommon"
    key = exact_cache.result_key(spec, RULES, 4)
    assert key is not None and exact_cache.identity_key(spec, RULES, 4) is None  # not shipped
    assert key == exact_cache.content_key(spec, RULES, 4)
    assert key == exact_cache.result_key(get_strategy(spec), RULES, 4)  # id or instance
    assert key != exact_cache.result_key(spec, RULES, 5)  # top is part of the key
    assert key != exact_cache.result_key(spec, RULES, None)  # (the law alone)
    assert key != exact_cache.result_key(spec, get_rules("yatzy"), 4)
    assert key != exact_cache.result_key(f"{spec}(theta=0.5)", RULES, 4)  # parameters
    assert key != exact_cache.result_key(get_strategy(spec).labelled("mine"), RULES, 4)
    arrays = [np.arange(2000.0), np.arange(2000.0)]
    arrays[1][1000] = -1  # the same printed summary, other bytes
    keyed = [exact_cache.result_key(get_strategy(spec, weights=a), RULES, 4) for a in arrays]
    assert None not in keyed and keyed[0] != keyed[1]
    copy = tmp_path / "elsewhere.py"  # the same content in another file: the same key
    copy.write_text(PLUGIN)
    assert exact_cache.result_key(f"{copy}:KeepMostCommon", RULES, 4) == key
    tuned = exact_cache.result_key(f"{plugin}:TUNED", RULES, 4)  # functions by their source
    assert tuned is not None and tuned != key
    # edited: this process runs the code it imported, under the key of that code...
    plugin.write_text(PLUGIN.replace("argmax(axis=1)\n", "argmax(axis=1)  # edited\n", 1))
    assert exact_cache.result_key(spec, RULES, 4) == key
    _forget(plugin, monkeypatch)  # ... and a new process imports the edited file
    assert exact_cache.result_key(spec, RULES, 4) not in (None, key)
    assert exact_cache.result_key(f"{plugin}:TUNED", RULES, 4) not in (None, tuned)


def test_strategies_without_a_stable_content_have_no_key():
    def keep(pos):
        return list(pos.dice)

    def box(pos):
        return max(pos.points, key=pos.points.get)

    assert exact_cache.result_key(FunctionStrategy(keep, box), RULES, 4) is not None  # this file
    typed = FunctionStrategy(eval("lambda pos: []"), box)  # code without a file
    assert exact_cache.result_key(typed, RULES, 4) is None
    addressed = FunctionStrategy(keep, box, label="x")
    addressed.keep_fn = object()  # printed with its address
    assert exact_cache.content_key(addressed, RULES, 4) is None
    assert exact_cache.result_key("./no-such-plugin.py:Mine", RULES, 4) is None


@pytest.mark.slow
def test_a_second_report_reads_the_plugins_exact_law_from_the_cache(plugin, monkeypatch):
    spec = f"{plugin}:KeepMostCommon"
    evaluated: list[str] = []
    evaluate = exact_stage.evaluate_strategy

    def counting(strategy, *args, **kwargs):
        evaluated.append(strategy_label(strategy))
        return evaluate(strategy, *args, **kwargs)

    monkeypatch.setattr(exact_stage, "evaluate_strategy", counting)
    args = dict(rules=RULES, strategies=f"greedy,{spec}", n_games=200, seed=1, progress=False)
    first = build_report(**args)
    assert sorted(evaluated) == ["KeepMostCommon", "greedy", "optimal"]
    assert exact_cache.stored(exact_cache.result_key(spec, RULES, 10))
    evaluated.clear()
    second = build_report(**args)
    assert evaluated == []  # nothing evaluated: every exact result read from the cache
    ex, again = first.exact["KeepMostCommon"], second.exact["KeepMostCommon"]
    assert again.meta["cached"] and again.to_dict() == ex.to_dict()
    np.testing.assert_array_equal(again.pmf, ex.pmf)
    assert second.regrets["KeepMostCommon"].to_dict() == first.regrets["KeepMostCommon"].to_dict()
    plugin.write_text(PLUGIN.replace("argmax(axis=1)\n", "argmax(axis=1)  # edited\n", 1))
    _forget(plugin, monkeypatch)  # a new process: it imports the edited file
    third = build_report(**args)
    assert evaluated == ["KeepMostCommon"]  # the edited plugin alone is evaluated again
    assert not third.exact["KeepMostCommon"].meta.get("cached")
