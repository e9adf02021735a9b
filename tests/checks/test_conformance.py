"""Strategies from files and modules (plugins) and the conformance checks every strategy
runs: each broken plugin fails exactly the checks it breaks."""

import textwrap

import numpy as np
import pytest

from yahtzee_sim import StrategyError, get_rules, simulate
from yahtzee_sim.checks import (
    CHECKS,
    StrategyCheckError,
    check_strategy,
    parametrize_with_checks,
    strategy_checks,
)
from yahtzee_sim.cli import main
from yahtzee_sim.errors import StrategyRuntimeError
from yahtzee_sim.strategies import Strategy, get_strategy, strategy_ids

PLUGIN = '''
import numpy as np
from yahtzee_sim.strategies import Strategy


class KeepSixes(Strategy):
    """Keeps sixes; fills the first legal box with the most points."""

    def __init__(self, greedy_boxes=True):
        self.greedy_boxes = greedy_boxes

    def keep(self, view):
        out = np.zeros_like(view.dice)
        out[:, 5] = view.dice[:, 5]
        return out

    def box(self, view):
        return np.argmax(view.box_points, axis=1)


NOT_A_STRATEGY = 3

SIXES_ONLY = KeepSixes(greedy_boxes=False)
'''


@pytest.fixture
def plugin_file(tmp_path):
    path = tmp_path / "my_strategy.py"
    path.write_text(textwrap.dedent(PLUGIN))
    return path


def _check_rules(strategy):
    """Full games for the strategies of "all"; 2-Yatzy for those whose tables take minutes
    on the full games (target, win); Yatzy for card-100 (Yatzy's card only)."""
    cls = type(strategy)
    rules = "yahtzee" if cls.in_all else "2-yatzy"
    return rules if cls.supports(get_rules(rules)) else "yatzy"


#: Strategies whose tables take several seconds to build: their checks are marked slow.
SLOW_TO_PREPARE = ("glenn-heuristic", "glenn-better-heuristic")


@parametrize_with_checks(
    [sid for sid in strategy_ids() if sid not in SLOW_TO_PREPARE], rules=_check_rules
)
def test_builtin_strategy_check(strategy, check):
    check(strategy)


@pytest.mark.slow
@parametrize_with_checks(SLOW_TO_PREPARE, rules=_check_rules)
def test_builtin_strategy_check_of_a_slow_table(strategy, check):
    check(strategy)


def test_plugin_from_file_everywhere(plugin_file, capsys):
    spec = f"{plugin_file}:KeepSixes"
    s = get_strategy(spec)
    assert type(s).__name__ == "KeepSixes"
    check_strategy(s, n_games=100)
    local = simulate(spec, 3000, seed=1)
    workers = simulate(spec, 3000, seed=1, n_jobs=2, chunk_size=500)  # processes: by value
    np.testing.assert_array_equal(local.total, workers.total)
    assert main(["simulate", "--strategy", spec, "--games", "500", "--json", "--quiet"]) == 0
    assert '"games": 500' in capsys.readouterr().out


def test_plugin_from_module():
    s = get_strategy("yahtzee_sim.strategies.greedy:Greedy")
    assert type(s).__name__ == "Greedy"


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("{dir}/missing.py:X", "does not exist"),
        ("{file}:Nope", "has no attribute 'Nope'"),
        ("{file}:NOT_A_STRATEGY", "neither a subclass nor an instance"),
        ("{file}:KeepSixes(nope=1)", "bad parameters"),
        ("{file}:KeepSixes(greedy_boxes=open('x'))", "not a literal"),
        ("{file}:KeepSixes(True)", "must be named"),
        ("{file}:KeepSixes(greedy_boxes=", "must read like"),
        ("{file}:SIXES_ONLY(greedy_boxes=True)", "is an instance; parameters need a class"),
        ("no_such_module_xyz:Thing", "cannot import module"),
        ("{file}:", "expected FILE.py:NAME"),
    ],
)
def test_plugin_errors(plugin_file, spec, match):
    spec = spec.format(dir=plugin_file.parent, file=plugin_file)
    with pytest.raises(StrategyError, match=match):
        get_strategy(spec)


def test_plugin_import_error_is_one_clear_line(tmp_path, capsys):
    bad = tmp_path / "broken.py"
    bad.write_text("def oops(:\n")
    assert main(["simulate", "--strategy", f"{bad}:X", "--games", "10"]) == 2
    err = capsys.readouterr().err
    assert "importing" in err and "SyntaxError" in err and len(err.strip().splitlines()) == 1


class GlobalRandom(Strategy):
    """Claims determinism but draws from numpy's global state."""

    def __init__(self):
        pass

    def keep(self, view):
        draw = np.random.random(view.dice.shape)  # noqa: NPY002 - the bug under test
        return (view.dice * (draw < 0.5)).astype(np.int8)

    def box(self, view):
        return np.argmax(view.box_points, axis=1)


class BatchDependent(Strategy):
    """Decides differently when asked about many games at once."""

    def __init__(self):
        pass

    def keep(self, view):
        return np.array(view.dice) if len(view) > 1 else np.zeros_like(view.dice)

    def box(self, view):
        return np.argmax(view.box_points, axis=1)


def test_check_strategy_catches_hidden_randomness_and_batch_dependence():
    with pytest.raises(StrategyCheckError, match="reproducible: the same seed gave different"):
        check_strategy(GlobalRandom(), n_games=50)
    with pytest.raises(StrategyCheckError, match="batched decisions differ"):
        check_strategy(BatchDependent(), n_games=50)


#: A plugin file of strategies, each with one bug, and the checks each must fail (and no
#: other): an illegal move also stops the games of ``reproducible``; parameters the
#: constructor changes also change in a pickle round trip (worker processes use
#: cloudpickle, which carries the lambda that plain pickle refuses).
BROKEN = """
import numpy as np
from yahtzee_sim.strategies import Strategy


class Sound(Strategy):
    \"\"\"Keeps sixes; scores the open box of most points.\"\"\"

    def __init__(self, depth=2):
        self.depth = depth

    def keep(self, view):
        out = np.zeros_like(view.dice)
        out[:, 5] = view.dice[:, 5]
        return out

    def box(self, view):
        return np.argmax(np.where(view.legal_boxes, view.box_points, -1), axis=1)


class IllegalBox(Sound):
    def box(self, view):
        return np.zeros(len(view), dtype=np.int64)


class BatchDependent(Sound):
    def keep(self, view):
        return np.array(view.dice) if len(view) > 1 else np.zeros_like(view.dice)


class CustomRepr(Sound):
    def __repr__(self):
        return "my strategy"


class MangledParams(Sound):
    def __init__(self, depth=2):
        self.depth = depth + 1


class Unpicklable(Sound):
    def __init__(self, depth=lambda: 2):
        self.depth = depth


class HiddenRandomness(Sound):
    def box(self, view):
        return np.argmax(view.legal_boxes * view.uniform(view.legal_boxes.shape[1]), axis=1)


class ReadsTheScore(Sound):
    def keep(self, view):
        out = super().keep(view)
        return np.where((view.score > 100)[:, None], view.dice, out).astype(np.int8)


class CrashesOnYatzy(Sound):
    requires = "13 boxes"

    @classmethod
    def supports(cls, rules):
        return rules.n_boxes == 13

    def prepare(self, rules):
        [0] * 13 == [0] * rules.n_boxes or [][0]
"""

BREAKS = {
    "Sound": set(),
    "IllegalBox": {"legal_moves", "reproducible"},
    "BatchDependent": {"batch_independent"},
    "CustomRepr": {"clone_and_repr"},
    "MangledParams": {"clone_and_repr", "picklable"},
    "Unpicklable": {"picklable"},
    "HiddenRandomness": {"declared_deterministic"},
    "ReadsTheScore": {"declared_uses_total"},
    "CrashesOnYatzy": {"refuses_unsupported_rules"},
}


@pytest.mark.parametrize("name", BREAKS)
def test_a_broken_plugin_fails_exactly_the_checks_it_breaks(tmp_path, name):
    path = tmp_path / "broken.py"
    path.write_text(BROKEN)
    strategy = get_strategy(f"{path}:{name}")
    failed = set()
    for check in strategy_checks("yahtzee", n_games=60, n_positions=40):
        try:
            line = check(strategy)
        except (StrategyCheckError, StrategyRuntimeError) as exc:
            failed.add(check.name)
            assert check.name in str(exc) or isinstance(exc, StrategyRuntimeError), exc
        else:
            assert line and "\n" not in line
    assert failed == BREAKS[name]


def test_parametrize_with_checks_gives_one_test_per_strategy_and_check():
    mark = parametrize_with_checks(["greedy", get_strategy("greedy", tie_break=("chance",))])
    assert mark.args[0] == ("strategy", "check")
    ids = [p.id for p in mark.args[1]]
    assert len(ids) == 2 * len(CHECKS) == len(set(ids))
    assert ids[0] == "greedy-check_legal_moves"
    assert ids[-1] == "Greedy(tie_break=('chance',))-check_refuses_unsupported_rules"
    with pytest.raises(StrategyError, match="unknown check 'nope'"):
        list(strategy_checks(checks=["nope"]))


def test_plugin_parameters_and_instances(plugin_file):
    tuned = get_strategy(f"{plugin_file}:KeepSixes(greedy_boxes=False)")
    assert tuned.greedy_boxes is False
    assert get_strategy(f"{plugin_file}:KeepSixes", greedy_boxes=False).greedy_boxes is False
    instance = get_strategy(f"{plugin_file}:SIXES_ONLY")
    assert type(instance).__name__ == "KeepSixes" and instance.greedy_boxes is False
    a = simulate(f"{plugin_file}:SIXES_ONLY", 2000, seed=3)
    b = simulate(f"{plugin_file}:KeepSixes(greedy_boxes=False)", 2000, seed=3, n_jobs=2)
    np.testing.assert_array_equal(a.total, b.total)


def test_plugin_module_from_current_directory(plugin_file, monkeypatch):
    monkeypatch.chdir(plugin_file.parent)
    s = get_strategy("my_strategy:KeepSixes(greedy_boxes=False)")
    assert type(s).__name__ == "KeepSixes" and s.greedy_boxes is False
