"""Fuzzing the input surfaces a user meets first: every command's arguments and plugin
files. Bad input must give exit 2 and one line on stderr (or exit 0), never a
traceback; a broken plugin must give one StrategyError / IllegalMoveError line.

Examples are few and cheap (rules ``2-yatzy``, at most 200 games): the file runs in
well under a minute once the kernels are compiled.
"""

import argparse
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yahtzee_sim import simulate
from yahtzee_sim.cli import COMMANDS, build_parser, main
from yahtzee_sim.errors import IllegalMoveError, StrategyError
from yahtzee_sim.strategies import get_strategy

FUZZ = settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

#: Interactive or long-running: a terminal game, a web server, every paper's tables.
SKIPPED = {"play", "serve", "reproduce"}

#: Cheap valid values per option (others: the default, else a small number).
VALID = {
    "--rules": ["2-yatzy"],
    "--rolls-per-turn": ["2", "3"],
    "--games": ["1", "50", "200"],
    "--seed": ["0", "7"],
    "--jobs": ["1"],
    "--strategy": ["greedy", "random", "optimal"],
    "--strategies": ["greedy,random", "optimal,greedy"],
    "--field": ["greedy"],
    "--vs": ["greedy"],
    "--label": ["mine", "a b"],
    "--top": ["1", "3"],
    "--players": ["2", "3"],
    "--chunk-size": ["64"],
    "--n0": ["5"],
    "--batch": ["2"],
    "--m": ["1"],
    "--delta": ["1", "0.5"],
    "--alpha": ["0.05"],
    "--dice": ["1,2", "2,2"],
    "--rolls-left": ["0", "1"],
    "--used": ["", "ones"],
    "--upper": ["0", "2"],
    "--beta": ["3", "0"],
    "--max-beta": ["6"],
    "--percentile": ["50"],
    "--theta": ["0.1", "-0.1,0.1"],
    "--me": ["", "ones=1"],
    "--opponent": ["", "twos=2"],
    "--seat": ["0", "1"],
    "--simulate": ["0", "20"],
    "--game": ["0"],
    "--sections": ["glenn-2006"],
}
INVALID = [
    "-1",
    "0",
    "-5",
    "1e999",
    "nan",
    "inf",
    "",
    " ",
    "garbage",
    "1.5",
    "99999999999999999999999999",
    "unknown-id",
    "/no/such/folder/file.png",
    "x.py:Nope",
    "é,ü;∞",
]
#: Options naming output files: valid values are files in the test's folder.
FILES = {"--out": ".csv", "--plot": ".png", "--record": ".jsonl", "--checkpoint": ".ckpt"}


def _parsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return {c.name: sub.choices[c.name] for c in COMMANDS if c.name not in SKIPPED}


PARSERS = _parsers()


def _value(option: str, action, folder) -> st.SearchStrategy:
    if option in FILES:
        valid = st.sampled_from([str(folder / f"out{FILES[option]}"), str(folder)])
    elif action.choices:
        valid = st.sampled_from(list(action.choices))
    else:
        default = [] if action.default is None else [str(action.default)]
        valid = st.sampled_from(VALID.get(option, default or ["1"]))
    junk = st.text(alphabet=st.characters(blacklist_categories=("Nd", "Cs")), max_size=8)
    return st.one_of(valid, valid, st.sampled_from(INVALID), junk)


@st.composite
def _argv(draw, name: str, folder) -> list[str]:
    parser = PARSERS[name]
    argv = [name]
    given_options = set()
    for action in parser._actions:
        if not action.option_strings or action.dest == "help":
            if action.dest not in ("help",) and not action.option_strings:  # positional
                argv.append(draw(st.sampled_from([str(folder / "none.jsonl"), "", "garbage"])))
            continue
        option = action.option_strings[-1]
        required = action.required or option in ("--rules", "--games")
        if not required and not draw(st.booleans()):
            continue
        given_options.add(option)
        if action.nargs == 0:
            argv.append(option)
        else:
            argv += [option, draw(_value(option, action, folder))]
    if "--rules" in {a for a in parser._option_string_actions} and "--rules" not in given_options:
        argv += ["--rules", "2-yatzy"]
    return argv


def _run(capsys, argv: list[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: usage errors
        code = exc.code
    _, err = capsys.readouterr()
    return code, err


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_every_command_argument_gives_exit_0_or_one_line(capsys, tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)  # files named by garbage values land here

    @FUZZ
    @given(argv=_argv(name, tmp_path))
    def check(argv):
        code, err = _run(capsys, argv)
        assert code in (0, 2), (argv, code, err)
        if code == 2:
            lines = err.strip().splitlines()
            assert len(lines) == 1 and "Traceback" not in err, (argv, err)

    check()


#: What the fuzzers found, kept as plain cases: each must be one line and exit 2.
FOUND = [
    "select --rules 2-yatzy --strategies greedy,random --delta inf",  # was accepted
    "simulate --rules 2-yatzy --games 10 --record {folder}",  # was IsADirectoryError
    "simulate --rules 2-yatzy --games 10 --checkpoint {folder}",  # was "corrupted"
    "winprob --me ones=1 --opponent twos=2 --rules 2-yatzy --simulate 10000000000",  # was OOM
    "advise --rules 2-yatzy --dice 1,2 --rolls-left 0 --upper 99999999999999999999",
    "simulate --rules 2-yatzy --games 99999999999999999999",
    "regret --rules 2-yatzy --strategy random",
]


@pytest.mark.parametrize("line", FOUND)
def test_found_by_fuzzing(capsys, tmp_path, monkeypatch, line):
    monkeypatch.chdir(tmp_path)
    code, err = _run(capsys, line.format(folder=tmp_path).split(" "))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


# ------------------------------------------------------------------ plugin files
HEADER = textwrap.dedent(
    """
    import numpy as np
    from yahtzee_sim.strategies import Strategy


    class Base(Strategy):
        def keep(self, view):
            return np.array(view.dice)

        def box(self, view):
            return np.where(view.legal_boxes, view.box_points, -1).argmax(axis=1)
    """
)
RAISES = ["ValueError('bad')", "KeyError('k')", "ZeroDivisionError()", "RuntimeError('x\\ny')"]
WRONG = [
    "None",
    "'ones'",
    "np.zeros(3)",
    "np.zeros((len(view), 7), dtype=np.int64)",
    "np.full(len(view), 0.5)",
    "np.full(len(view), 99)",
    "np.full((len(view), view.rules.n_faces), 9)",
    "[[]]",
]


@st.composite
def _plugin(draw) -> tuple[str, str]:
    """(file text, class name) of a plugin that cannot play."""
    kind = draw(st.sampled_from(["syntax", "missing", "init", "keep", "box", "shape"]))
    if kind == "syntax":
        junk = draw(st.sampled_from(["def (:", "class X(", "import", "x = = 1", "\tfoo bar"]))
        return HEADER + "\n" + junk + "\n", "Base"
    if kind == "missing":
        return HEADER, draw(st.sampled_from(["Nope", "np", "Strategy_", "keep"]))
    error = draw(st.sampled_from(RAISES))
    if kind == "init":
        body = f"    def __init__(self):\n        raise {error}\n"
    elif kind == "shape":
        method = draw(st.sampled_from(["keep", "box"]))
        body = f"    def {method}(self, view):\n        return {draw(st.sampled_from(WRONG))}\n"
    else:
        body = f"    def {kind}(self, view):\n        raise {error}\n"
    return HEADER + "\n\nclass Mine(Base):\n" + body, "Mine"


@FUZZ
@given(plugin=_plugin())
def test_broken_plugin_files_give_one_clear_error(tmp_path_factory, plugin):
    text, name = plugin
    path = tmp_path_factory.mktemp("plugin") / "mine.py"
    path.write_text(text)
    spec = f"{path}:{name}"
    with pytest.raises((StrategyError, IllegalMoveError)) as info:
        simulate(get_strategy(spec), 20, rules="2-yatzy", progress=False)
    assert str(info.value) and len(str(info.value).splitlines()) == 1
    assert main(["simulate", "--strategy", spec, "--rules", "2-yatzy", "--games", "20"]) == 2
