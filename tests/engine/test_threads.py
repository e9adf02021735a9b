"""The compiled kernels' thread count: per calling thread, from the environment, checked."""

from __future__ import annotations

import threading

import pytest

from yahtzee_sim.engine.threads import (
    THREADS_ENV,
    get_threads,
    set_threads,
    threads_limited,
    usable_cores,
)
from yahtzee_sim.errors import EnvironmentVariableError


def test_default_is_the_environment_then_every_usable_core(monkeypatch):
    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert get_threads() == usable_cores() >= 1
    monkeypatch.setenv(THREADS_ENV, "3")
    assert get_threads() == 3
    monkeypatch.setenv(THREADS_ENV, " ")
    assert get_threads() == usable_cores()


@pytest.mark.parametrize("text", ["0", "-2", "two", "1.5"])
def test_a_bad_environment_value_is_refused_by_name(monkeypatch, text):
    monkeypatch.setenv(THREADS_ENV, text)
    with pytest.raises(EnvironmentVariableError, match=THREADS_ENV) as info:
        get_threads()
    assert info.value.value == text


def test_a_count_set_in_one_thread_stays_in_that_thread(monkeypatch):
    monkeypatch.setenv(THREADS_ENV, "2")
    seen = {}

    def worker():
        set_threads(5)
        seen["worker"] = get_threads()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen["worker"] == 5
    assert get_threads() == 2


def test_threads_limited_restores_the_previous_count(monkeypatch):
    monkeypatch.setenv(THREADS_ENV, "4")
    with threads_limited(1):
        assert get_threads() == 1
        with threads_limited(3):
            assert get_threads() == 3
        assert get_threads() == 1
    assert get_threads() == 4


@pytest.mark.parametrize("n", [0, -1, 1.5, True, "2"])
def test_set_threads_refuses_what_is_not_a_count(n):
    with pytest.raises(ValueError, match="n must be"):
        set_threads(n)
