import textwrap

import numpy as np
import pytest

from yahtzee_sim import StrategyError, get_rules, simulate
from yahtzee_sim.cli import main
from yahtzee_sim.strategies import Strategy, get_strategy, strategy_class, strategy_ids
from yahtzee_sim.strategies.checks import StrategyCheckError, check_strategy

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


@pytest.mark.parametrize("sid", strategy_ids())
def test_every_builtin_passes_check_strategy(sid):
    # tables of the strategies outside "all" (target, win) take minutes on the full games
    rules = "yahtzee" if strategy_class(sid).in_all else "2-yatzy"
    if not strategy_class(sid).supports(get_rules(rules)):  # card-100: Yatzy's card only
        rules = "yatzy"
    check_strategy(sid, rules=rules)


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
    with pytest.raises(StrategyCheckError, match="same seed gave different games"):
        check_strategy(GlobalRandom(), n_games=50)
    with pytest.raises(StrategyCheckError, match="batched decisions differ"):
        check_strategy(BatchDependent(), n_games=50)


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
