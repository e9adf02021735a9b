"""Shared helpers for the tests."""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import itertools
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from yahtzee_sim import get_rules
from yahtzee_sim.engine.strategy import Strategy
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.game.rules import Box, RuleSet


def view_for(rules, dice, used=(), flag=0, upper_total=0, rolls_left=0, turn=0):
    """A one-game TurnView for a hand-made position."""
    rules = get_rules(rules)
    t = rules.tables
    counts = t.counts_from_faces(dice)[None, :]
    mask = 0
    for name in used:
        mask |= 1 << rules.box_index(name)
    return TurnView(
        rules,
        games=np.array([0], dtype=np.int64),
        dice=counts,
        roll_index=t.roll_index(counts).astype(np.int32),
        rolls_left=rolls_left,
        turn=turn,
        used=np.array([mask], dtype=np.int64),
        upper_total=np.array([upper_total], dtype=np.int64),
        flag=np.array([flag], dtype=np.int64),
        score=np.array([0], dtype=np.int64),
        box_scores=np.zeros((1, rules.n_boxes), dtype=np.int16),
    )


def options(rules, dice, used=(), flag=0, upper_total=0):
    """{box: points} of the legal boxes for a hand-made position."""
    v = view_for(rules, dice, used, flag, upper_total)
    names = v.rules.box_names
    return {n: int(p) for n, p in zip(names, v.box_points[0], strict=True) if p >= 0}


@contextlib.contextmanager
def dask_cluster():
    """A two-worker dask LocalCluster as the joblib backend; yields its client (the test
    is skipped without dask.distributed)."""
    import pytest

    distributed = pytest.importorskip("dask.distributed")
    from joblib import parallel_config

    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
        parallel_config(backend="dask"),
    ):
        yield client


# ------------------------------------------------ exact results shared by the test run
def exact_law(strategy: str, rules: str = "yahtzee", distribution: bool = True):
    """``evaluate(strategy, rules, distribution=...)`` of a built-in strategy id,
    computed once per test run.

    Several tests check the same law (the golden values, the simulations, the
    tournaments): the first test that needs it computes it with
    :func:`yahtzee_sim.exact.laws.evaluate` (a strategy whose shipped record holds a
    regret: with :func:`regret_law`, whose pass gives the same law bit for bit and which
    the shipped-record test needs anyway) and keeps it in the run's cache folder
    (``tests/conftest.py``, shared by the xdist workers); the others read it back, bit
    for bit (:mod:`yahtzee_sim.analysis.report.exact_cache`). ``distribution=False`` (the
    moments, without the pmf) reads the whole law if a test already computed it.
    """
    from yahtzee_sim.exact.laws import evaluate

    top = _shipped_regret_top(strategy, rules)
    if top is not None:  # its regret is checked too: one pass gives both, computed once
        law = regret_law(strategy, rules, top)[0]
        return law if distribution else dataclasses.replace(law, pmf=None)
    if not distribution:
        whole = _shared(strategy, rules, None, None)
        if whole is not None:
            return dataclasses.replace(whole[0], pmf=None)
        moments = _shared(
            strategy, rules, "moments", lambda r: (evaluate(strategy, r, distribution=False), None)
        )
        return dataclasses.replace(moments[0], pmf=None)
    return _shared(strategy, rules, None, lambda r: (evaluate(strategy, r), None))[0]


def _shipped_regret_top(strategy: str, rules) -> int | None:
    """The ``top`` of the shipped record of ``strategy`` on ``rules`` when that record
    holds a regret (``tests/analysis/test_shipped_results.py`` computes it afresh), else
    ``None``."""
    from yahtzee_sim.analysis.report import exact_cache, shipped_results

    top = shipped_results.SHIPPED_TOP
    key = exact_cache.identity_key(strategy, get_rules(rules), top)
    record = None if key is None else shipped_results.record(key)
    return top if record is not None and record.get("regret") is not None else None


def regret_law(strategy: str, rules: str = "yahtzee", top: int = 10):
    """``(evaluate(strategy, rules), regret(strategy, rules, top))`` of a built-in
    strategy id from one forward pass, computed once per test run (as :func:`exact_law`)."""
    from yahtzee_sim.analysis.decisions.regret import evaluate_with_regret

    return _shared(strategy, rules, top, lambda r: evaluate_with_regret(strategy, r, top))


def _shared(strategy: str, rules: str, part: int | str | None, compute):
    """The cached ``(exact, regret)`` of ``part`` (``None``: the law; ``"moments"``: its
    moments; an int: the law and the regret with that many situations), computed by
    ``compute(rules)`` if missing (``compute=None``: ``None`` if missing)."""
    from yahtzee_sim.analysis.report import exact_cache
    from yahtzee_sim.solving.cache import cache_dir

    rules = get_rules(rules)
    cache_dir().mkdir(parents=True, exist_ok=True)
    key = exact_cache.result_key(strategy, rules, part)
    assert key is not None, f"{strategy!r} is not a built-in strategy"
    if part is not None:  # apart from the entries the report tests write and check
        key = f"suite-{key}"  # (the law alone: the key of exact_cache.exact_law)
    # one worker computes, a worker that needs the same result meanwhile waits for it
    with open(cache_dir() / f".{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            got = exact_cache.load(key, rules)
            if got is None and compute is not None:
                got = ex, reg = compute(rules)
                pmf = np.zeros(0) if ex.pmf is None else ex.pmf  # moments: no pmf
                exact_cache.save(key, dataclasses.replace(ex, pmf=pmf), reg)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return got


#: Two late-game score sheets (Yahtzee rules) the match and win-probability tests share:
#: A has every box but four of a kind, Yahtzee and chance; B every box but Yahtzee's chance.
LATE_A = (
    "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,three_of_a_kind=20,"
    "four_of_a_kind=0,full_house=25,small_straight=30,large_straight=40"
)
LATE_B = (
    "ones=2,twos=6,threes=12,fours=16,fives=20,sixes=24,three_of_a_kind=25,"
    "four_of_a_kind=22,full_house=25,small_straight=30,yahtzee=0"
)


def brute_upper_game(n_dice: int, n_faces: int, rolls: int, utility) -> Fraction:
    """max E[``utility(final score)``] of an upper-section-only game (one box per face, box
    ``f`` scores ``f`` × the number of ``f``'s, no bonus; 2-Yatzy with two two-sided dice),
    in fractions, by plain recursion over dice multisets and every keep."""
    faces = range(1, n_faces + 1)

    def law(k):
        out: dict[tuple, Fraction] = {}
        for seq in itertools.product(faces, repeat=k):
            key = tuple(sorted(seq))
            out[key] = out.get(key, 0) + Fraction(1, n_faces**k)
        return out

    laws = [law(k) for k in range(n_dice + 1)]

    @cache
    def game(used: frozenset, score: int) -> Fraction:
        if len(used) == n_faces:
            return utility(score)
        return sum(p * value(dice, rolls - 1, used, score) for dice, p in laws[n_dice].items())

    @cache
    def value(dice: tuple, left: int, used: frozenset, score: int) -> Fraction:
        best = max(game(used | {f}, score + f * dice.count(f)) for f in faces if f not in used)
        if left == 0:
            return best
        for r in range(len(dice)):
            for keep in set(itertools.combinations(dice, r)):
                v = sum(
                    p * value(tuple(sorted(keep + more)), left - 1, used, score)
                    for more, p in laws[n_dice - r].items()
                )
                best = max(best, v)
        return best

    return game(frozenset(), 0)


def two_roll_game(
    name: str, n_dice: int, n_faces: int, boxes: tuple, upper_bonus: tuple[int, int], **rules
) -> RuleSet:
    """A small game for exact checks: ``n_dice`` ``n_faces``-sided dice, two rolls a turn,
    ``boxes``, an upper bonus ``upper_bonus = (threshold, points)``; ``rules``: the other
    fields of the :class:`~yahtzee_sim.game.rules.RuleSet`."""
    threshold, points = upper_bonus
    return RuleSet(
        name=name,
        n_dice=n_dice,
        n_faces=n_faces,
        rolls_per_turn=2,
        boxes=boxes,
        upper_bonus_threshold=threshold,
        upper_bonus=points,
        **rules,
    )


def bonus_limit_game(limit: int, bonus: int = 20) -> RuleSet:
    """2 three-sided dice, 2 rolls: Ones, Twos, Threes, Yahtzee (10), Chance; upper bonus 3
    at 6; a Yahtzee bonus of ``bonus`` at most ``limit`` times (0: no limit)."""
    cats = (
        Box("ones", "upper", param=1),
        Box("twos", "upper", param=2),
        Box("threes", "upper", param=3),
        Box("yahtzee", "yahtzee", points=10),
        Box("chance", "chance"),
    )
    return two_roll_game(
        f"small-limit-{limit}", 2, 3, cats, (6, 3), yahtzee_bonus=bonus, yahtzee_bonus_limit=limit
    )


def small_saved_game(cap: int = 0, forced: bool = False, n_dice: int = 3) -> RuleSet:
    """Three-faced dice (three, or ``n_dice``), two rolls a turn, six boxes (upper boxes,
    a pair or two pairs, a straight, n of a kind); at most ``cap`` rolls saved (5 with
    three dice: every unused roll), boxes in score-sheet order when ``forced``."""
    boxes = (
        Box("ones", "upper", param=1),
        Box("twos", "upper", param=2),
        Box("threes", "upper", param=3),
        Box("pairs", "groups", groups=(2, 2)) if n_dice >= 4 else Box("pair", "n_equal", param=2),
        Box("run", "straight", points=7, faces=(1, 2, 3)),
        Box("all", "yahtzee", points=12),
    )
    return two_roll_game(
        "small-saved", n_dice, 3, boxes, (8, 5), forced_order=forced, saved_roll_cap=cap
    )


def headless_chromium():
    """Headless Chromium under Selenium (Debian's chromium and chromium-driver, installed by
    .ci/run): fails in CI without them, else skips the test."""
    import os
    import shutil

    import pytest

    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver):
        if os.environ.get("CI"):
            pytest.fail("CI must install Debian's chromium and chromium-driver (.ci/run)")
        pytest.skip("no chromium/chromedriver here (apt-get install chromium chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--window-size=1300,1000", "--disable-dev-shm-usage",
    ):  # fmt: skip
        opts.add_argument(flag)
    service = webdriver.ChromeService(executable_path=driver)
    return webdriver.Chrome(options=opts, service=service)


def scripted_answers(answers):
    """An ``ask`` callable for the terminal game that returns ``answers`` one by one and
    then raises ``EndOfInput`` (as Ctrl-D would)."""
    from yahtzee_sim.apps.terminal import EndOfInput

    it = iter(answers)

    def ask(prompt):
        try:
            return next(it)
        except StopIteration:
            raise EndOfInput("end") from None

    return ask


@contextlib.contextmanager
def running_server():
    """The coach's web app served on a free local port in a thread; yields its URL."""
    import threading

    from werkzeug.serving import make_server

    from yahtzee_sim.apps.server import create_app

    srv = make_server("127.0.0.1", 0, create_app(), threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.port}"
    finally:
        srv.shutdown()
        thread.join(10)


class BatchedOnly(Strategy):
    """A strategy asked through its batched ``keep`` and ``box`` only: its compiled
    decision fills (``decision_table``, ``saved_decision_table``) are hidden, so the exact
    passes take the path of every strategy without one.

    Parameters
    ----------
    inner : str or Strategy
        The strategy asked (a registry id is built with :func:`get_strategy`).
    """

    def __init__(self, inner="greedy"):
        from yahtzee_sim.strategies import get_strategy

        self.inner = get_strategy(inner) if isinstance(inner, str) else inner

    def prepare(self, rules):
        self.inner.prepare(rules)

    def keep(self, view):
        return self.inner.keep(view)

    def box(self, view):
        return self.inner.box(view)


def bars_made(monkeypatch, module, name: str) -> list:
    """Patch ``module.name`` (a function that makes a progress bar) so that every bar it
    makes is also appended to the returned list."""
    made, original = [], getattr(module, name)

    def kept(*args, **options):
        made.append(original(*args, **options))
        return made[-1]

    monkeypatch.setattr(module, name, kept)
    return made


def assert_each_step_taken_once(bar) -> None:
    """A finished weighted progress bar took every step of its run once and came to its end."""
    assert bar.taken == dict.fromkeys(bar.weights, 1)
    assert bar.done == pytest.approx(bar.total)


def decision_book(strategy, rules):
    """Every decision of ``strategy`` on ``rules`` (no Yahtzee flag), asked once per
    rerolls left and per rolls saved over every (used-mask, upper total, roll):
    ``keep[(used, upper, roll, left)]`` face counts kept, ``box[(used, upper, roll,
    bank)]`` the box."""
    from yahtzee_sim.engine.decide import decide, prepare
    from yahtzee_sim.game.state import upper_reach

    t = rules.tables
    masks, uppers, rolls = np.meshgrid(
        np.arange((1 << rules.n_boxes) - 1), np.arange(rules.upper_cap + 1),
        np.arange(t.n_rolls), indexing="ij",
    )  # fmt: skip
    used, upper, roll = (a.ravel().astype(np.int64) for a in (masks, uppers, rolls))
    ok = upper <= upper_reach(rules, used)  # the totals the filled boxes can make
    used, upper, roll = used[ok], upper[ok], roll[ok]
    m = len(used)
    most_left = rules.rolls_per_turn - 1 + rules.saved_roll_cap

    def view(left, bank):
        return TurnView(
            rules, np.arange(m, dtype=np.int64), t.roll_counts[roll], roll.astype(np.int32),
            left, rules.n_boxes - 1, used, upper, np.zeros(m, dtype=np.int64),
            np.zeros(m, dtype=np.int64), np.zeros((m, rules.n_boxes), dtype=np.int16),
            saved_rolls=np.full(m, bank, dtype=np.int64),
        )  # fmt: skip

    prepare(strategy, rules)
    keys = list(zip(used.tolist(), upper.tolist(), roll.tolist(), strict=True))
    keep, box = {}, {}
    for left in range(1, most_left + 1):
        got = np.asarray(decide(strategy, view(left, 0)))
        keep.update({(*k, left): tuple(got[i]) for i, k in enumerate(keys)})
    for bank in range(rules.saved_roll_cap + 1):
        got = np.asarray(decide(strategy, view(0, bank)))
        box.update({(*k, bank): int(got[i]) for i, k in enumerate(keys)})
    return keep, box


def kill_after_calls(module, name: str, calls: int) -> None:
    """Make ``module.name`` kill this process with SIGKILL right after its ``calls``-th
    call returns: a child process dies mid-run as ``kill -9`` would kill it."""
    import os
    import signal

    real, seen = getattr(module, name), []

    def dying(*args, **kwargs):
        out = real(*args, **kwargs)
        seen.append(1)
        if len(seen) == calls:
            os.kill(os.getpid(), signal.SIGKILL)
        return out

    setattr(module, name, dying)
