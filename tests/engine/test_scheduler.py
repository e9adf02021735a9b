"""The memo of prepared strategies (yahtzee_sim.engine.scheduler.PreparedStrategies)."""

from __future__ import annotations

import threading

from yahtzee_sim.engine.scheduler import PreparedStrategies
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.strategies import get_strategy


class Counted:
    """A duck-typed strategy (no ``get_params``) that counts its preparations."""

    def __init__(self):
        self.calls = 0

    def prepare(self, rules):
        self.calls += 1


def test_same_class_and_parameters_share_one_prepared_strategy():
    memo, rules = PreparedStrategies(), get_rules("yahtzee")
    first = memo.get(get_strategy("greedy"), rules)
    assert memo.get(get_strategy("greedy"), rules) is first
    assert memo.key(get_strategy("greedy"), rules) == memo.key(first, rules)


def test_other_parameters_labels_or_rules_are_other_strategies():
    rules = get_rules("yahtzee")
    key = PreparedStrategies.key
    greedy = get_strategy("greedy")
    assert key(greedy, rules) != key(greedy.labelled("mine"), rules)
    assert key(greedy, rules) != key(greedy, get_rules("yatzy"))
    assert key(get_strategy("target:200"), rules) != key(get_strategy("target:220"), rules)


def test_a_strategy_without_parameters_is_only_itself():
    memo, rules = PreparedStrategies(), get_rules("yahtzee")
    a, b = Counted(), Counted()
    assert memo.get(a, rules) is a and memo.get(a, rules) is a
    assert memo.get(b, rules) is b
    assert (a.calls, b.calls) == (1, 1)


def test_threads_asking_at_once_prepare_once():
    memo, rules = PreparedStrategies(), get_rules("yahtzee")
    strategy, start = Counted(), threading.Barrier(8)
    got = []

    def ask():
        start.wait()
        got.append(memo.get(strategy, rules))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert strategy.calls == 1 and all(s is strategy for s in got)


def test_clear_prepares_again():
    memo, rules = PreparedStrategies(), get_rules("yahtzee")
    strategy = Counted()
    memo.get(strategy, rules)
    memo.clear()
    memo.get(strategy, rules)
    assert strategy.calls == 2
