"""Your own strategy end to end: regret and check commands, one label everywhere, plugin
syntax in the help texts, and errors raised inside a strategy's own code."""

import json
import pickle
import textwrap

import pytest

from yahtzee_sim import simulate
from yahtzee_sim.cli import COMMANDS, build_parser, main
from yahtzee_sim.cli import options as opt
from yahtzee_sim.engine.plugins import PLUGIN_SYNTAX, split_strategy_list
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.errors import StrategyError, StrategyRuntimeError
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.strategies import check_strategy, get_strategy

PLUGIN = textwrap.dedent(
    """
    import numpy as np
    from yahtzee_sim.strategies import Strategy


    class KeepMostCommon(Strategy):
        def __init__(self, theta=0.0):
            self.theta = theta

        def keep(self, view):
            dice = np.asarray(view.dice)
            rows = np.arange(len(dice))
            face = dice.argmax(axis=1)
            out = np.zeros_like(dice)
            out[rows, face] = dice[rows, face]
            return out

        def box(self, view):
            return np.where(view.legal_boxes, view.box_points, -1).argmax(axis=1)


    def helper(x):
        return 1 / x


    class Broken(KeepMostCommon):
        def keep(self, view):
            if view.turn == 1:
                return helper(0)
            return super().keep(view)
    """
)
BROKEN_LINE = PLUGIN.splitlines().index("    return 1 / x") + 1
RULES = "2-yatzy"


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """A long path to a plugin file (it must never show in tables or titles)."""
    folder = tmp_path / ("a_long_folder_name_that_must_not_leak" * 2)
    folder.mkdir()
    path = folder / "my_strategy.py"
    path.write_text(PLUGIN)
    return str(path)


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ regret and check
def test_regret_text_json_and_plot(capsys, plugin, tmp_path):
    spec = f"{plugin}:KeepMostCommon"
    code, out, _ = run(capsys, "regret", "--strategy", spec, "--rules", RULES, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["strategy"] == "KeepMostCommon"
    assert data["total"] == pytest.approx(data["optimal_value"] - data["strategy_value"])
    assert sum(data["by_turn"].values()) == pytest.approx(data["total"])
    assert sum(data["by_decision"].values()) == pytest.approx(data["total"])
    assert data["total"] > 0 and 0 < len(data["situations"]) <= 10
    figure = tmp_path / "regret.png"
    code, out, _ = run(
        capsys, "regret", "--strategy", spec, "--rules", RULES, "--top", 2, "--plot", figure
    )
    assert code == 0 and figure.stat().st_size > 1000
    assert f"regret       {data['total']:.4f}" in out and plugin not in out
    assert out.count("played ") == 2  # --top 2 situations


def test_regret_of_optimal_play_is_zero(capsys):
    code, out, _ = run(capsys, "regret", "--strategy", "optimal", "--rules", RULES, "--json")
    assert code == 0 and json.loads(out)["total"] == pytest.approx(0.0, abs=1e-12)


def test_check_prints_one_line_per_check(capsys, plugin):
    spec = f"{plugin}:KeepMostCommon"
    code, out, _ = run(capsys, "check", "--strategy", spec, "--rules", RULES, "--games", 50)
    assert code == 0
    lines = out.splitlines()
    assert lines[-1] == "KeepMostCommon passed every check on rules 2-yatzy"
    assert all(line.startswith("ok  ") for line in lines[:-1]) and len(lines) >= 5
    code, out, _ = run(
        capsys, "check", "--strategy", spec, "--rules", RULES, "--games", 50, "--json"
    )
    data = json.loads(out)
    assert data["strategy"] == "KeepMostCommon" and data["passed"] == [x[4:] for x in lines[:-1]]


def test_check_reports_a_failing_strategy(capsys, tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(
        PLUGIN + "\n\nclass Illegal(KeepMostCommon):\n"
        "    def box(self, view):\n        return np.zeros(len(view), dtype=np.int64)\n"
    )
    code, _, err = run(capsys, "check", "--strategy", f"{path}:Illegal", "--rules", RULES)
    assert code == 2 and len(err.splitlines()) == 1
    assert "check_strategy(Illegal)" in err and "illegal box choice" in err


# ------------------------------------------------------------------ one label everywhere
@pytest.mark.slow
def test_same_label_in_every_output(capsys, plugin, tmp_path):
    spec = f"{plugin}:KeepMostCommon(theta=0.5)"
    label = "KeepMostCommon(theta=0.5)"
    common = ["--rules", RULES, "--json"]
    _, out, _ = run(capsys, "simulate", "--strategy", spec, "--games", 200, *common)
    assert json.loads(out)["strategy"] == label
    _, out, _ = run(capsys, "exact", "--strategy", spec, *common)
    assert json.loads(out)["strategy"] == label
    _, out, _ = run(capsys, "regret", "--strategy", spec, *common)
    assert json.loads(out)["strategy"] == label
    code, out, _ = run(
        capsys, "select", "--strategies", f"greedy,{spec}", "--rules", RULES, "--n0", 5
    )
    assert code == 0 and plugin not in out
    header, *lines = out.splitlines()[2:]
    assert {line.split()[0] for line in lines} == {"greedy", label}
    end = header.index("mean") + 4  # the columns line up under the header
    assert all(line[end - 1].isdigit() and line[end] == " " for line in lines)
    assert {line.index("[") for line in lines} == {header.index("MCB")}
    folder = tmp_path / "report"
    code, out, _ = run(
        capsys, "report", "--strategies", spec, "--games", 100, "--out", folder, *common
    )
    assert code == 0
    names = [row["strategy"] for row in json.loads(out)["summary"]]
    assert names == [label, "optimal"] or set(names) == {label, "optimal"}
    assert plugin not in (folder / "report.md").read_text()


def test_user_label_everywhere(capsys, plugin):
    spec = f"{plugin}:KeepMostCommon"
    for command, extra in (("simulate", ["--games", 200]), ("exact", []), ("regret", [])):
        code, out, _ = run(
            capsys, command, "--strategy", spec, "--label", "mine", "--rules", RULES, "--json",
            *extra,
        )  # fmt: skip
        assert code == 0 and json.loads(out)["strategy"] == "mine"
    _, out, _ = run(capsys, "check", "--strategy", spec, "--label", "mine", "--rules", RULES)
    assert out.splitlines()[-1].startswith("mine passed")


@pytest.mark.parametrize("bad", ["", "   ", "x" * 41, "two\nlines"])
def test_bad_label_one_line(capsys, bad):
    code, _, err = run(capsys, "simulate", "--label", bad, "--games", 10)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "label" in err


def test_labelled_travels_to_workers_and_clones(plugin):
    s = get_strategy(f"{plugin}:KeepMostCommon(theta=0.5)").labelled("tuned")
    assert strategy_label(pickle.loads(pickle.dumps(s))) == "tuned"
    assert strategy_label(s.clone()) == "tuned"
    assert strategy_label(get_strategy(f"{plugin}:KeepMostCommon")) == "KeepMostCommon"
    res = simulate(s, 400, rules=RULES, n_jobs=2, chunk_size=100, progress=False)
    assert res.summary()["strategy"] == "tuned"
    assert evaluate(s, RULES).strategy == "tuned"


def test_split_strategy_list_keeps_parameters_whole():
    assert split_strategy_list("a, f.py:K(x=1, y=(2, 3)) ,,b") == [
        "a",
        "f.py:K(x=1, y=(2, 3))",
        "b",
    ]


# ------------------------------------------------------------------ help texts
def _strategy_options():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for command in COMMANDS:
        for action in sub.choices[command.name]._actions:
            if any(o in ("--strategy", "--strategies") for o in action.option_strings):
                yield command.name, action


def test_plugin_syntax_in_every_strategy_help():
    assert opt.PLUGIN_SYNTAX == PLUGIN_SYNTAX
    found = list(_strategy_options())
    assert {name for name, _ in found} >= {"simulate", "exact", "regret", "check", "select"}
    for name, action in found:
        assert PLUGIN_SYNTAX in action.help, name


# ------------------------------------------------------------------ errors in user code
def _assert_runtime_error(exc: StrategyRuntimeError, plugin: str):
    msg = str(exc)
    assert "\n" not in msg
    assert f"{plugin}:{BROKEN_LINE}" in msg and "ZeroDivisionError" in msg
    assert exc.where == f"{plugin}:{BROKEN_LINE}"
    assert exc.turn == 2 and exc.rolls_left == 1 and exc.game >= 0 and len(exc.dice) == 2
    assert f"game {exc.game}, turn 2, rolls left 1: dice {list(exc.dice)}" in msg


@pytest.mark.parametrize("jobs", [1, 2])
def test_exception_in_strategy_wrapped(plugin, jobs):
    with pytest.raises(StrategyRuntimeError) as info:
        simulate(f"{plugin}:Broken", 200, rules=RULES, n_jobs=jobs, progress=False)
    _assert_runtime_error(info.value, plugin)
    assert "'Broken'" in str(info.value)
    if jobs == 1:
        assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_exception_in_strategy_exact_and_check(plugin):
    with pytest.raises(StrategyRuntimeError) as info:
        evaluate(f"{plugin}:Broken", RULES)
    assert info.value.where == f"{plugin}:{BROKEN_LINE}"
    with pytest.raises(StrategyRuntimeError):
        check_strategy(f"{plugin}:Broken", RULES, n_games=20)


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_exception_in_strategy_one_line_in_cli(capsys, plugin, jobs):
    code, _, err = run(
        capsys, "simulate", "--strategy", f"{plugin}:Broken", "--rules", RULES, "--games", 200,
        "--jobs", jobs, "--label", "mine",
    )  # fmt: skip
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith("yahtzee-sim simulate: error: strategy 'mine': keep() raised")
    assert f"{plugin}:{BROKEN_LINE}" in err and "Traceback" not in err


def test_exception_in_constructor(tmp_path):
    path = tmp_path / "init.py"
    path.write_text(PLUGIN + "\n\nclass Bad(KeepMostCommon):\n    def __init__(self):\n"
                    "        raise RuntimeError('no table')\n")  # fmt: skip
    with pytest.raises(StrategyError, match=r"Bad\(\.\.\.\) raised RuntimeError: no table at .*"):
        get_strategy(f"{path}:Bad")
