"""Hostile strategies and record files get one line naming what they returned or held.

A strategy (written to a file and loaded as ``FILE.py:NAME``, as a user's is) that returns
a wrong shape, a wrong dtype, NaN, infinity, a negative, huge or unsigned number, Python
objects, a filled box, that raises or forks, is refused: through the API with an
:class:`~yahtzee_sim.errors.IllegalMoveError` or
:class:`~yahtzee_sim.errors.StrategyRuntimeError` (both ``ValueError``), on the command line
with one line on stderr and exit 2. The line quotes the value as the strategy returned it
(never converted into a legal-looking action), the game, the turn and the ``file:line`` of
the strategy's code. A record file that is too large, has a line too long, is truncated,
binary, names unknown rules, other rules than asked for, or a score its dice do not make
gets one line naming the file, the line and what was read, and exit 2.
"""

from __future__ import annotations

import json
import os
import textwrap

import pytest

from yahtzee_sim import simulate
from yahtzee_sim.cli.main import main
from yahtzee_sim.engine.memory_budget import MemoryBudgetError
from yahtzee_sim.engine.records import MAX_LINE_BYTES, RecordError, read_records, record_games
from yahtzee_sim.errors import IllegalMoveError, StrategyRuntimeError
from yahtzee_sim.strategies import get_strategy

#: A legal strategy (keep every die, the first legal box) whose ``METHOD`` runs ``CODE`` on
#: ``out`` in turn 2 for games 130 and up (so the bad game is not the batch's first).
TEMPLATE = """\
import os
import numpy as np
from yahtzee_sim.strategies import Strategy


class Hostile(Strategy):
    def keep(self, view):
        return np.array(view.dice)

    def box(self, view):
        return np.argmax(view.legal_boxes, axis=1)


class Bad(Hostile):
    def {method}(self, view):
        out = super().{method}(view)
        bad = view.games >= 130
        if view.turn == 1 and bad.any():
{code}
        return out
"""

#: The line of ``def {method}`` in :data:`TEMPLATE` (what a returned value's error names).
DEF_LINE = 15
#: The line of the first statement of ``code`` (what a raise or a fork names).
CODE_LINE = 19

#: kind -> (method, code run in the bad turn, what the message must quote).
STRATEGIES = {
    "keep too few rows": ("keep", "out = out[:-1]", "an array of shape (99, 6) (int8)"),
    "keep 1-D": ("keep", "out = out.sum(axis=1)", "of shape (100,)"),
    "keep extra column": ("keep", "out = np.zeros((len(out), 7), int)", "of shape (100, 7)"),
    "keep None": ("keep", "out = None", "got None"),
    "keep list of dicts": ("keep", "out = [{'keep': 1}] * len(out)", "a list of shape (100,)"),
    "keep float 0.5": ("keep", "out = out.astype(float); out[bad] = 0.5", "[0.5, 0.5"),
    "keep NaN": ("keep", "out = out.astype(float); out[bad, 0] = np.nan", "[nan, "),
    "keep negative int8": ("keep", "out = out.astype(np.int8); out[bad, 0] = -1", "[-1, "),
    "keep huge uint64": (
        "keep",
        "out = out.astype(np.uint64); out[bad, 0] = 2**63",
        "[9223372036854775808, ",
    ),
    "keep huge object": (
        "keep",
        "out = out.astype(object); out[bad, 0] = 10**30",
        "[1000000000000000000000000000000, ",
    ),
    "keep strings": ("keep", "out = out.astype(object); out[bad, 0] = '1'", "['1', "),
    "keep ragged": ("keep", "out = [[1, 2], [3]]", "a list that is no rectangular array"),
    "keep not held": (
        "keep",
        "out = out.astype(np.int64); out[bad] = [0, 0, 0, 0, 0, 5]",
        "keep counts [0, 0, 0, 0, 0, 5] (int64): keep [6, 6, 6, 6, 6]",
    ),
    "box scalar": ("box", "out = 3", "got the int 3"),
    "box too few rows": ("box", "out = out[:-1]", "of shape (99,)"),
    "box 2-D": ("box", "out = out[:, None]", "of shape (100, 1)"),
    "box float 2.7": ("box", "out = out.astype(float); out[bad] = 2.7", "box 2.7 (float64)"),
    "box NaN": ("box", "out = out.astype(float); out[bad] = np.nan", "box nan (float64)"),
    "box inf": ("box", "out = out.astype(float); out[bad] = np.inf", "box inf (float64)"),
    "box True": ("box", "out = out.astype(object); out[bad] = True", "box True (object"),
    "box negative": ("box", "out[bad] = -1", "index -1 (int64)"),
    "box uint64 2**63": (
        "box",
        "out = out.astype(np.uint64); out[bad] = 2**63",
        "index 9223372036854775808 (uint64)",
    ),
    "box huge object": (
        "box",
        "out = out.astype(object); out[bad] = 10**30",
        "box 1000000000000000000000000000000 (object array of int)",
    ),
    "box string": (
        "box",
        "out = out.astype(object); out[bad] = '3'",
        "box '3' (object array of str)",
    ),
    "box filled": ("box", "out[bad] = 0", "ones (already filled)"),
}


def _write(tmp_path, method: str, code: str) -> str:
    path = tmp_path / "hostile.py"
    body = textwrap.indent(code.replace("; ", "\n"), " " * 12)
    path.write_text(TEMPLATE.format(method=method, code=body))
    return str(path)


def _one_line(capsys, argv: list[str]) -> str:
    """Run the command; it must fail with exit 2 and one line on stderr, no traceback."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("kind", list(STRATEGIES))
def test_a_hostile_answer_is_named_as_returned(kind, tmp_path, capsys):
    method, code, raw = STRATEGIES[kind]
    path = _write(tmp_path, method, code)
    where = f"{path}:{DEF_LINE}"
    with pytest.raises(IllegalMoveError) as info:
        simulate(get_strategy(f"{path}:Bad"), 200, chunk_size=100)
    msg = str(info.value)
    assert raw in msg and where in msg and "turn 2" in msg
    assert info.value.where == where and info.value.turn == 2
    # one bad game named, or the batch that held it when the whole answer is wrong
    assert "in game 130" in msg or "in the batch of games 100..199" in msg
    argv = ["simulate", "--strategy", f"{path}:Bad", "--games", "200", "--chunk-size", "100"]
    err = _one_line(capsys, argv)
    assert raw in err and where in err and "turn 2" in err


@pytest.mark.parametrize("kind", ["box float 2.7", "box uint64 2**63", "keep negative int8"])
def test_worker_processes_give_the_same_line(kind, tmp_path, capsys):
    method, code, raw = STRATEGIES[kind]
    path = _write(tmp_path, method, code)
    argv = ["simulate", "--strategy", f"{path}:Bad", "--games", "200", "--chunk-size", "100"]
    err = _one_line(capsys, [*argv, "--jobs", "2"])
    assert raw in err and f"{path}:{DEF_LINE}" in err and "in game 130, turn 2" in err


def test_a_strategy_that_raises_names_its_line(tmp_path, capsys):
    path = _write(tmp_path, "box", "raise RuntimeError('boom')")
    with pytest.raises(StrategyRuntimeError, match=r"RuntimeError: boom") as info:
        simulate(get_strategy(f"{path}:Bad"), 200, chunk_size=100)
    assert info.value.where == f"{path}:{CODE_LINE}" and info.value.game == 130
    err = _one_line(capsys, ["simulate", "--strategy", f"{path}:Bad", "--games", "200"])
    assert f"{path}:{CODE_LINE}, in game 130, turn 2" in err


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_strategy_that_forks_is_stopped_and_its_child_too(jobs, tmp_path, capfd):
    path = _write(tmp_path, "box", "os.fork()")
    argv = ["simulate", "--strategy", f"{path}:Bad", "--games", "200", "--chunk-size", "100"]
    assert main([*argv, "--jobs", str(jobs), "--json"]) == 2
    out, err = capfd.readouterr()
    assert out == ""  # the child printed no result either
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"box() forked a child process (os.fork) at {path}:{CODE_LINE}" in err
    assert "turn 2" in err


#: FunctionStrategy answers that Python would take for another value (True == 1, 2.0 == 2).
FUNCTIONS = {
    "box 2.7": ("keep_all", "lambda pos: 2.7", "box_fn returned 2.7 (float)"),
    "box 2.0": ("keep_all", "lambda pos: 2.0", "box_fn returned 2.0 (float)"),
    "box True": ("keep_all", "lambda pos: True", "box_fn returned True (bool)"),
    "box NaN": ("keep_all", "lambda pos: float('nan')", "box_fn returned nan (float)"),
    "box 10**30": ("keep_all", "lambda pos: 10**30", "index 1000000000000000000000000000000"),
    "keep True": ("lambda pos: [True]", "first", "die value True (bool)"),
    "keep 1.0": ("lambda pos: [1.0]", "first", "die value 1.0 (float)"),
}


@pytest.mark.parametrize("kind", list(FUNCTIONS))
def test_function_strategies_convert_nothing(kind, tmp_path, capsys):
    keep, box, raw = FUNCTIONS[kind]
    path = tmp_path / "functions.py"
    path.write_text(
        "from yahtzee_sim.strategies import FunctionStrategy\n"
        "keep_all = lambda pos: list(pos.dice)\n"
        "first = lambda pos: max(pos.points, key=pos.points.get)\n"
        f"BAD = FunctionStrategy({keep}, {box}, label='bad')\n"
    )
    with pytest.raises(IllegalMoveError) as info:
        simulate(get_strategy(f"{path}:BAD"), 20)
    msg = str(info.value)
    assert raw in msg and f"{path}:4" in msg and "in game 0, turn 1" in msg
    err = _one_line(capsys, ["simulate", "--strategy", f"{path}:BAD", "--games", "20"])
    assert raw in err


# ------------------------------------------------------------------ records
@pytest.fixture(scope="module")
def lines():
    """Three valid record lines (greedy, seed 1)."""
    return [json.dumps(r) for r in record_games("greedy", 3, seed=1)]


def _changed(line: str, **changes) -> str:
    return json.dumps(json.loads(line) | changes)


#: kind -> (file bytes from the valid lines, extra CLI arguments, what the line must say).
RECORDS = {
    "truncated": (
        lambda ls: (ls[0] + "\n" + ls[1][: len(ls[1]) // 2]).encode(),
        [],
        "line 2: not JSON (",
    ),
    "binary": (
        lambda ls: (ls[0] + "\n").encode() + b"\x89PNG\r\n\x1a\n",
        [],
        "line 2: not UTF-8 text: byte 0x89 at column 1",
    ),
    "a line too long": (
        lambda ls: b" " * (MAX_LINE_BYTES + 10) + b"\n",
        [],
        f"line 1: longer than {MAX_LINE_BYTES:,} bytes",
    ),
    "unknown rules": (
        lambda ls: (ls[0] + "\n" + _changed(ls[1], rules="nonsense") + "\n").encode(),
        [],
        "line 2: unknown rules 'nonsense'",
    ),
    "other rules than asked": (
        lambda ls: (_changed(ls[0], rules="yatzy") + "\n").encode(),
        ["--rules", "yahtzee"],
        "line 1: the record says rules 'yatzy', not the rules asked for, 'yahtzee'",
    ),
    "a score its dice do not make": (
        lambda ls: (ls[0] + "\n" + _changed(ls[1], score=999) + "\n").encode(),
        [],
        "line 2: 'score' is 999, but the dice and boxes of the record score",
    ),
}


@pytest.mark.parametrize("kind", list(RECORDS))
def test_a_hostile_record_file_gets_one_line(kind, lines, tmp_path, capsys):
    make, extra, says = RECORDS[kind]
    path = tmp_path / "games.jsonl"
    path.write_bytes(make(lines))
    rules = extra[1] if extra else None
    with pytest.raises(RecordError) as info:
        read_records(path, rules)
    assert f"{path}, {says}" in str(info.value)
    err = _one_line(capsys, ["analyze", str(path), *extra])
    assert says in err


def test_a_truncated_last_line_says_so(lines, tmp_path):
    path = tmp_path / "cut.jsonl"
    path.write_text(lines[0] + "\n" + lines[1][:200])
    with pytest.raises(RecordError, match=r"near '.*'\); the file ends in this line: cut short"):
        read_records(path)


def test_a_record_file_larger_than_the_memory_is_refused_unread(
    lines, tmp_path, monkeypatch, capsys
):
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("YAHTZEE_SIM_MEMORY", "1kB")
    with pytest.raises(MemoryBudgetError, match=r"checking the record file .* split it"):
        read_records(path)
    err = _one_line(capsys, ["analyze", str(path)])
    assert "more than the 1.0 kB available" in err


def test_records_that_tell_the_truth_still_read(lines, tmp_path):
    path = tmp_path / "good.jsonl"
    path.write_text(lines[0] + "\n")
    final = read_records(path, "yahtzee")[0].final
    path.write_text(_changed(lines[0], score=final) + "\n" + lines[1])  # no final line break
    games = read_records(path)
    assert [g.data["game"] for g in games] == [0, 1]
    assert all(g.complete for g in games)


def test_ctrl_c_stops_a_run_whose_strategy_sleeps(tmp_path):
    """``simulate --jobs 2``: a block runs in a thread of the command's process and
    sleeps there; Ctrl-C (SIGINT, sent once the strategy has started sleeping: it leaves
    a file first) stops the command at once with exit 130, waiting neither for the
    sleeping block nor for the worker process, which here takes 20 s to start (as one
    does on a busy machine). The command runs in a process of its own, as a user's
    does."""
    import signal
    import subprocess
    import sys
    import time

    asleep, pid = tmp_path / "asleep", tmp_path / "pid"
    path = _write(
        tmp_path,
        "box",
        f"if str(os.getpid()) == open({str(pid)!r}).read():\n"
        f"    open({str(asleep)!r}, 'w').close()\n"
        "    __import__('time').sleep(60)",
    )
    argv = ["simulate", "--strategy", f"{path}:Bad", "--games", "4096", "--jobs", "2"]
    # Ctrl-C as a terminal delivers it: the test's own process (a pytest-xdist worker) may
    # pass its child SIGINT ignored or blocked; the command gets Python's default handler
    code = (
        "import os, signal, sys; "
        "print('SIGINT as inherited:', signal.getsignal(signal.SIGINT), "
        "signal.pthread_sigmask(signal.SIG_BLOCK, []), file=sys.stderr, flush=True); "
        "signal.signal(signal.SIGINT, signal.default_int_handler); "
        "signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT]); "
        f"open({str(pid)!r}, 'w').write(str(os.getpid())); "
        f"from yahtzee_sim.cli import main; raise SystemExit(main({argv!r}))"
    )
    slow = tmp_path / "slow"  # a worker process of loky sleeps 20 s before it starts
    slow.mkdir()
    (slow / "sitecustomize.py").write_text(
        "import time\n"
        "if b'popen_loky' in open('/proc/self/cmdline', 'rb').read():\n"
        "    time.sleep(20)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(slow), *sys.path])}
    env["PYTHONFAULTHANDLER"] = "1"  # a command that hangs shows its threads' stacks
    # the command's output goes to files: its worker processes inherit them, and a pipe
    # would stay open as long as any of them lives, whatever the command did
    errors = tmp_path / "stderr"
    with open(errors, "w") as err_file, open(tmp_path / "stdout", "w") as out_file:
        child = subprocess.Popen(
            [sys.executable, "-c", code], stderr=err_file, stdout=out_file, env=env
        )
    try:
        deadline = time.perf_counter() + 120
        while not asleep.exists() and child.poll() is None and time.perf_counter() < deadline:
            time.sleep(0.01)
        assert asleep.exists(), errors.read_text()[-2000:]
        sent = time.perf_counter()
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:  # where each thread of the command waits
            child.send_signal(signal.SIGABRT)
            child.wait(10)
            raise AssertionError("no exit 30 s after Ctrl-C:\n" + errors.read_text()) from None
    finally:
        child.kill()
    err = errors.read_text()
    assert child.returncode == 130, err[-2000:]
    assert time.perf_counter() - sent < 10
    assert "Traceback" not in err and "yahtzee-sim simulate: interrupted" in err, err
