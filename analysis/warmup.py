"""The kernels each command compiles, compiled ahead of time: the plan of ``yahtzee-sim warmup``.

A numba kernel compiles on its first call in an environment whose kernel cache does not
hold it yet, and later processes load it from the cache. :data:`STEPS` are tiny
workloads that call the commands' own code paths with the same argument types as the
real work (so that they compile exactly the specializations the commands use) and
:data:`PLAN` says which steps each command needs. :func:`run_steps` runs them, up to
``jobs`` at a time, each in a process of its own; :mod:`~yahtzee_sim.analysis.beside`
runs some of them beside a first command.

The plan lives here, in the analysis layer, because the report's step calls the
report; every other step calls a layer below.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from yahtzee_sim.engine.strategy import Strategy
from yahtzee_sim.errors import WarmupError

__all__ = [
    "PLAN",
    "STEPS",
    "MostCommon",
    "Step",
    "WarmupError",
    "kernel_cache",
    "run_step",
    "run_steps",
    "steps_for",
]


@dataclass(frozen=True)
class Step:
    """One warm-up step.

    Attributes
    ----------
    label : str
        What it compiles, as the progress bar shows it.
    seconds : float
        Its expected CPU seconds with an empty kernel cache (the weight of its progress).
    after : tuple of str
        Steps that must finish first: their kernels (or solved table) it reuses.
    run : callable
        ``run(rules)`` does the tiny workload for a rule set.
    """

    label: str
    seconds: float
    after: tuple[str, ...]
    run: Callable[[object], None]


def _solver(rules) -> None:
    """Solve (or load) the value table into the table cache (the solver is compiled at
    install: nothing to compile)."""
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.solving.solver import value_table

    value_table(get_rules(rules))


def _simulation(rules) -> None:
    """A block of games of ``greedy`` (the default strategy) as ``simulate`` plays it."""
    from yahtzee_sim.engine.simulate import simulate, simulate_aggregate

    simulate_aggregate("greedy", 64, rules=rules, n_jobs=1, progress=False)
    simulate("greedy", 64, rules=rules, n_jobs=1, progress=False)


def _optimal_play(rules) -> None:
    """A block of games of ``optimal``: the decision fill of the table strategies."""
    from yahtzee_sim.engine.simulate import simulate_aggregate

    simulate_aggregate("optimal", 64, rules=rules, n_jobs=1, progress=False)


def _some_dice(rules) -> list[int]:
    """A roll of ``rules``' dice (any number of dice and faces): 1, 2, 3, ..."""
    from yahtzee_sim.game.rules import get_rules

    rules = get_rules(rules)
    return [i % rules.n_faces + 1 for i in range(rules.n_dice)]


def _zero_table(rules):
    """A value table of zeros for ``rules``: the kernels' argument types without a solve."""
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.game.state import n_states
    from yahtzee_sim.solving.solver import ValueTable

    rules = get_rules(rules)
    return ValueTable(rules, np.zeros(n_states(rules)))


def _table_fill(rules) -> None:
    """A block of games of a table strategy against a table of zeros: the decision fill
    and the kernels of play a first ``simulate`` of optimal play compiles besides the
    solver's, without solving."""
    from yahtzee_sim.engine.simulate import simulate_aggregate
    from yahtzee_sim.strategies.optimal import TableStrategy

    table = _zero_table(rules)

    class Zeros(TableStrategy):
        def state_values(self, rules) -> np.ndarray:
            return table.values

    simulate_aggregate(Zeros(), 64, rules=table.rules, n_jobs=1, progress=False)


def _mixed_widget(rules) -> None:
    """A block of games of a Python strategy: what a first ``simulate`` of a table strategy
    needs besides the fill (compiled with the package), run by
    :func:`~yahtzee_sim.analysis.beside.compile_beside` while the command runs."""
    from yahtzee_sim.engine.simulate import simulate_aggregate
    from yahtzee_sim.game.rules import get_rules

    rules = get_rules(rules)
    simulate_aggregate(MostCommon(), 64, rules=rules, n_jobs=1, progress=False)


def _advisor_kernels(rules) -> None:
    """One advisor answer at each number of rolls left against a table of zeros: the
    advisor's kernels without the solver's."""
    from yahtzee_sim.solving.advisor import advise

    table = _zero_table(rules)
    for rolls_left in range(table.rules.rolls_per_turn - 1, -1, -1):
        advise(_some_dice(table.rules), rolls_left, rules=table.rules, table=table)


def _advisor(rules) -> None:
    """One advisor answer at each number of rolls left."""
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.solving.advisor import advise

    for rolls_left in range(get_rules(rules).rolls_per_turn - 1, -1, -1):
        advise(_some_dice(rules), rolls_left, rules=rules)


class MostCommon(Strategy):
    """A user's Python strategy (no kernel of its own): keeps the most frequent face,
    writes the roll in the box worth most now. The ``exact`` step compiles what the exact
    law of such a strategy needs."""

    def keep(self, view):
        counts = np.asarray(view.dice)
        face = counts.argmax(axis=1)
        rows = np.arange(len(counts))
        keep = np.zeros_like(counts)
        keep[rows, face] = counts[rows, face]
        return keep

    def box(self, view):
        return view.box_points.argmax(axis=1)


def _exact(rules) -> None:
    """The exact law (forward and backward pass) over the first turn, of a user's Python
    strategy and of ``greedy`` (a built-in that fills its decisions in a kernel)."""
    from yahtzee_sim.exact.laws import exact_result, forward_pass, prepared

    for strategy in (MostCommon(), "greedy"):
        strategy, prepared_rules = prepared(strategy, rules)
        levels, stats = forward_pass(strategy, prepared_rules, turns=1)
        exact_result(strategy, prepared_rules, levels, stats)
    _turn_in_progress(rules)


def _turn_in_progress(rules) -> None:
    """The outcomes of a turn in progress (``winprob`` with dice: the law of the points to
    come), against decisions of zeros: the kernel without a value table."""
    from yahtzee_sim._kernels.scoring import kernel_rules
    from yahtzee_sim.exact.points_to_come import outcomes_from_roll
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.game.state import compact_states

    rules = get_rules(rules)
    if compact_states(rules):  # saved rolls: no law of the points to come
        return
    n_rolls, layers = rules.tables.n_rolls, max(rules.rolls_per_turn - 1, 1)
    keep, cat = np.zeros((layers, n_rolls), dtype=np.int16), np.zeros(n_rolls, dtype=np.int8)
    p = np.zeros(n_rolls)
    p[0] = 1.0
    zero = np.int64(0)
    outcomes_from_roll(kernel_rules(rules), keep, cat, p, zero, zero, zero, zero)


def _exact_tail(rules) -> None:
    """The exact law's kernels after a level's outcomes (their compaction and effects, the
    forward moments, the backward law), called on a level of the start state with no
    outcome in the argument types a real law uses: what a first ``exact`` needs besides
    the decisions and the outcomes, run by
    :func:`~yahtzee_sim.analysis.beside.compile_beside` while the command compiles those."""
    from yahtzee_sim._kernels import exact as kernels
    from yahtzee_sim._kernels.scoring import kernel_rules
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.game.state import decode_state

    rules = get_rules(rules)
    states, n_rolls = np.zeros(1, dtype=np.int64), rules.tables.n_rolls
    out = [np.zeros((1, n_rolls), dtype=t) for t in (np.int8, np.int16, np.int8, np.float64)]
    cat, raw, yb, prob = (np.empty(0, dtype=t) for t in (np.int8, np.int16, np.int8, np.float64))
    ptr, n_out = np.zeros(2, dtype=np.int64), np.zeros(1, dtype=np.int64)
    kernels.compact_outcomes(n_out, *out, cat, raw, yb, prob, 0)
    nxt, pts, ub = np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int8)
    used, upper, flag = decode_state(rules, states)
    kernels.level_effects(kernel_rules(rules), used, upper, flag, ptr, cat, raw, yb, nxt, pts, ub)
    acc = kernels.new_moments(1, rules.n_boxes)
    kernels.forward_level(states, ptr, cat, raw, yb, nxt, pts, ub, prob, 0, acc)
    top = kernels.support_top(ptr, nxt, pts, np.zeros(1, dtype=np.int64))
    kernels.pmf_level(ptr, nxt, pts, prob, np.ones((1, 1)), top, np.zeros((1, 1)))


def _regret(rules) -> None:
    """The regret of ``greedy`` over the first turn, charged against the value table."""
    from yahtzee_sim.analysis.decisions.regret import RegretAccumulator
    from yahtzee_sim.exact.laws import forward_pass, prepared
    from yahtzee_sim.solving.solver import value_table

    strategy, prepared_rules = prepared("greedy", rules)
    values = value_table(prepared_rules).values
    accumulator = RegretAccumulator(prepared_rules, 1, values=values)
    forward_pass(strategy, prepared_rules, on_decisions=accumulator, turns=1)


def _report(rules) -> None:
    """The report's own warm-up (the decision fill, the exact stage, the regret), then
    100 games and the first turn's exact law of every built-in strategy it simulates."""
    from yahtzee_sim.analysis.ranking.paired_games import simulate_scores
    from yahtzee_sim.analysis.report.build import is_deterministic
    from yahtzee_sim.analysis.report.compile_ahead import warm
    from yahtzee_sim.exact.laws import forward_pass, prepared
    from yahtzee_sim.strategies import default_strategy_ids, get_strategy

    warm(getattr(rules, "name", rules))
    for sid in default_strategy_ids():
        try:
            simulate_scores(get_strategy(sid), 100, 0, rules, 1)
            if is_deterministic(sid):
                forward_pass(*prepared(sid, rules), turns=1)
        except ValueError:  # a strategy that refuses these rules: the report skips it too
            continue


#: Every step, by name. ``seconds`` weighs the progress bar only: the numba compile
#: seconds of the same first calls in ``benchmarks/bench_compile.py`` (2-core AMD EPYC,
#: ``benchmarks/results/compile.json``: solver, table fill, advisor, regret); the
#: ``simulation``, ``exact`` and ``report`` figures are estimates from the report's
#: kernels (``compile_ahead.REPORT_KERNELS``) until measured.
#: ``python benchmarks/bench_first_run.py --warmup`` prints each step's CPU seconds from
#: an empty cache: copy them here.
STEPS: dict[str, Step] = {
    "solver": Step("value table", 26.4, (), _solver),
    "simulation": Step("simulation", 10.0, (), _simulation),
    "optimal_play": Step("optimal play", 19.9, ("solver",), _optimal_play),
    "advisor": Step("advisor", 3.7, ("solver",), _advisor),
    "exact": Step("exact law", 12.0, (), _exact),
    "regret": Step("regret", 21.1, ("solver",), _regret),
    "report": Step("report", 40.0, ("solver",), _report),
    # run beside a first solve by solve_while_compiling (no solve of their own)
    "table_fill": Step("optimal play's kernels", 29.9, (), _table_fill),
    "advisor_kernels": Step("advisor's kernels", 3.7, (), _advisor_kernels),
    # run beside a first simulate of a table strategy by compile_beside
    "mixed_widget": Step("optimal play's widget", 12.0, (), _mixed_widget),
    # run beside a first exact law by compile_beside
    "exact_tail": Step("exact law's later kernels", 5.0, (), _exact_tail),
}

_PLAY = ("solver", "simulation", "optimal_play")
_ADVISE = ("solver", "advisor")
#: The steps each command needs (a command with none compiles no kernel of its own or
#: compiles per strategy: every step covers the defaults and ``optimal``).
PLAN: dict[str, tuple[str, ...]] = {
    "simulate": _PLAY,
    "solve": ("solver",),
    "advise": _ADVISE,
    "select": _PLAY,
    "rank": _PLAY,
    "exact": ("exact",),
    "regret": ("solver", "regret"),
    "check": ("simulation", "exact"),
    "report": (*_PLAY, "exact", "regret", "report"),
    "reproduce": (*_PLAY, "exact", "regret", "report"),
    "target": (),
    "win": (),
    "risk": (),
    "tournament": _PLAY,
    "winprob": ("exact",),
    "duel": (),
    "distill": _PLAY,
    "dataset": _PLAY,
    "analyze": _ADVISE,
    "play": _ADVISE,
    "serve": _ADVISE,
    "strategies": (),
    "rules": (),
}


def steps_for(commands: Iterable[str] = ()) -> list[str]:
    """The steps the ``commands`` need (all commands when none is named), in the order of
    :data:`STEPS`; :class:`WarmupError` for a name not in :data:`PLAN`."""
    commands = list(commands) or list(PLAN)
    unknown = [c for c in commands if c not in PLAN]
    if unknown:
        raise WarmupError(f"unknown command {unknown[0]!r}; choose from {', '.join(PLAN)}")
    wanted = {step for c in commands for step in PLAN[c]}
    return [step for step in STEPS if step in wanted]


def run_step(name: str, rules) -> dict:
    """Run step ``name`` for ``rules`` in this process: ``{"cpu": seconds, "kernels":
    {kernel: compile seconds}}`` (the kernels numba compiled at top level, by
    ``module.name``), or ``{"skipped": reason}`` when the rules refuse the step."""
    from numba.core import event

    compiled = _compiles()
    t0 = time.process_time()
    try:
        with event.install_listener("numba:compile", compiled):
            STEPS[name].run(rules)
    except ValueError as exc:  # YahtzeeSimError: e.g. a game type a feature does not take
        return {"skipped": " ".join(str(exc).splitlines())}
    kernels = {k: round(v, 2) for k, v in sorted(compiled.seconds.items())}
    return {"cpu": round(time.process_time() - t0, 2), "kernels": kernels}


def _compiles():
    """A numba event listener that adds up each top-level compilation's seconds."""
    from numba.core import event

    class Compiles(event.Listener):
        def __init__(self):
            self.seconds, self.stack = {}, []

        def on_start(self, ev):
            func = ev.data["dispatcher"].py_func
            self.stack.append((time.perf_counter(), f"{func.__module__}.{func.__qualname__}"))

        def on_end(self, ev):
            t0, kernel = self.stack.pop()
            if not self.stack:
                self.seconds[kernel] = self.seconds.get(kernel, 0.0) + time.perf_counter() - t0

    return Compiles()


def run_steps(
    names: list[str], rules: str, jobs: int = 2, on_done: Callable[[str, dict], None] | None = None
) -> dict[str, dict]:
    """Run the steps ``names`` for the rules named ``rules``, up to ``jobs`` at a time,
    each in a fresh process (``python -m yahtzee_sim.analysis.warmup STEP RULES``), a step
    only once the steps it comes ``after`` (among ``names``) are done.
    ``on_done(name, outcome)`` is called as each step ends; returns the outcome of each
    (:func:`run_step`). A step whose process fails raises :class:`RuntimeError`."""
    done: dict[str, dict] = {}
    running: dict[str, subprocess.Popen] = {}
    todo = list(names)
    try:
        while todo or running:
            for name in [n for n in todo if _ready(n, names, done)][: max(1, jobs) - len(running)]:
                todo.remove(name)
                running[name] = _start(name, rules)
            time.sleep(0.05)
            for name, proc in list(running.items()):
                if proc.poll() is not None:
                    done[name] = _outcome(name, running.pop(name))
                    if on_done is not None:
                        on_done(name, done[name])
    finally:  # interrupted: stop the steps still running
        for proc in running.values():
            proc.kill()
            proc.wait()
    return done


def _start(name: str, rules: str) -> subprocess.Popen:
    """The process of one step."""
    return subprocess.Popen(
        [sys.executable, "-m", "yahtzee_sim.analysis.warmup", name, rules],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _outcome(name: str, proc: subprocess.Popen) -> dict:
    """The outcome a finished step's process printed."""
    out, err = proc.communicate()
    if proc.returncode != 0 or not out.strip():
        last = (err.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"warm-up step {name!r} failed: {last}")
    return json.loads(out.strip().splitlines()[-1])


def _ready(name: str, names: list[str], done: dict) -> bool:
    """Whether every step ``name`` comes after (among ``names``) is done."""
    return all(before in done or before not in names for before in STEPS[name].after)


def kernel_cache() -> dict[str, str]:
    """Where the compiled kernels are stored: ``folder`` (of the solver's kernels; every
    kernel module of the package has one beside it, or a subfolder of
    ``NUMBA_CACHE_DIR``) and ``where`` (``NUMBA_CACHE_DIR``, ``beside the sources``,
    or ``per-user folder``: numba's fallback when the sources' folder is not writable)."""
    from yahtzee_sim._kernels import decisions

    cache = decisions.fill_lanes._cache
    locator = type(cache._impl.locator).__name__
    if "UserProvided" in locator or "UserDir" in locator:
        where = "NUMBA_CACHE_DIR"
    elif "InTree" in locator or "Source" in locator:
        where = "beside the sources"
    else:
        where = "per-user folder"
    return {"folder": str(cache._cache_path), "where": where}


def default_jobs() -> int:
    """Both cores of a two-core machine, fewer when the machine has fewer."""
    return min(2, os.cpu_count() or 1)


if __name__ == "__main__":  # one step in a process of its own: python -m ... STEP RULES
    print(json.dumps(run_step(sys.argv[1], sys.argv[2])))
